/**
 * A Hugging Face tokenizer.json behind the few calls the app needs, through @huggingface/tokenizers:
 * the same code path for the bundled tokenizer and a real model's.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import type { GrammarVocabulary } from '../grammar/engine';
import { ModelLoadError } from './manifest';
import { ownValue } from '../contract/ownKeys';

interface TokenizerJson {
  model: { type?: string; vocab: Record<string, number>; merges?: unknown[]; byte_fallback?: boolean };
  added_tokens?: { id: number; content: string; special?: boolean }[];
  pre_tokenizer?: { type?: string } | null;
  decoder?: { type?: string } | null;
}

export class TextTokenizer {
  private constructor(
    private readonly tokenizer: Tokenizer,
    /** Token strings by id, as the vocabulary spells them (byte-level: Ġ for a space). */
    readonly tokens: readonly string[],
    /** The stop tokens (generation_config.json's eos_token_id); the first is the EOS a stopped run emits. */
    readonly stopTokenIds: readonly number[],
    /** How token strings spell bytes: GPT-2's byte-level alphabet, SentencePiece's ▁ and <0x0A>, or as they are. */
    readonly vocabType: GrammarVocabulary['vocabType'],
    /** Identifies the vocabulary, merges and special tokens: equal iff two tokenizers split text alike. */
    readonly fingerprint: string,
    /**
     * The same tokenizer without its special added tokens: typed text that holds a special token's text is
     * encoded as ordinary text, in one pass (split around them, a SentencePiece tokenizer put a ▁ before each
     * piece: Llama 2 read `"<s>"` back as `" < s> "`).
     */
    private readonly textEncoder: Tokenizer,
  ) {}

  /** `stop` is the stop token's text, or the stop tokens' ids (a Hub config's eos_token_id, first the EOS). */
  static fromJson(json: unknown, source: string, stop: string | number | readonly number[]): TextTokenizer {
    const parsed = json as TokenizerJson;
    if (typeof parsed.model !== 'object' || typeof parsed.model.vocab !== 'object') {
      throw new ModelLoadError(`${source}: not a Hugging Face tokenizer.json (no model.vocab)`);
    }
    const tokens: string[] = [];
    for (const [token, id] of Object.entries(parsed.model.vocab)) tokens[id] = token;
    for (const added of parsed.added_tokens ?? []) tokens[added.id] = added.content;
    const stopIds =
      typeof stop === 'string'
        ? [
            (parsed.added_tokens ?? []).find((token) => token.content === stop)?.id ??
              ownValue(parsed.model.vocab, stop),
          ]
        : typeof stop === 'number'
          ? [stop]
          : [...stop];
    const missing = stopIds.find((id) => id === undefined || !(id >= 0 && id < tokens.length));
    if (stopIds.length === 0 || missing !== undefined || stopIds.includes(undefined))
      throw new ModelLoadError(
        `${source}: the tokenizer has no stop token ${JSON.stringify(typeof stop === 'string' ? stop : (missing ?? stop))}, so generation could never end`,
      );
    const holes = tokens.findIndex((token) => typeof token !== 'string');
    if (holes !== -1 || tokens.length === 0)
      throw new ModelLoadError(`${source}: token ids are not contiguous (id ${holes} is missing)`);
    const vocabType = tokenSpelling(parsed);
    const fingerprint = JSON.stringify([
      parsed.model.type,
      tokens,
      parsed.model.merges ?? [],
      parsed.pre_tokenizer ?? null,
    ]);
    const plainAdded = (parsed.added_tokens ?? []).filter(
      (token) => !(token.special !== false && token.content.length > 1),
    );
    return new TextTokenizer(
      new Tokenizer(json as object, {}),
      tokens,
      stopIds as number[],
      vocabType,
      fingerprint,
      new Tokenizer({ ...(json as object), added_tokens: plainAdded }, {}),
    );
  }

  /** The EOS: what a run that stops emits last. */
  get stopTokenId(): number {
    return this.stopTokenIds[0] as number;
  }

  /** GPT-2's byte-level alphabet (Ġ for a space). */
  get byteLevel(): boolean {
    return this.vocabType === 'byte_level';
  }

  get vocabSize(): number {
    return this.tokens.length;
  }

  /**
   * Text as the user typed it: a special token's text in it (`<|endoftext|>` typed into a prompt) is encoded
   * as ordinary text, never as the special token itself, so a prompt cannot smuggle in the stop token.
   */
  encode(text: string): number[] {
    return text === '' ? [] : this.textEncoder.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[]): string {
    // The library refuses an empty list; an empty output is simply no text.
    return ids.length === 0 ? '' : this.tokenizer.decode([...ids], { skip_special_tokens: false });
  }

  /** What the grammar engine needs to build its token table. */
  grammarVocabulary(): GrammarVocabulary {
    return { tokens: this.tokens, vocabType: this.vocabType, stopTokenIds: this.stopTokenIds };
  }
}

/**
 * How the vocabulary spells bytes: byte-level (GPT-2, Llama 3, Qwen: a ByteLevel pre-tokenizer or decoder),
 * byte fallback (Llama 2, Gemma: SentencePiece BPE with <0x0A> tokens and ▁ for a space), or raw text.
 */
function tokenSpelling(parsed: TokenizerJson): GrammarVocabulary['vocabType'] {
  const decoders = (decoder: TokenizerJson['decoder']): string[] =>
    decoder
      ? [
          decoder.type ?? '',
          ...((decoder as { decoders?: TokenizerJson['decoder'][] }).decoders ?? []).flatMap(decoders),
        ]
      : [];
  const types = decoders(parsed.decoder);
  if (parsed.pre_tokenizer?.type === 'ByteLevel' || types.includes('ByteLevel')) return 'byte_level';
  if (parsed.model.byte_fallback === true || types.includes('ByteFallback')) return 'byte_fallback';
  return 'raw';
}

/** Refuses a draft/target pair whose tokenizers differ: their token ids would mean different text. */
export function checkSameTokenizer(
  draft: TextTokenizer,
  target: TextTokenizer,
  draftName: string,
  targetName: string,
): void {
  if (draft.fingerprint === target.fingerprint) return;
  const sizes =
    draft.vocabSize === target.vocabSize
      ? `both have ${draft.vocabSize} tokens but split text differently`
      : `${draft.vocabSize} against ${target.vocabSize} tokens`;
  throw new ModelLoadError(
    `${draftName} and ${targetName} use different tokenizers (${sizes}); speculative decoding needs one shared vocabulary`,
  );
}
