/**
 * A Hugging Face tokenizer.json behind the few calls the app needs, through @huggingface/tokenizers:
 * the same code path for the bundled tokenizer and a real model's.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import type { GrammarVocabulary } from '../grammar/vocabulary';
import { ModelLoadError } from './manifest';
import { ownValue } from '../contract/ownKeys';

interface TokenizerJson {
  model: { type?: string; vocab: Record<string, number>; merges?: unknown[] };
  added_tokens?: { id: number; content: string; special?: boolean }[];
  pre_tokenizer?: { type?: string } | null;
  decoder?: { type?: string } | null;
}

export class TextTokenizer {
  private constructor(
    private readonly tokenizer: Tokenizer,
    /** Token strings by id, as the vocabulary spells them (byte-level: Ġ for a space). */
    readonly tokens: readonly string[],
    readonly stopTokenId: number,
    readonly byteLevel: boolean,
    /** Identifies the vocabulary, merges and special tokens: equal iff two tokenizers split text alike. */
    readonly fingerprint: string,
    /** The special tokens' texts, which typed text may hold but must not become. */
    private readonly specials: readonly string[],
  ) {}

  /** `stop` is the stop token's text, or its id (a Hub config's eos_token_id). */
  static fromJson(json: unknown, source: string, stop: string | number): TextTokenizer {
    const parsed = json as TokenizerJson;
    if (typeof parsed.model !== 'object' || typeof parsed.model.vocab !== 'object') {
      throw new ModelLoadError(`${source}: not a Hugging Face tokenizer.json (no model.vocab)`);
    }
    const tokens: string[] = [];
    for (const [token, id] of Object.entries(parsed.model.vocab)) tokens[id] = token;
    for (const added of parsed.added_tokens ?? []) tokens[added.id] = added.content;
    const stopId =
      typeof stop === 'number'
        ? stop < tokens.length
          ? stop
          : undefined
        : ((parsed.added_tokens ?? []).find((token) => token.content === stop)?.id ??
          ownValue(parsed.model.vocab, stop));
    if (stopId === undefined)
      throw new ModelLoadError(
        `${source}: the tokenizer has no stop token ${JSON.stringify(stop)}, so generation could never end`,
      );
    const holes = tokens.findIndex((token) => typeof token !== 'string');
    if (holes !== -1 || tokens.length === 0)
      throw new ModelLoadError(`${source}: token ids are not contiguous (id ${holes} is missing)`);
    const byteLevel = parsed.pre_tokenizer?.type === 'ByteLevel' || parsed.decoder?.type === 'ByteLevel';
    const fingerprint = JSON.stringify([
      parsed.model.type,
      tokens,
      parsed.model.merges ?? [],
      parsed.pre_tokenizer ?? null,
    ]);
    const specials = (parsed.added_tokens ?? [])
      .filter((token) => token.special !== false && token.content.length > 1)
      .map((token) => token.content);
    return new TextTokenizer(new Tokenizer(json as object, {}), tokens, stopId, byteLevel, fingerprint, specials);
  }

  get vocabSize(): number {
    return this.tokens.length;
  }

  /**
   * Text as the user typed it: a special token's text in it (`<|endoftext|>` typed into a prompt) is encoded
   * as ordinary text, never as the special token itself, so a prompt cannot smuggle in the stop token.
   */
  encode(text: string): number[] {
    const ids: number[] = [];
    // Appended one id at a time: ids.push(...list) puts every id on the stack, and a 400 KB prompt overflowed it.
    const add = (part: string) => {
      if (part !== '') for (const id of this.tokenizer.encode(part, { add_special_tokens: false }).ids) ids.push(id);
    };
    let start = 0;
    for (let at = this.nextSpecial(text, 0); at !== null; at = this.nextSpecial(text, start)) {
      add(text.slice(start, at.index));
      // Its first character apart: what is left can no longer match the special token.
      add(at.special.slice(0, 1));
      add(at.special.slice(1));
      start = at.index + at.special.length;
    }
    add(text.slice(start));
    return ids;
  }

  /** The first special token's text in `text` at or after `from`. */
  private nextSpecial(text: string, from: number): { index: number; special: string } | null {
    let found: { index: number; special: string } | null = null;
    for (const special of this.specials) {
      const index = text.indexOf(special, from);
      if (index !== -1 && (found === null || index < found.index)) found = { index, special };
    }
    return found;
  }

  decode(ids: readonly number[]): string {
    // The library refuses an empty list; an empty output is simply no text.
    return ids.length === 0 ? '' : this.tokenizer.decode([...ids], { skip_special_tokens: false });
  }

  /** What the grammar engine needs to build its token table. */
  grammarVocabulary(): GrammarVocabulary {
    return { tokens: this.tokens, vocabType: this.byteLevel ? 'byte_level' : 'raw', stopTokenIds: [this.stopTokenId] };
  }
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
