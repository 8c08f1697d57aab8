/** A run ends for a named reason: a full context is `context-full`, and a prompt that leaves no room is refused with the numbers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticLogits } from '../../src/core/modelPair';
import { PromptTooLongError, decode, stepWindow, validateDecodeOptions } from '../../src/engine/decode';
import type { DecodeOptions } from '../../src/engine/decodeOptions';
import { PrefixPairModels } from '../../src/engine/pairModels';
import { ajvValidator } from '../support/ajvValidator';
import { GrammarEngine, type CompiledSchema } from '../../src/grammar/engine';
import { JSON_STOP, JSON_VOCAB, decodeJson } from '../support/jsonVocab';

const logits = syntheticLogits({ V: JSON_VOCAB.length, seed: 3, closeness: 0.6, logitScale: 1.5 });

/** Synthetic models that see only `contextLength` positions. */
class ShortContextModels extends PrefixPairModels {
  constructor(override readonly contextLength: number) {
    super(logits);
  }
}

describe('endings', () => {
  let engine: GrammarEngine;
  let grammar: CompiledSchema;
  let small: CompiledSchema;
  const schema = { type: 'object', properties: { s: { type: 'string', minLength: 500 } }, required: ['s'] };
  const smallSchema = { type: 'object', properties: { s: { type: 'string' } } };
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: JSON_VOCAB, vocabType: 'raw', stopTokenIds: [JSON_STOP] });
    grammar = await engine.compile(JSON.stringify(schema));
    small = await engine.compile(JSON.stringify(smallSchema));
  });
  afterAll(() => {
    grammar.dispose();
    small.dispose();
    engine.dispose();
  });

  const options = (prompt: number[], overrides: Partial<DecodeOptions> = {}): DecodeOptions => ({
    method: 'spectr-gbv',
    K: 2,
    L: 4,
    sampling: { temperature: 1 },
    drafting: 'validate',
    seed: 1,
    maxTokens: 512,
    prompt,
    structure: { grammar, schema, validate: ajvValidator },
    detokenize: decodeJson,
    stopTokenId: JSON_STOP,
    ...overrides,
  });

  it('a 500-character minLength in a 64-position context ends context-full, and the verdict says so', async () => {
    const result = await decode(new ShortContextModels(64), options([JSON_STOP]));
    expect(result.ending).toBe('context-full');
    expect(result.tokens.length).toBeGreaterThan(0);
    expect(result.verdict).toMatchObject({
      kind: 'truncated',
      reason: expect.stringMatching(/^the models' context filled up mid-JSON/),
    });
  });

  it('a prompt that leaves no room for one step is refused with the numbers; one that leaves room runs', async () => {
    const context = 64;
    const window = stepWindow('spectr-gbv', 4);
    expect(window).toBe(5);
    const structure = { grammar: small, schema: smallSchema, validate: ajvValidator };
    const fits = new Array<number>(context - window).fill(JSON_STOP);
    expect(() => validateDecodeOptions(options(fits, { structure }), context)).not.toThrow();
    const result = await decode(new ShortContextModels(context), options(fits, { structure }));
    expect(result.tokens.length).toBeGreaterThan(0);
    const tooLong = [...fits, JSON_STOP];
    expect(() => validateDecodeOptions(options(tooLong, { structure }), context)).toThrow(
      new PromptTooLongError(
        'the prompt is 60 tokens and one step needs 5 more positions; the models see 64, so the prompt must be at most 59 tokens',
      ),
    );
    expect(() => validateDecodeOptions(options(tooLong, { method: 'ar', structure }), context)).not.toThrow();
  });

  it('a schema whose shortest valid output cannot fit beside the prompt is refused before the run, with the numbers', async () => {
    // {"s": "<500 characters>"}: 509 bytes, at most 9 bytes a token ("sentiment"), so at least 57 tokens and the stop token.
    expect(grammar.shortest).toEqual({ tokens: 58, bytes: 509, longestToken: 9 });
    expect(() => validateDecodeOptions(options(new Array<number>(6).fill(JSON_STOP)), 64)).not.toThrow();
    const refused =
      "the schema's shortest valid output needs at least 58 tokens (509 bytes at 9 bytes a token at most, and the stop token), and the prompt is 7: 65 > the models' context of 64";
    await expect(decode(new ShortContextModels(64), options(new Array<number>(7).fill(JSON_STOP)))).rejects.toThrow(
      new PromptTooLongError(refused),
    );
  });
});
