/**
 * The free drafters in the decode loop (src/core/draftLaw.ts): the schema's forced text and prompt lookup
 * beside the draft model. Their losslessness is proved in test/core/draftLaw.test.ts (exact enumeration)
 * and test/engine/lossless.test.ts (χ² through decode); here, that they draft, are counted by source, and
 * save draft-model calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DRAFTER_IDS,
  DRAFT_SOURCES,
  drafterSources,
  sampledSource,
  samplesNothing,
  usesHead,
  type DrafterId,
} from '../../src/core/draftLaw';
import { syntheticHead } from '../../src/core/draftHead';
import { syntheticLogits } from '../../src/core/modelPair';
import { decode } from '../../src/engine/decode';
import { PrefixPairModels } from '../../src/engine/pairModels';
import type { StepRecord } from '../../src/contract/stepRecord';
import { GrammarEngine, type CompiledSchema } from '../../src/grammar/engine';
import { ajvValidator } from '../support/ajvValidator';
import { SCHEMA_PRESETS, type SchemaPreset } from '../../src/contract/presets';
import type { DraftingMode } from '../../src/contract/runParams';
import { JSON_STOP, JSON_VOCAB, decodeJson, tokenizeJson } from '../support/jsonVocab';

const logits = syntheticLogits({ V: JSON_VOCAB.length, seed: 3, closeness: 0.6, logitScale: 1.5 });
const PROMPT = [JSON_STOP];
/** The head drafters read the target's feature at the prompt's second-to-last position: a prompt of two. */
const HEAD_PROMPT = [JSON_STOP, JSON_STOP];
const head = syntheticHead({ V: JSON_VOCAB.length, width: 8, seed: 3 });
/** A prompt the copy drafters copy from (the raw vocabulary spells no capitals): "name" and "age" point to values. */
const COPY_PROMPT = tokenizeJson('name: ada lovelace, age 36, a member.\n');

/** The synthetic pair, counting the drafter's forwards. */
class CountingModels extends PrefixPairModels {
  draftCalls = 0;
  override draftFirst(context: readonly number[]) {
    this.draftCalls++;
    return super.draftFirst(context);
  }
  override draftNext(latest: Int32Array) {
    this.draftCalls++;
    return super.draftNext(latest);
  }
}

describe('free drafters in the decode loop', () => {
  let engine: GrammarEngine;
  const compiled = new Map<string, CompiledSchema>();
  const preset = (id: SchemaPreset['id']) => SCHEMA_PRESETS.find((p) => p.id === id) as SchemaPreset;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: JSON_VOCAB, vocabType: 'raw', stopTokenIds: [JSON_STOP] });
    for (const id of ['person', 'order'] as const)
      compiled.set(id, await engine.compile(JSON.stringify(preset(id).schema)));
  });
  afterAll(() => {
    for (const grammar of compiled.values()) grammar.dispose();
    engine.dispose();
  });

  async function run(
    id: 'person' | 'order',
    drafter: DrafterId,
    method: 'ar' | 'ar+jump-forward' | 'tokenwise' | 'spectr-gbv',
    seed: number,
    drafting: DraftingMode = 'validate',
    temperature = 1,
  ) {
    const models = usesHead(drafter) ? new CountingModels(logits, { head }) : new CountingModels(logits);
    const steps: StepRecord[] = [];
    const result = await decode(
      models,
      {
        structure: { grammar: compiled.get(id) as CompiledSchema, schema: preset(id).schema, validate: ajvValidator },
        prompt: usesHead(drafter) ? HEAD_PROMPT : drafterSources(drafter).copy ? COPY_PROMPT : PROMPT,
        detokenize: decodeJson,
        tokenize: tokenizeJson,
        drafter,
        stopTokenId: JSON_STOP,
        method,
        K: method === 'tokenwise' ? 1 : 3,
        L: 4,
        sampling: { temperature },
        drafting,
        seed,
        maxTokens: 200,
      },
      (record) => void steps.push(record),
    );
    return { result, steps, draftCalls: models.draftCalls };
  }

  it.each(DRAFTER_IDS)(
    '%s: valid JSON, every drafted token has a source, the sources sum to R, I and A',
    async (drafter) => {
      const { grammar, copy, lookup } = drafterSources(drafter);
      for (const method of ['tokenwise', 'spectr-gbv'] as const) {
        const { result, steps } = await run('person', drafter, method, 2);
        expect(['valid', 'truncated'], result.json).toContain(result.verdict?.kind);
        const { bySource, raw, invalidated, accepted } = result.counters;
        const total = (field: 'drafted' | 'invalidated' | 'accepted') =>
          DRAFT_SOURCES.reduce((sum, source) => sum + bySource[source][field], 0);
        expect([total('drafted'), total('invalidated'), total('accepted')]).toEqual([raw, invalidated, accepted]);
        for (const step of steps) expect(step.draftSources.map((each) => each.length)).toEqual(step.draftLengths);
        expect(bySource.grammar.drafted > 0, 'grammar drafted').toBe(grammar);
        expect(bySource.copy.drafted > 0, 'copied').toBe(copy);
        if (!lookup) expect(bySource.lookup.drafted).toBe(0);
        // The sampled tokens are the draft model's or the head's, never both; the copy drafter samples none.
        expect(bySource[sampledSource(drafter)].drafted > 0, 'sampled').toBe(!samplesNothing(drafter));
        expect(bySource[sampledSource(drafter) === 'head' ? 'model' : 'head'].drafted).toBe(0);
        if (grammar) expect(bySource.grammar.accepted).toBeGreaterThan(0);
      }
    },
  );

  it('a forced token is certain under the masked target: every grammar draft the grammar allows is accepted unless the draft already broke off', async () => {
    const { result } = await run('order', 'model+grammar', 'tokenwise', 3);
    const { grammar } = result.counters.bySource;
    expect(grammar.drafted).toBeGreaterThan(10);
    expect(grammar.accepted / (grammar.drafted - grammar.invalidated)).toBeGreaterThan(0.5);
  });

  it('steps drafted from the schema alone make fewer draft-model calls, and fewer steps', async () => {
    const plain = await run('order', 'model', 'tokenwise', 4);
    const free = await run('order', 'model+grammar', 'tokenwise', 4);
    expect(free.draftCalls / free.result.tokens.length).toBeLessThan(plain.draftCalls / plain.result.tokens.length);
    expect(free.result.steps / free.result.tokens.length).toBeLessThan(plain.result.steps / plain.result.tokens.length);
  });

  it('head+grammar: forced tokens from the schema, the rest from the head, fewer head calls than the head alone', async () => {
    const alone = await run('order', 'head', 'tokenwise', 4);
    const withSchema = await run('order', 'head+grammar', 'tokenwise', 4);
    expect(withSchema.result.counters.bySource.grammar.accepted).toBeGreaterThan(0);
    expect(withSchema.result.counters.bySource.head.drafted).toBeGreaterThan(0);
    expect(withSchema.draftCalls / withSchema.result.tokens.length).toBeLessThan(
      alone.draftCalls / alone.result.tokens.length,
    );
  });

  it('copy: the schema’s forced text and the prompt’s values, never the draft model; where neither proposes, one target token', async () => {
    for (const method of ['tokenwise', 'spectr-gbv'] as const) {
      const { result, steps, draftCalls } = await run('person', 'copy', method, 6);
      expect(['valid', 'truncated'], result.json).toContain(result.verdict?.kind);
      expect(draftCalls, method).toBe(0);
      const { copy, grammar, model } = result.counters.bySource;
      expect([copy.drafted > 0, grammar.accepted > 0, model.drafted], method).toEqual([true, true, 0]);
      // Steps with nothing to copy or force are ar's: one target token, no drafts.
      expect(steps.some((step) => step.drafts.length === 0 && step.emitted.length === 1)).toBe(true);
      // A step's drafts are the free span alone, the same in every draft.
      for (const step of steps) for (const draft of step.drafts) expect(draft).toEqual(step.drafts[0]);
    }
  });

  it('model+grammar+copy copies “ada lovelace” at the name’s first character, after the schema’s {"name": "', async () => {
    const { steps } = await run('person', 'model+grammar+copy', 'tokenwise', 7);
    const first = steps.find((step) => step.draftSources[0]?.includes('copy')) as StepRecord;
    const sources = first.draftSources[0] ?? [];
    const copied = (first.drafts[0] ?? []).filter((_, j) => sources[j] === 'copy');
    expect(sources.slice(0, sources.indexOf('copy')).every((source) => source === 'grammar')).toBe(true);
    expect(decodeJson(copied)).toBe('ada lovelace'.slice(0, copied.length));
    expect(copied.length).toBeGreaterThan(0);
  });

  it('constrained drafting takes the free sources too', async () => {
    const { result } = await run('person', 'model+grammar+lookup', 'spectr-gbv', 5, 'constrained');
    expect(['valid', 'truncated'], result.json).toContain(result.verdict?.kind);
    expect(result.counters.bySource.grammar.drafted).toBeGreaterThan(0);
  });

  it('ar+jump-forward at T = 0 writes ar’s tokens bit for bit, in fewer target forwards and without the draft model', async () => {
    for (const [id, seed] of [
      ['person', 1],
      ['order', 2],
    ] as const) {
      const ar = await run(id, 'model', 'ar', seed, 'validate', 0);
      const jump = await run(id, 'model', 'ar+jump-forward', seed, 'validate', 0);
      expect(jump.result.tokens, id).toEqual(ar.result.tokens);
      expect(jump.result.steps, id).toBeLessThan(ar.result.steps);
      expect([ar.draftCalls, jump.draftCalls], id).toEqual([0, 0]);
      // Its scored steps draft the forced text alone, with q = 1.
      expect(
        jump.steps.flatMap((step) => step.draftSources.flat()).every((source) => source === 'grammar'),
        id,
      ).toBe(true);
    }
  });
});
