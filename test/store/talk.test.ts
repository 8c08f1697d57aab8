import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUNDLED_FLOAT_PAIR } from '../../src/contract/modelPairs';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { decodeShare, encodeShare } from '../../src/store/shareUrl';
import type { FromWorker, ToWorker } from '../../src/contract/protocol';
import type { RunReport } from '../../src/contract/runReport';
import type { StepRecord } from '../../src/contract/stepRecord';
import { TALK_LIMITS } from '../../src/contract/limits';
import { createSpecStore } from '../../src/store/store';
import { parseTalk, sceneJson, talkJson, TALK_FORMAT } from '../../src/store/talk';
import { parseEmbed } from '../../src/ui/embed';
import { WASM_ENGINE_INFO } from '../support/engineInfo';

const talk = (scenes: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ format: TALK_FORMAT, version: 1, title: 'T', scenes, ...extra });
const error = (source: string) => {
  const parsed = parseTalk(source);
  return 'error' in parsed ? parsed.error : null;
};
const READY: FromWorker = {
  type: 'ready',
  info: WASM_ENGINE_INFO,
};

describe('talk files', () => {
  it('reads scenes with the share link keys, filling what a scene leaves out from its preset', () => {
    const parsed = parseTalk(
      talk([
        {
          caption: 'GBV, two steps',
          run: { preset: 'person', method: 'gbv', K: 2, seed: 7 },
          stop: 2,
          view: 'inspector',
        },
        { run: { method: 'ar' }, stop: 'race', pair: 'bundled-float32', provider: 'wasm', presentation: false },
      ]),
    );
    if (!('talk' in parsed)) throw new Error(parsed.error);
    const [first, second] = parsed.talk.scenes;
    expect(first).toMatchObject({
      caption: 'GBV, two steps',
      stop: [2],
      view: 'inspector',
      pair: 'bundled',
      provider: 'auto',
      presentation: true,
      run: { preset: 'person', params: { method: 'gbv', K: 2, seed: 7, L: 4 } },
    });
    expect(first?.run.params.schemaText).toContain('"name"');
    expect(second).toMatchObject({
      caption: '',
      stop: 'race',
      view: 'output',
      pair: 'bundled-float32',
      provider: 'wasm',
      presentation: false,
      run: { params: { method: 'ar' } },
    });
  });

  it('answers each kind of mistake with one message naming the scene and the field', () => {
    expect(error('{')).toMatch(/^This talk file cannot be used: it is not JSON/);
    expect(error('{"scenes": []}')).toContain(`"format": "${TALK_FORMAT}"`);
    expect(error(talk([{}], { version: 2 }))).toContain('"version" must be 1 (this file says 2)');
    expect(error(talk([]))).toContain('"scenes" must be a non-empty list');
    expect(error(talk([{}, { run: { K: 99 } }]))).toMatch(/scene 2: the run's K: .*1.*8/);
    expect(error(talk([{ run: { preset: 'nope' } }]))).toContain('scene 1: the run names an unknown preset "nope"');
    expect(error(talk([{ run: { colour: 'red' } }]))).toContain('scene 1: "run" has an unknown key "colour"');
    expect(error(talk([{ view: 'everything' }]))).toContain('scene 1: "view" must be one of output, counters');
    expect(error(talk([{ pair: 'https://evil.example/' }]))).toContain(
      '"pair" must be one of bundled, bundled-float32',
    );
    expect(error(talk([{ stop: 0 }]))).toContain(
      '"stop" must be "end", "race", a whole number of steps from 1 to 512, or a rising list',
    );
    expect(error(talk([{ stop: [3, 2] }]))).toContain('a rising list');
    expect(error(talk([{ caption: 'x'.repeat(TALK_LIMITS.captionChars + 1) }]))).toContain(
      `at most ${TALK_LIMITS.captionChars}`,
    );
    expect(error(talk([{ script: '<img onerror=alert(1)>' }]))).toContain('unknown key "script"');
  });

  it('writes a scene that reads back as the same run ("Add to talk")', () => {
    const parsed = parseTalk(
      talk([{ run: { preset: 'order', method: 'spectr-gbv', K: 4, L: 3, t: 0.7, seed: 11 }, stop: 3, view: 'tree' }]),
    );
    if (!('talk' in parsed)) throw new Error(parsed.error);
    const scene = parsed.talk.scenes[0];
    if (!scene) throw new Error('no scene');
    const again = parseTalk(talkJson('again', [sceneJson(scene)]));
    if (!('talk' in again)) throw new Error(again.error);
    expect(again.talk.scenes[0]).toEqual(scene);
  });

  it('ships an example talk that parses', () => {
    const parsed = parseTalk(readFileSync('public/talks/introduction.json', 'utf8'));
    expect('talk' in parsed && parsed.talk.scenes.length).toBeGreaterThanOrEqual(7);
  });

  it('drives the store: a scene stops at its first step count, "next" steps on to the next count then moves to the next scene, "back" reruns back', () => {
    const sent: ToWorker[] = [];
    const store = createSpecStore({ post: (message) => sent.push(message), restart: () => undefined });
    store.getState().receive(READY);
    store.getState().openTalk(
      talk([
        { caption: 'one', run: { seed: 3 }, stop: [2, 3] },
        { caption: 'two', run: { method: 'ar', seed: 3 } },
      ]),
    );
    expect(store.getState().talk?.scene).toBe(0);
    const run = sent.find((message) => message.type === 'run') as Extract<ToWorker, { type: 'run' }>;
    expect(run).toMatchObject({ paused: true, params: { seed: 3 } });
    const fakeStep = {
      counts: { proposed: 0, invalidated: 0, distinctProposed: 0, distinctEligible: 0, accepted: 0 },
    } as unknown as StepRecord;
    store.getState().receive({ type: 'steps', runId: run.runId, records: [fakeStep] });
    store.getState().receive({ type: 'paused', runId: run.runId, paused: true });
    expect(sent.filter((message) => message.type === 'step')).toHaveLength(1);
    store.getState().receive({ type: 'steps', runId: run.runId, records: [fakeStep] });
    store.getState().receive({ type: 'paused', runId: run.runId, paused: true });
    expect(sent.filter((message) => message.type === 'step')).toHaveLength(1);
    store.getState().talkNext();
    expect(store.getState().talk).toMatchObject({ stop: 1, stopAt: 3 });
    expect(sent.filter((message) => message.type === 'step')).toHaveLength(2);
    store.getState().receive({ type: 'steps', runId: run.runId, records: [fakeStep] });
    store.getState().receive({ type: 'paused', runId: run.runId, paused: true });
    expect(sent.filter((message) => message.type === 'step')).toHaveLength(2);
    store.getState().receive({
      type: 'done',
      runId: run.runId,
      report: {
        counters: store.getState().run.counters,
        verdict: null,
        ending: 'max-tokens',
      } as unknown as RunReport,
    });
    store.getState().talkNext();
    expect(store.getState().talk?.scene).toBe(1);
    expect(sent.at(-1)).toMatchObject({ type: 'run', paused: false, params: { method: 'ar', seed: 3 } });
    store.getState().talkPrevious();
    expect(sent.at(-1)).toMatchObject({ type: 'run', paused: true, params: { seed: 3 } });
    expect(store.getState().talk).toMatchObject({ scene: 0, stop: 1, stopAt: 3 });
    store.getState().talkPrevious();
    expect(store.getState().talk).toMatchObject({ scene: 0, stop: 0, stopAt: 2 });
    store.getState().leaveTalk();
    expect(store.getState().talk).toBeNull();
    store.getState().openTalk('not json');
    expect(store.getState().talkError).toMatch(/not JSON/);
  });
});

describe('?embed=', () => {
  it('names one view, with or without its run bar, and answers a wrong name with the list', () => {
    expect(parseEmbed('?talk=x')).toBeNull();
    expect(parseEmbed('?embed=tree')).toEqual({ view: 'tree', controls: false });
    expect(parseEmbed('?embed=chart-histogram&controls=1')).toEqual({ view: 'chart-histogram', controls: true });
    expect(parseEmbed('?embed=<b>')).toEqual({
      error: expect.stringContaining('the views are output, counters, inspector, tree'),
    });
    expect(parseEmbed('?embed=tree&controls=yes')).toEqual({ error: '&controls=yes must be 0 or 1' });
    expect(parseEmbed('?embed=tree&step=2')).toEqual({ view: 'tree', controls: false, step: 2 });
    for (const step of ['0', '-1', '1.5', 'x', '513'])
      expect(parseEmbed(`?embed=tree&step=${step}`)).toEqual({
        error: `&step=${step} must be a whole number of steps from 1 to 512`,
      });
  });

  it("a scene's `step` (or an embed's `&step=`) selects that step once the run reaches it", () => {
    const parsed = parseTalk(talk([{ run: { seed: 3 }, step: 2, view: 'tree' }]));
    if (!('talk' in parsed)) throw new Error(parsed.error);
    expect(parsed.talk.scenes[0]?.step).toBe(2);
    const scene = parsed.talk.scenes[0];
    if (!scene) throw new Error('no scene');
    const again = parseTalk(talkJson('again', [sceneJson(scene)]));
    expect('talk' in again && again.talk.scenes).toEqual(parsed.talk.scenes);
    expect(error(talk([{ step: 0 }]))).toContain(
      'scene 1: "step" (the step shown) must be a whole number of steps from 1 to 512',
    );
    const sent: ToWorker[] = [];
    const store = createSpecStore({ post: (message) => sent.push(message), restart: () => undefined });
    store.getState().receive(READY);
    store.getState().openTalk(talkJson('step 2', [sceneJson(scene)]));
    const run = sent.find((message) => message.type === 'run') as Extract<ToWorker, { type: 'run' }>;
    const fakeStep = {
      counts: { proposed: 0, invalidated: 0, distinctProposed: 0, distinctEligible: 0, accepted: 0 },
    } as unknown as StepRecord;
    store.getState().receive({ type: 'steps', runId: run.runId, records: [fakeStep] });
    expect(store.getState().ui.selectedStep).toBeNull();
    store.getState().receive({ type: 'steps', runId: run.runId, records: [fakeStep, fakeStep] });
    expect(store.getState().ui.selectedStep).toBe(1);
    store.getState().leaveTalk();
    expect(store.getState().stepToShow).toBeNull();
  });

  it('on embed.html, the view is ?view= and is required', () => {
    expect(parseEmbed('?view=tree&controls=1', true)).toEqual({ view: 'tree', controls: true });
    expect(parseEmbed('?embed=tree', true)).toEqual({
      error: expect.stringMatching(/^embed\.html needs \?view=<view>; the views are output, counters/),
    });
    expect(parseEmbed('?view=chart', true)).toEqual({
      error: expect.stringMatching(/^\?view=chart is not a view; the views are /),
    });
    expect(parseEmbed('?view=tree')).toBeNull();
  });
});

describe('share links', () => {
  it('round-trip the pair, the runtime and presentation mode, and name a wrong one', () => {
    const params = presetParams(findPreset('person'));
    const setup = { pair: 'bundled-float32', provider: 'wasm', presentation: true } as const;
    const link = encodeShare({ params, preset: 'person', setup });
    const decoded = decodeShare(link, params);
    expect(decoded).toMatchObject({
      params: { ...params, schemaText: expect.any(String) },
      preset: 'person',
      errors: {},
      text: {},
      setup,
    });
    expect(decodeShare(link.replace('runtime=wasm', 'runtime=cuda'), params)?.setupError).toBe(
      'the link\'s runtime "cuda" is not one of auto, wasm, webgpu',
    );
    const store = createSpecStore({ post: () => undefined, restart: () => undefined });
    store.getState().applyShared(decoded as NonNullable<typeof decoded>);
    expect(store.getState()).toMatchObject({
      pair: { targetUrl: BUNDLED_FLOAT_PAIR.targetUrl },
      provider: 'wasm',
      ui: { presentation: true },
    });
  });
});
