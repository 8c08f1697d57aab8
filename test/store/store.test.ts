import { describe, expect, it } from 'vitest';
import { zeroTimings, type StepRecord } from '../../src/contract/stepRecord';
import type { ToWorker } from '../../src/contract/protocol';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { decodeShare, encodeShare } from '../../src/store/shareUrl';
import { DEFAULT_DRAFTER } from '../../src/core/draftLaw';
import { createSpecStore } from '../../src/store/store';
import { presetParams } from '../../src/contract/runParams';
import { WASM_ENGINE_INFO } from '../support/engineInfo';

function storeWithOutbox() {
  const sent: ToWorker[] = [];
  return { store: createSpecStore({ post: (message) => sent.push(message), restart: () => undefined }), sent };
}

const step = (index: number, accepted: number, invalidated: number): StepRecord => ({
  index,
  drafts: [[1, 2, 3, 4]],
  draftProbs: [[0.5, 0.5, 0.5, 0.5]],
  targetProbs: [[0.5, 0.5, 0.5, 0.5]],
  draftLengths: [4],
  draftSources: [['model', 'model', 'model', 'model']],
  validLengths: [4 - invalidated],
  chosen: 0,
  accepted,
  emitted: [{ token: 9, origin: 'correction', targetProb: 0.2 }],
  scoring: { path: 'tree', positions: 5, batchedPositions: 5, reason: null },
  verifiedOn: 'cpu',
  finalLaw: null,
  lengthLaw: null,
  firstPosition: null,
  trace: null,
  decisions: null,
  counts: { proposed: 4, invalidated, distinctProposed: 4, distinctEligible: 4 - invalidated, accepted },
  timings: zeroTimings(),
});

describe('the app store', () => {
  it('sends a run to the engine only once it is ready, and folds step batches into consistent counters', () => {
    const { store, sent } = storeWithOutbox();
    store.getState().start();
    expect(sent).toEqual([]);
    store.getState().receive({
      type: 'ready',
      info: WASM_ENGINE_INFO,
    });
    store.getState().start();
    const run = sent.find((message) => message.type === 'run');
    expect(run).toMatchObject({ type: 'run', paused: false });
    const runId = (run as Extract<ToWorker, { type: 'run' }>).runId;
    // The first step sent ahead is for the token stream alone: no step, no counter yet; another run's is ignored.
    store.getState().receive({ type: 'first-step', runId: runId + 99, record: step(0, 4, 0) });
    expect(store.getState().run.firstStep).toBeNull();
    store.getState().receive({ type: 'first-step', runId, record: step(0, 2, 0) });
    expect(store.getState().run).toMatchObject({ steps: [], firstStep: { index: 0 }, counters: { steps: 0 } });
    store.getState().receive({ type: 'steps', runId, records: [step(0, 2, 0), step(1, 0, 3)] });
    store.getState().receive({ type: 'steps', runId: runId + 99, records: [step(0, 4, 0)] });
    const { counters, steps } = store.getState().run;
    expect(steps).toHaveLength(2);
    expect(counters).toMatchObject({ raw: 8, invalidated: 3, accepted: 2, steps: 2 });
    expect(counters.histogram.reduce((a, b) => a + b, 0)).toBe(counters.steps);
  });

  it('pauses, steps and resumes through the engine, and a preset fills prompt, schema and trigger', () => {
    const { store, sent } = storeWithOutbox();
    store.getState().receive({
      type: 'ready',
      info: WASM_ENGINE_INFO,
    });
    store.getState().step();
    expect(store.getState().run.status).toBe('paused');
    store.getState().step();
    store.getState().togglePause();
    expect(sent.map((message) => message.type)).toEqual(['run', 'step', 'resume']);
    const reasoning = SCHEMA_PRESETS.find((preset) => preset.id === 'reasoning');
    store.getState().choosePreset('reasoning');
    expect(store.getState().params).toMatchObject({ prompt: reasoning?.prompt, trigger: 'Answer: ' });
    store.getState().choosePreset('person');
    expect(store.getState().params.trigger).toBeUndefined();
  });

  it('drafts with the schema by default, switches to the model alone, and reads a link without a drafter as the model alone', () => {
    const { store, sent } = storeWithOutbox();
    expect(DEFAULT_DRAFTER).toBe('model+grammar');
    expect(store.getState().params.drafter).toBe(DEFAULT_DRAFTER);
    store.getState().receive({
      type: 'ready',
      info: WASM_ENGINE_INFO,
    });
    store.getState().start();
    store.getState().setParams({ drafter: 'model' });
    store.getState().start();
    const drafters = sent.flatMap((message) => (message.type === 'run' ? [message.params.drafter] : []));
    expect(drafters).toEqual(['model+grammar', 'model']);
    const oldLink = encodeShare({
      params: presetParams(SCHEMA_PRESETS[1] as (typeof SCHEMA_PRESETS)[number]),
      preset: 'person',
    });
    store.getState().setParams({ drafter: DEFAULT_DRAFTER });
    const decoded = decodeShare(oldLink, store.getState().params);
    if (!decoded) throw new Error('the link did not decode');
    store.getState().applyShared(decoded);
    expect(store.getState().params.drafter).toBeUndefined();
  });
});

describe('share links', () => {
  it('round-trip every parameter, for a preset and for a custom schema', () => {
    const preset = SCHEMA_PRESETS[3] as (typeof SCHEMA_PRESETS)[number];
    const params = {
      method: 'gbv',
      K: 1,
      L: 6,
      temperature: 0.7,
      topP: 0.9,
      seed: 42,
      maxTokens: 50,
      drafting: 'constrained',
      prompt: 'Text: a & b = c?\nJSON: ',
      schemaText: JSON.stringify(preset.schema),
    } as const;
    const fallback = presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number]);
    expect(decodeShare(encodeShare({ params, preset: preset.id }), fallback)).toEqual({
      params,
      preset: preset.id,
      errors: {},
      text: {},
    });
    const custom = {
      ...params,
      schemaText: '{"type": "object", "properties": {"x": {"enum": ["#", "&"]}}}',
      trigger: 'Answer: ',
    };
    expect(decodeShare(encodeShare({ params: custom, preset: 'custom' }), fallback)).toEqual({
      params: custom,
      preset: 'custom',
      errors: {},
      text: {},
    });
    const drafted = { ...params, drafter: 'model+grammar+lookup' } as const;
    expect(decodeShare(encodeShare({ params: drafted, preset: preset.id }), fallback)).toEqual({
      params: drafted,
      preset: preset.id,
      errors: {},
      text: {},
    });
    // A link without a drafter (every link made before drafters) drafts from the model alone, whatever the page's default.
    expect(
      decodeShare(encodeShare({ params, preset: preset.id }), { ...fallback, drafter: 'model+grammar' })?.params
        .drafter,
    ).toBeUndefined();
  });

  it('fill a short link from its preset (the reveal.js example in docs/presenting.md), and one without a preset from the fallback', () => {
    const fallback = presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number], {
      maxTokens: 33,
      temperature: 0.5,
    });
    const event = SCHEMA_PRESETS.find((preset) => preset.id === 'event') as (typeof SCHEMA_PRESETS)[number];
    const short = decodeShare('#run?preset=event&method=spectr-gbv&K=4&L=4&seed=3', fallback);
    expect(short?.errors).toEqual({});
    expect(short?.preset).toBe('event');
    expect(short?.params).toEqual({
      ...presetParams(event, { method: 'spectr-gbv', K: 4, L: 4, seed: 3 }),
      schemaText: JSON.stringify(event.schema),
    });
    const reasoning = SCHEMA_PRESETS.find((preset) => preset.id === 'reasoning') as (typeof SCHEMA_PRESETS)[number];
    expect(decodeShare('#run?preset=reasoning', fallback)?.params).toMatchObject({
      prompt: reasoning.prompt,
      trigger: reasoning.trigger,
    });
    const bare = decodeShare('#run?seed=9', fallback);
    expect(bare?.errors).toEqual({});
    expect(bare?.params).toMatchObject({ seed: 9, maxTokens: 33, temperature: 0.5, prompt: fallback.prompt });
  });

  it('report a broken link by field, never throwing', () => {
    const fallback = presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number]);
    expect(decodeShare('#elsewhere', fallback)).toBeNull();
    expect(decodeShare('#run?method=fastest&K=1', fallback)?.errors.method).toMatch(/unknown method "fastest"/);
    const bad = decodeShare('#run?method=gbv&K=x&L=1&t=1&seed=1&max=1&drafting=validate&preset=person', fallback);
    expect(bad?.errors.K).toMatch(/K drafts must be an integer from 1 to 8; got "x"/);
    expect(bad?.text.K).toBe('x');
    expect(bad?.params.K).toBe(fallback.K);
    expect(
      decodeShare('#run?method=gbv&K=1&L=1&t=1&seed=1&max=1&drafting=validate&drafter=oracle&preset=person', fallback)
        ?.errors.drafter,
    ).toMatch(/drafter must be one of model, model\+grammar/);
  });
});
