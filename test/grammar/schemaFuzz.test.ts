/**
 * Schema-valid by construction, fuzzed: random schemas from the subset the app supports, decoded through the
 * real grammar engine and the real decode() by an adversary that picks uniformly among the allowed tokens at
 * T = 1, over a byte-level vocabulary that can spell raw control bytes and broken UTF-8. Every run that stops
 * by itself must be valid UTF-8, parse, and pass ajv. Seeded: a failure prints the seed and the schema.
 * CI runs SCHEMAS schemas × DECODES_PER_SCHEMA seeds (5,040 decodes): compiling a schema costs about as much as
 * three plain decodes and a speculative decode four, so each compiled schema is decoded by two speculative
 * methods (rotating, so each method runs on 168 schemas) and then plainly ('ar', the same mask) on ten more seeds.
 * SCHEMA_FUZZ_RUNS=<schemas> SCHEMA_FUZZ_SEED=<n> search deeper locally.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogitPair } from '../../src/core/modelPair';
import { DECODE_METHODS, type DecodeMethod } from '../../src/contract/runParams';
import { decode } from '../../src/engine/decode';
import { PrefixPairModels } from '../../src/engine/pairModels';
import { ajvValidator } from '../support/ajvValidator';
import { BYTE_TO_CHAR } from '../../src/grammar/byteGuard';
import { GrammarEngine } from '../../src/grammar/engine';

/**
 * A byte of each class the guard tells apart (every control byte, the JSON structure and escape letters, digits,
 * UTF-8 continuation bytes at their range edges, lead bytes of each length, bytes never allowed), then pieces
 * that cross the lexical boundaries: multi-byte characters whole and split, a control byte after a letter,
 * escapes. Fewer than half of the 256 bytes keep every decode cheap (the per-token work is over the vocabulary).
 */
const BYTES = [
  ...Array.from({ length: 0x20 }, (_, b) => b),
  ...new TextEncoder().encode(' "\\/,:{}[]-+.0123456789abcdefABDEFlmnrstux'),
  0x7f,
  0x80,
  0x8f,
  0x90,
  0x9f,
  0xa0,
  0xbf,
  ...new TextEncoder().encode('日本😀').filter((b) => b > 0xbf || ![0x80, 0x9f].includes(b)),
  0xc0,
  0xc1,
  0xc2,
  0xdf,
  0xe0,
  0xe6,
  0xed,
  0xef,
  0xf0,
  0xf4,
  0xf5,
  0xff,
];
const PIECES: number[][] = [
  ...BYTES.map((b) => [b]),
  ...[
    '{"',
    '":',
    '", "',
    '"}',
    ', "',
    'true',
    'false',
    'null',
    '\\u00',
    '\\n',
    '12',
    '-0.5',
    'e+',
    '日本',
    '😀',
    'ab',
    '"ab"',
  ].map((text) => [...new TextEncoder().encode(text)]),
  [0x61, 0x05],
  [0x22, 0x1f],
  [0xe6, 0x97],
  [0xa5, 0x22],
  [0xf0, 0x9f, 0x98],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0x80, 0x80],
];
const TOKENS = [...PIECES.map((bytes) => bytes.map((b) => BYTE_TO_CHAR[b]).join('')), '<|stop|>'];
const STOP = TOKENS.length - 1;
const V = TOKENS.length;

const bytesOf = (tokens: readonly number[]) => Uint8Array.from(tokens.flatMap((token) => PIECES[token] ?? []));
/** As a byte-level tokenizer decodes: broken UTF-8 turns into U+FFFD, silently. */
const detokenize = (tokens: readonly number[]) => new TextDecoder().decode(bytesOf(tokens));

/**
 * The adversary: a flat target (uniform over whatever the mask allows) and a drafter that disagrees with it
 * (random logits keyed on the last token), so rejections and bonus rows are exercised too.
 */
function adversary(seed: number): LogitPair {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const rows = new Map<number, Float64Array>();
  const row = (token: number) => {
    let logits = rows.get(token);
    if (!logits) rows.set(token, (logits = Float64Array.from({ length: V }, () => 3 * random())));
    return logits;
  };
  const flat = new Float64Array(V);
  return { V, target: () => flat, draft: (prefix) => row(prefix.at(-1) ?? 0) };
}

const SCHEMAS = Number(process.env.SCHEMA_FUZZ_RUNS ?? 420);
const DECODES_PER_SCHEMA = 12;
/** Without a tokenizer (the fuzz's vocabulary has none), ar+jump-forward has no forced text to score: it is ar. */
const FUZZED = DECODE_METHODS.filter((method) => method !== 'ar+jump-forward');
const SPECULATIVE = FUZZED.filter((method) => method !== 'ar');
/** The method of a schema's i-th decode: two speculative ones, then plain decoding. */
const methodOf = (schemaIndex: number, i: number) =>
  i < 2 ? (SPECULATIVE[(2 * schemaIndex + i) % SPECULATIVE.length] as DecodeMethod) : 'ar';

type Schema = Record<string, unknown>;
const stringSchema: fc.Arbitrary<Schema> = fc.record(
  { type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 3 }), maxLength: fc.integer({ min: 3, max: 6 }) },
  { requiredKeys: ['type', 'maxLength'] },
);
/** Enums whose values share prefixes ("1" and "12", "ab" and "ab\"") and mix types, as xgrammar's enum grammar got wrong. */
const enumSchema: fc.Arbitrary<Schema> = fc
  .uniqueArray(fc.constantFrom<unknown>(1, 12, -1, -12, 120, 0, 1.5, 'a', 'ab', 'ab"', '日本', '😀', true, null), {
    minLength: 1,
    maxLength: 5,
  })
  .map((values) => ({ enum: values }));
const bound = fc.option(fc.integer({ min: -130, max: 130 }), { nil: undefined });
/** Integer and number bounds, inclusive or exclusive, on either side; a range no value fits is not generated. */
const boundedSchema: fc.Arbitrary<Schema> = fc
  .record({
    type: fc.constantFrom('integer', 'number'),
    low: bound,
    high: bound,
    exclusive: fc.boolean(),
    scale: fc.constantFrom(1, 0.25),
  })
  .map(({ type, low, high, exclusive, scale }) => {
    const [a, b] = low !== undefined && high !== undefined && low > high ? [high, low] : [low, high];
    const schema: Schema = { type };
    if (a !== undefined) schema[exclusive ? 'exclusiveMinimum' : 'minimum'] = a * scale;
    if (b !== undefined) schema[exclusive ? 'exclusiveMaximum' : 'maximum'] = (b + (exclusive ? 2 : 0)) * scale;
    return schema;
  });
const leaf: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  enumSchema,
  boundedSchema,
  fc.constant({ type: 'integer' }),
  fc.constant({ type: 'number' }),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
);
const schemaArbitrary: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema; object: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('object'),
    fc.record({
      type: fc.constant('array'),
      items: tie('node'),
      minItems: fc.integer({ min: 0, max: 1 }),
      maxItems: fc.integer({ min: 1, max: 3 }),
    }),
  ),
  object: fc
    .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c', 'name', 'x"\\\u001f'), tie('node'), fc.boolean()), {
      minLength: 1,
      maxLength: 3,
      selector: ([name]) => name,
    })
    .map((entries) => ({
      type: 'object',
      properties: Object.fromEntries(entries.map(([name, child]) => [name, child])),
      required: entries.filter(([, , required]) => required).map(([name]) => name),
      additionalProperties: false,
    })),
})).object;

describe('schema-valid by construction, fuzzed', () => {
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: TOKENS, vocabType: 'byte_level', stopTokenIds: [STOP] });
  });
  afterAll(() => engine.dispose());

  it('every output that stops by itself is UTF-8, parses and passes ajv, for every method', async () => {
    let stopped = 0;
    let runs = 0;
    let schemas = 0;
    const methods = new Set<DecodeMethod>();
    await fc.assert(
      fc.asyncProperty(schemaArbitrary, fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (schema, seed) => {
        const grammar = await engine.compile(JSON.stringify(schema));
        const schemaIndex = schemas++;
        try {
          for (let i = 0; i < DECODES_PER_SCHEMA; i++) {
            const method = methodOf(schemaIndex, i);
            const runSeed = (seed + i) >>> 0;
            const result = await decode(new PrefixPairModels(adversary(runSeed)), {
              method,
              K: 2,
              L: 3,
              sampling: { temperature: 1 },
              drafting: runSeed % 2 === 0 ? 'validate' : 'constrained',
              seed: runSeed,
              maxTokens: 60,
              prompt: [STOP],
              structure: { grammar, schema, validate: ajvValidator },
              detokenize,
              stopTokenId: STOP,
            });
            runs++;
            methods.add(method);
            if (result.ending !== 'stopped') continue;
            stopped++;
            const label = `${method} seed ${runSeed}: ${JSON.stringify(schema)} → ${JSON.stringify(result.json)}`;
            const body = result.tokens.filter((token) => token !== STOP);
            expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytesOf(body)), label).not.toThrow();
            expect(result.verdict, label).toEqual({ kind: 'valid' });
          }
        } finally {
          grammar.dispose();
        }
      }),
      { seed: Number(process.env.SCHEMA_FUZZ_SEED ?? 25), numRuns: SCHEMAS },
    );
    expect(runs).toBe(SCHEMAS * DECODES_PER_SCHEMA);
    expect([...methods].sort()).toEqual([...FUZZED].sort());
    expect(stopped).toBeGreaterThan(runs / 2);
  });
});
