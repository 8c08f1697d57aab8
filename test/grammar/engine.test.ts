import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokenAllowed } from '../../src/core/sampling';
import { GrammarEngine, GrammarSetupError, type SchemaMatcher } from '../../src/grammar/engine';
import { SchemaError } from '../../src/grammar/schema';
import { gpt2Vocabulary } from '../support/gpt2Vocab';
import { SMALL_VOCAB, STOP } from '../support/smallVocab';

const allowedTokens = (mask: Int32Array) => SMALL_VOCAB.map((_, j) => j).filter((j) => isTokenAllowed(mask, j));

/**
 * Walks every reachable grammar state depth-first and compares xgrammar's mask with an independent
 * check: a token is allowed iff the output plus the token is a prefix of a valid output (or it is the stop
 * token and the output is complete).
 */
async function bruteForce(matcher: SchemaMatcher, outputs: string[], prefix = '', depth = 0): Promise<number> {
  const mask = await matcher.mask();
  const expected = SMALL_VOCAB.map((_, j) => j).filter((j) =>
    j === STOP ? outputs.includes(prefix) : outputs.some((output) => output.startsWith(prefix + SMALL_VOCAB[j])),
  );
  expect(allowedTokens(mask), `after ${JSON.stringify(prefix)}`).toEqual(expected);
  let states = 1;
  if (depth === 12) return states;
  for (const token of expected) {
    if (token === STOP) continue;
    expect(matcher.accept(token)).toBe(true);
    states += await bruteForce(matcher, outputs, prefix + SMALL_VOCAB[token], depth + 1);
    matcher.rollBack(1);
  }
  return states;
}

describe('GrammarEngine on a small raw vocabulary', () => {
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: SMALL_VOCAB, vocabType: 'raw', stopTokenIds: [STOP] });
  });
  afterAll(() => engine.dispose());

  it.each([
    [{ enum: ['positive', 'negative', 'neutral'] }, ['"positive"', '"negative"', '"neutral"']],
    [{ type: 'boolean' }, ['true', 'false']],
  ])('masks match a brute-force prefix check at every reachable state: %j', async (schema, outputs) => {
    const compiled = await engine.compile(JSON.stringify(schema));
    const matcher = await compiled.matcher();
    expect(await bruteForce(matcher, outputs)).toBeGreaterThan(5);
    matcher.dispose();
    compiled.dispose();
  });

  it('rolling back restores the state exactly', async () => {
    const compiled = await engine.compile('{"enum": ["positive", "negative"]}');
    const matcher = await compiled.matcher();
    const before = await matcher.mask();
    for (const token of [0, 15, 16]) expect(matcher.accept(token)).toBe(true);
    const deeper = await matcher.mask();
    matcher.rollBack(2);
    matcher.accept(15);
    matcher.accept(16);
    expect(await matcher.mask()).toEqual(deeper);
    matcher.rollBack(3);
    expect(await matcher.mask()).toEqual(before);
    matcher.dispose();
    compiled.dispose();
  });

  it('refuses a token the grammar forbids without moving', async () => {
    const compiled = await engine.compile('{"enum": ["positive"]}');
    const matcher = await compiled.matcher();
    const before = await matcher.mask();
    expect(matcher.accept(23)).toBe(false);
    expect(await matcher.mask()).toEqual(before);
    matcher.dispose();
    compiled.dispose();
  });

  describe('bad input gets a clear message', () => {
    it('a schema that is not JSON, with line and column', async () => {
      await expect(engine.compile('{\n  "type": "object",\n  oops\n}')).rejects.toThrow(
        /not JSON \(line 3, column 3\)/,
      );
    });
    it('an unknown type', async () => {
      await expect(engine.compile('{"type": "nope"}')).rejects.toThrow(/\$: unknown type "nope"/);
    });
    it('an empty enum', async () => {
      await expect(engine.compile('{"type": "object", "properties": {"a": {"enum": []}}}')).rejects.toThrow(
        /\$\.properties\.a: enum must list at least one value/,
      );
    });
    it('a $ref to nothing, named before xgrammar sees it (its own message shows its internals)', async () => {
      const error = await engine.compile('{"$ref": "#/$defs/missing"}').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as Error).message).toBe('$: $ref "#/$defs/missing" points at nothing in the schema');
      // The engine still works after a refusal.
      const compiled = await engine.compile('{"type": "boolean"}');
      compiled.dispose();
    });
    it('keywords xgrammar does not enforce are listed by name; bounds with an exact rule are not', async () => {
      const compiled = await engine.compile(
        JSON.stringify({
          type: 'object',
          properties: {
            tags: { type: 'array', uniqueItems: true },
            age: { type: 'integer', maximum: 120 },
            delta: { type: ['integer', 'null'], minimum: -5 },
            score: { type: 'number', minimum: 0 },
            site: { type: 'string', format: 'uri' },
          },
        }),
      );
      expect(compiled.unenforced).toEqual([
        '$.properties.tags: uniqueItems (ignored by xgrammar)',
        '$.properties.delta: minimum (not enforced by the mask)',
        '$.properties.site: format "uri" (not enforced by xgrammar)',
      ]);
      compiled.dispose();
    });
  });
});

describe('GrammarEngine setup', () => {
  it('refuses a tokenizer with no stop token', async () => {
    await expect(
      GrammarEngine.create({ tokens: SMALL_VOCAB, vocabType: 'raw', stopTokenIds: [] }),
    ).rejects.toBeInstanceOf(GrammarSetupError);
    await expect(GrammarEngine.create({ tokens: SMALL_VOCAB, vocabType: 'raw', stopTokenIds: [] })).rejects.toThrow(
      /no stop token/,
    );
  });

  it("works for GPT-2's 50,257-token byte-level vocabulary", async () => {
    const { tokens, stopTokenIds } = gpt2Vocabulary();
    expect(tokens).toHaveLength(50_257);
    const engine = await GrammarEngine.create({ tokens, vocabType: 'byte_level', stopTokenIds });
    const compiled = await engine.compile(
      '{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}',
    );
    const matcher = await compiled.matcher();
    const start = await matcher.mask();
    expect(isTokenAllowed(start, tokens.indexOf('{'))).toBe(true);
    expect(isTokenAllowed(start, tokens.indexOf('hello'))).toBe(false);
    matcher.dispose();
    compiled.dispose();
    engine.dispose();
  });
});
