/** A small raw vocabulary for grammar tests: single characters, some longer pieces, junk, and a stop token. */
export const SMALL_VOCAB = ['"', 'p', 'o', 's', 'i', 't', 'v', 'e', 'n', 'g', 'a', 'u', 'r', 'l', 'f', 'pos', 'itive', 'neg', 'ative', 'neutral', '"positive"', 'tr', 'ue', 'x', ' ', '{', '</s>'];
export const STOP = SMALL_VOCAB.length - 1;
