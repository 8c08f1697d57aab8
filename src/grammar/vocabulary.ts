/** The vocabulary the tokenizer hands the grammar: what the mask engine (engine.ts) and the byte guard (byteGuard.ts) read. */
export type VocabType = 'raw' | 'byte_level' | 'byte_fallback';

export interface GrammarVocabulary {
  /** Token strings as xgrammar expects them for the vocab type (byte-level: GPT-2's Ġ-style strings). */
  tokens: readonly string[];
  vocabType: VocabType;
  stopTokenIds: readonly number[];
}
