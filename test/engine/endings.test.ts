/** A run ends for a named reason: a full context is `context-full`, and a prompt that leaves no room is refused with the numbers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticLogits } from '../../src/core/modelPair';
import { PromptTooLongError, decode, stepWindow, validateDecodeOptions, type DecodeOptions } from '../../src/engine/decode';
import { PrefixPairModels } from '../../src/engine/pairModels';
import { ajvValidator } from '../../src/grammar/ajvValidator';
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
  const schema = { type: 'object', properties: { s: { type: 'string', minLength: 500 } }, required: ['s'] };
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: JSON_VOCAB, vocabType: 'raw', stopTokenIds: [JSON_STOP] });
    grammar = await engine.compile(JSON.stringify(schema));
  });
  afterAll(() => {
    grammar.dispose();
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
    expect(result.verdict).toMatchObject({ kind: 'truncated', reason: expect.stringMatching(/^the models' context filled up mid-JSON/) });
  });

  it('a prompt that leaves no room for one step is refused with the numbers; one that leaves room runs', async () => {
    const context = 64;
    const window = stepWindow('spectr-gbv', 4);
    expect(window).toBe(5);
    const fits = new Array<number>(context - window).fill(JSON_STOP);
    expect(() => validateDecodeOptions(options(fits), context)).not.toThrow();
    const result = await decode(new ShortContextModels(context), options(fits));
    expect(result.tokens.length).toBeGreaterThan(0);
    const tooLong = [...fits, JSON_STOP];
    expect(() => validateDecodeOptions(options(tooLong), context)).toThrow(
      new PromptTooLongError('the prompt is 60 tokens and one step needs 5 more positions; the models see 64, so the prompt must be at most 59 tokens'),
    );
    expect(() => validateDecodeOptions(options(tooLong, { method: 'ar' }), context)).not.toThrow();
  });
});
