/**
 * A small byte-level BPE trainer (GPT-2 style) that writes Hugging Face `tokenizer.json`, so the runtime
 * loads the bundled tokenizer with @huggingface/tokenizers, the same code path as a real model's.
 */
import { BYTE_TO_CHAR, toByteLevel } from './byteLevel';

/** GPT-2's pre-tokenization: contractions, letters, numbers, other symbols, each with one leading space. */
const PRE_TOKENIZE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

export interface TrainedBpe {
  /** Token string (byte-level) → id: the 256 bytes, then one token per merge, then the special tokens. */
  vocab: Map<string, number>;
  merges: [string, string][];
  specialTokens: string[];
}

/** Learns `mergeCount` merges from `texts`; ties go to the lexicographically smallest pair. */
export function trainByteLevelBpe(
  texts: readonly string[],
  mergeCount: number,
  specialTokens: readonly string[],
): TrainedBpe {
  const wordCounts = new Map<string, number>();
  for (const text of texts) {
    for (const match of text.matchAll(PRE_TOKENIZE)) {
      const word = toByteLevel(match[0]);
      wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1);
    }
  }
  const words = [...wordCounts].map(([word, count]) => ({ symbols: [...word], count }));
  const vocab = new Map<string, number>(BYTE_TO_CHAR.map((char, id) => [char, id]));
  const merges: [string, string][] = [];
  while (merges.length < mergeCount) {
    const pairCounts = new Map<string, number>();
    for (const { symbols, count } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairCounts.set(key, (pairCounts.get(key) ?? 0) + count);
      }
    }
    let best: string | null = null;
    let bestCount = 1;
    for (const [key, count] of pairCounts) {
      if (count > bestCount || (count === bestCount && best !== null && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === null) break; // every remaining pair occurs once: nothing worth merging
    const [left, right] = best.split('\u0000') as [string, string];
    const merged = left + right;
    merges.push([left, right]);
    vocab.set(merged, vocab.size);
    for (const word of words) {
      const next: string[] = [];
      for (let i = 0; i < word.symbols.length; i++) {
        if (word.symbols[i] === left && word.symbols[i + 1] === right) {
          next.push(merged);
          i++;
        } else next.push(word.symbols[i] as string);
      }
      word.symbols = next;
    }
  }
  for (const token of specialTokens) vocab.set(token, vocab.size);
  return { vocab, merges, specialTokens: [...specialTokens] };
}

/** The Hugging Face `tokenizer.json` of a trained byte-level BPE. */
export function tokenizerJson(bpe: TrainedBpe): Record<string, unknown> {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: bpe.specialTokens.map((content) => ({
      id: bpe.vocab.get(content),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: null,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries(bpe.vocab),
      merges: bpe.merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}
