import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedRatios, eligible } from '../../src/core/metrics';
import { syntheticLogits } from '../../src/core/modelPair';
import { decode } from '../../src/engine/decode';
import type { DecodeOptions } from '../../src/engine/decodeOptions';
import { PrefixPairModels, TREE_SCORING_OFF } from '../../src/engine/pairModels';
import type { StepRecord } from '../../src/contract/stepRecord';
import type { LogitPair } from '../../src/core/modelPair';
import { GrammarEngine, type CompiledSchema } from '../../src/grammar/engine';
import type { OutputVerdict } from '../../src/contract/runReport';
import { ajvValidator } from '../support/ajvValidator';
import { SCHEMA_PRESETS, type SchemaPreset } from '../../src/contract/presets';
import { JSON_STOP, JSON_VOCAB, TRIGGER_TOKEN, decodeJson, withTriggerAfter } from '../support/jsonVocab';

/** Tree nodes after the stop tokens: drafts that stopped early are padded with stop tokens, and identical paddings merge. */
function paddingNodes(record: StepRecord): number {
  const padded = new Set<string>();
  record.drafts.forEach((draft) => {
    for (let j = draft.length + 1; j <= 4; j++) padded.add(`${draft.join(',')}|${j}`);
  });
  return padded.size;
}

/** A one-token prompt: the synthetic logits key on the whole context. */
const PROMPT = [JSON_STOP];
const logits = syntheticLogits({ V: JSON_VOCAB.length, seed: 3, closeness: 0.6, logitScale: 1.5 });

describe('the decode loop under a schema, on the CPU with synthetic logits', () => {
  let engine: GrammarEngine;
  const compiled = new Map<string, CompiledSchema>();
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: JSON_VOCAB, vocabType: 'raw', stopTokenIds: [JSON_STOP] });
    for (const preset of SCHEMA_PRESETS) compiled.set(preset.id, await engine.compile(JSON.stringify(preset.schema)));
  });
  afterAll(() => {
    for (const grammar of compiled.values()) grammar.dispose();
    engine.dispose();
  });

  const run = (
    preset: SchemaPreset,
    overrides: Partial<DecodeOptions> & { logits?: LogitPair; trigger?: string; treeScoring?: boolean } = {},
    onStep?: (record: StepRecord) => void,
  ) => {
    const { logits: pair = logits, trigger, treeScoring, ...rest } = overrides;
    return decode(
      new PrefixPairModels(pair, treeScoring === undefined ? {} : { treeScoring }),
      {
        structure: {
          grammar: compiled.get(preset.id) as CompiledSchema,
          schema: preset.schema,
          validate: ajvValidator,
          ...(trigger === undefined ? {} : { trigger }),
        },
        prompt: PROMPT,
        detokenize: decodeJson,
        stopTokenId: JSON_STOP,
        method: 'spectr-gbv',
        K: 3,
        L: 4,
        sampling: { temperature: 1 },
        drafting: 'validate',
        seed: 1,
        maxTokens: 400,
        ...rest,
      },
      onStep,
    );
  };

  const preset = (id: SchemaPreset['id']) => SCHEMA_PRESETS.find((p) => p.id === id) as SchemaPreset;

  it.each(['sentiment', 'person', 'order', 'event'] as const)(
    '%s: every stopped output passes ajv, or fails only on a keyword xgrammar was said not to enforce',
    async (id) => {
      for (const seed of [1, 2, 3]) {
        const result = await run(preset(id), { seed });
        const verdict = result.verdict as OutputVerdict;
        const { counters } = result;
        expect(eligible(counters)).toBe(counters.raw - counters.invalidated);
        expect(counters.histogram.reduce((a, b) => a + b, 0)).toBe(counters.steps);
        if (verdict.kind === 'invalid') {
          const unenforced = (compiled.get(id) as CompiledSchema).unenforced.join(' ');
          expect(unenforced, `${result.json}: ${verdict.reason}`).toMatch(/maximum|minimum/);
        } else {
          expect(['valid', 'truncated'], `${result.json}`).toContain(verdict.kind);
        }
      }
    },
  );

  it('validate mode counts grammar-invalid draft tokens (I > 0); constrained mode reports I = 0', async () => {
    const validate = await run(preset('sentiment'), { drafting: 'validate' });
    const constrained = await run(preset('sentiment'), { drafting: 'constrained' });
    expect(validate.counters.invalidated).toBeGreaterThan(0);
    expect(constrained.counters.invalidated).toBe(0);
    expect(validate.verdict).toEqual({ kind: 'valid' });
    expect(constrained.verdict).toEqual({ kind: 'valid' });
    // Grammar survival is what the constraint buys the drafter.
    expect(derivedRatios(constrained.counters).grammarSurvival).toBe(1);
    expect(derivedRatios(validate.counters).grammarSurvival).toBeLessThan(1);
  });

  it.each(['tokenwise', 'gbv', 'spectr', 'spectr-gbv'] as const)(
    '%s emits schema-valid sentiment JSON',
    async (method) => {
      const result = await run(preset('sentiment'), { method });
      expect(result.verdict).toEqual({ kind: 'valid' });
      expect(JSON.parse(result.json)).toHaveProperty('sentiment');
    },
  );

  it('reasoning, then JSON: the constraint starts right after the trigger wherever it falls in a draft window', async () => {
    // With L = 4 the trigger lands before, inside, at the end of and after the first draft windows.
    for (let freeTokens = 0; freeTokens <= 9; freeTokens++) {
      const result = await run(preset('reasoning'), {
        logits: withTriggerAfter(logits, PROMPT.length + freeTokens),
        trigger: 'Answer: ',
      });
      expect(result.constraintStart).toBe(result.tokens.indexOf(TRIGGER_TOKEN) + 1);
      expect(result.tokens.indexOf(TRIGGER_TOKEN)).toBeGreaterThanOrEqual(freeTokens);
      expect(['valid', 'truncated'], JSON.stringify([result.json, result.verdict, result.tokens])).toContain(
        result.verdict?.kind,
      );
    }
  });

  it('a trigger that never appears is reported, not silently ignored', async () => {
    const result = await run(preset('reasoning'), { trigger: 'never in this vocabulary', maxTokens: 30 });
    expect(result.constraintStart).toBeNull();
    expect(result.verdict).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/trigger "never in this vocabulary" never appeared/),
    });
  });

  it('the synthetic target scores one row per distinct prefix on the tree path, the batched path says why it ran, and both decode the same tokens', async () => {
    for (const method of ['spectr-gbv', 'tokenwise', 'spectr'] as const) {
      const treeSteps: StepRecord[] = [];
      const batchedSteps: StepRecord[] = [];
      const tree = await run(preset('person'), { method }, (record) => void treeSteps.push(record));
      const batched = await run(
        preset('person'),
        { method, treeScoring: false },
        (record) => void batchedSteps.push(record),
      );
      expect(tree.tokens).toEqual(batched.tokens);
      treeSteps.forEach((record, i) => {
        // The root row, then one per distinct prefix of the K×L drafts (padding after a stop included).
        expect(record.scoring).toEqual({
          path: 'tree',
          positions: 1 + record.counts.distinctProposed + paddingNodes(record),
          batchedPositions: record.drafts.length * 5,
          reason: null,
        });
        expect(batchedSteps[i]?.scoring).toEqual({
          path: 'batched',
          positions: record.drafts.length * 5,
          batchedPositions: record.drafts.length * 5,
          reason: TREE_SCORING_OFF,
        });
      });
      expect(tree.scoring).toMatchObject({ treeSteps: tree.steps, batchedSteps: 0 });
      // Three drafts under a schema share their first tokens often; one draft has nothing to share.
      if (method === 'tokenwise') expect(tree.scoring.positions).toBe(batched.scoring.positions);
      else expect(tree.scoring.positions).toBeLessThan(batched.scoring.positions);
    }
  });

  it('the teaching analyses are computed only when asked, and decide nothing: the same steps, tokens and counters', async () => {
    for (const method of ['tokenwise', 'spectr-gbv', 'optimal-tree'] as const) {
      const plainSteps: StepRecord[] = [];
      const analysedSteps: StepRecord[] = [];
      const plain = await run(preset('person'), { method, seed: 4 }, (record) => void plainSteps.push(record));
      const analysed = await run(
        preset('person'),
        { method, seed: 4, analyses: true },
        (record) => void analysedSteps.push(record),
      );
      expect(analysed.tokens).toEqual(plain.tokens);
      expect(analysed.counters).toEqual(plain.counters);
      // Everything the step decided, without what observed or timed it.
      const decided = (step: StepRecord) => ({
        ...step,
        finalLaw: undefined,
        lengthLaw: undefined,
        firstPosition: undefined,
        decisions: undefined,
        timings: undefined,
      });
      expect(analysedSteps.map(decided)).toEqual(plainSteps.map(decided));
      // Left out, nothing is computed or timed; asked for, every step has its laws.
      expect(plainSteps.every((step) => step.lengthLaw === null && step.decisions === null)).toBe(true);
      expect(plain.timings.analysis).toBe(0);
      expect(analysedSteps.every((step) => step.lengthLaw !== null && step.decisions !== null)).toBe(true);
      expect(analysed.timings.analysis).toBeGreaterThan(0);
    }
  });

  it('a run cut at max tokens mid-JSON is scored as truncated', async () => {
    const result = await run(preset('order'), { maxTokens: 6 });
    expect(result.verdict?.kind).toBe('truncated');
  });
});
