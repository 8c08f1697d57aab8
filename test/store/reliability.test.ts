/** The store's side of "nothing hangs, nothing crashes": honest fields, untrusted links, cancelled races, abandoned compiles. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';
import type { ToWorker } from '../../src/contract/protocol';
import type { RaceResult } from '../../src/contract/bench';
import type { RunReport } from '../../src/contract/runReport';
import { decodeShare, encodeShare } from '../../src/store/shareUrl';
import { createSpecStore, type StoreOptions } from '../../src/store/store';
import { WASM_ENGINE_INFO } from '../support/engineInfo';

function readyStore(options: StoreOptions = {}) {
  const sent: ToWorker[] = [];
  let restarts = 0;
  const store = createSpecStore({ post: (message) => sent.push(message), restart: () => restarts++ }, options);
  store.getState().receive({ type: 'ready', info: WASM_ENGINE_INFO });
  return { store, sent, restarts: () => restarts, types: () => sent.map((message) => message.type) };
}

const runIdOf = (sent: ToWorker[], type: 'run' | 'race') =>
  (sent.filter((message) => message.type === type).at(-1) as { runId: number }).runId;

afterEach(() => {
  vi.useRealTimers();
});

describe('number fields typed freely', () => {
  it('keep the text as typed: "1", backspace, "2" in K leaves 2', () => {
    const { store } = readyStore();
    const state = () => store.getState();
    state().setFieldText('K', '1');
    state().setFieldText('K', '');
    expect(state().form.errors).toEqual({});
    state().setFieldText('K', '2');
    state().commitField('K');
    expect(state().params.K).toBe(2);
    expect(state().form).toEqual({ text: {}, errors: {} });
  });

  it('K = 100 gets a range message on blur, is not clamped, and Run sends nothing until it is fixed', () => {
    const { store, types } = readyStore();
    const state = () => store.getState();
    const before = state().params.K;
    state().setFieldText('K', '100');
    state().commitField('K');
    expect(state().form.errors.K).toBe('K drafts must be an integer from 1 to 8; got 100');
    expect(state().form.text.K).toBe('100');
    expect(state().params.K).toBe(before);
    state().start();
    state().startRace();
    state().step();
    expect(types()).toEqual([]);
    // The message follows the typing once shown, and goes as soon as the text is right.
    state().setFieldText('K', '8');
    expect(state().form.errors).toEqual({});
    state().start();
    expect(types()).toEqual(['run']);
    expect(state().params.K).toBe(8);
  });

  it('are checked on Run even without a blur: "-1" in temperature is refused, not turned into 01', () => {
    const { store, types } = readyStore();
    store.getState().setFieldText('temperature', '-1');
    store.getState().start();
    expect(types()).toEqual([]);
    expect(store.getState().form.errors.temperature).toBe('Temperature must be a number from 0 to 2; got -1');
    expect(store.getState().form.text.temperature).toBe('-1');
  });

  it('"the prompt is empty" goes when a preset refills the prompt', () => {
    const { store, types } = readyStore();
    store.getState().setParams({ prompt: '' });
    store.getState().start();
    expect(types()).toEqual([]);
    expect(store.getState().form.errors.prompt).toBe('the prompt is empty');
    store.getState().choosePreset('order');
    expect(store.getState().form.errors).toEqual({});
    store.getState().start();
    expect(types()).toEqual(['run']);
  });
});

describe('share links are untrusted', () => {
  it.each([
    ['0', 'got 0'],
    ['2.5', 'got 2.5'],
    ['1e9', 'got 1000000000'],
    ['abc', 'got "abc"'],
  ])('L = %s loads with the field marked, its text shown and no run started', (L, got) => {
    const { store, types } = readyStore();
    const link = encodeShare({ params: store.getState().params, preset: 'person' }).replace(/([?&])L=\d+/, `$1L=${L}`);
    const shared = decodeShare(link, store.getState().params);
    expect(shared).not.toBeNull();
    store.getState().applyShared(shared as NonNullable<typeof shared>);
    expect(store.getState().form.errors.L).toBe(`the link's L: L draft length must be an integer from 1 to 8; ${got}`);
    expect(store.getState().form.text.L).toBe(L);
    expect(store.getState().params.L).toBe(4);
    expect(types()).toEqual([]);
    store.getState().setFieldText('L', '3');
    store.getState().start();
    expect(types()).toEqual(['run']);
  });

  it('a valid link runs as soon as the models are ready', () => {
    const { store, types } = readyStore();
    const shared = decodeShare(
      encodeShare({ params: { ...store.getState().params, K: 5 }, preset: 'person' }),
      store.getState().params,
    );
    store.getState().applyShared(shared as NonNullable<typeof shared>);
    expect(types()).toEqual(['run']);
    expect(store.getState().params.K).toBe(5);
  });
});

describe('races and runs cancel each other cleanly', () => {
  it('a race started while a stepped run is paused stops that run and keeps it on screen, and its late report is not scored', () => {
    const { store, sent } = readyStore();
    store.getState().step();
    const pausedRun = runIdOf(sent, 'run');
    store.getState().receive({ type: 'steps', runId: pausedRun, records: [] });
    const kept = store.getState().run;
    store.getState().startRace();
    expect(store.getState().run.status).toBe('stopped');
    expect(store.getState().run.id).not.toBe(pausedRun);
    expect(store.getState().run.steps).toBe(kept.steps);
    expect(store.getState().run.counters).toBe(kept.counters);
    const cancelled = {
      ending: 'cancelled',
      verdict: { kind: 'truncated', reason: 'the run was cancelled mid-JSON: …' },
      counters: store.getState().run.counters,
    } as unknown as RunReport;
    store.getState().receive({ type: 'done', runId: pausedRun, report: cancelled });
    expect(store.getState().scorecard.completions).toBe(0);
    expect(store.getState().run.report).toBeNull();
  });

  it('Reset stops a race: its late rows are ignored and it reads as cancelled', () => {
    const { store, sent, types } = readyStore();
    store.getState().startRace();
    const race = runIdOf(sent, 'race');
    store.getState().reset();
    expect(types()).toEqual(['race', 'cancel']);
    expect(store.getState().race.status).toBe('cancelled');
    store.getState().receive({ type: 'bench-progress', runId: race, done: 1, total: 10 });
    store.getState().receive({ type: 'race-done', runId: race, result: {} as RaceResult });
    expect(store.getState().race).toMatchObject({ status: 'cancelled', done: 0, result: null });
    // The worker's own word that the race ended cancelled does not turn it into an error.
    store.getState().receive({ type: 'run-error', runId: race, message: 'race cancelled' });
    expect(store.getState().race).toMatchObject({ status: 'cancelled', error: null });
  });
});

describe('a schema compile that runs too long', () => {
  it('is stopped at the budget with a message naming its size, and the engine restarts with the pair', () => {
    vi.useFakeTimers();
    const { store, sent, restarts, types } = readyStore({ compileBudgetMs: 10_000 });
    store.getState().start();
    const run = runIdOf(sent, 'run');
    store.getState().receive({ type: 'compiling', runId: run, properties: 10_000 });
    vi.advanceTimersByTime(9_999);
    expect(restarts()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(restarts()).toBe(1);
    expect(store.getState().run).toMatchObject({
      status: 'error',
      error: expect.stringMatching(
        /^this schema has 10,000 properties; compiling it took more than 10 s and was stopped/,
      ),
    });
    expect(types()).toEqual(['run', 'load']);
    expect(store.getState().engine.status).toBe('loading');
  });

  it('names the pattern when the schema has one that repeats a repeating group', () => {
    vi.useFakeTimers();
    const { store, sent } = readyStore({ compileBudgetMs: 10_000 });
    store.getState().start();
    store.getState().receive({ type: 'compiling', runId: runIdOf(sent, 'run'), properties: 1, pattern: '^(a+)+$' });
    vi.advanceTimersByTime(10_000);
    expect(store.getState().run).toMatchObject({
      status: 'error',
      error:
        'compiling this schema took more than 10 s and was stopped: its pattern "^(a+)+$" repeats a group that itself repeats, which can take exponential time (rewrite the pattern without the nested repetition)',
    });
  });

  it('is abandoned at once by Reset', () => {
    vi.useFakeTimers();
    const { store, sent, restarts, types } = readyStore();
    store.getState().start();
    store.getState().receive({ type: 'compiling', runId: runIdOf(sent, 'run'), properties: 10_000 });
    store.getState().reset();
    expect(restarts()).toBe(1);
    expect(types()).toEqual(['run', 'load']);
    expect(store.getState().run.status).toBe('idle');
    expect(store.getState().compiling).toBeNull();
    vi.advanceTimersByTime(60_000);
    expect(restarts()).toBe(1);
  });

  it('that finished in time leaves the engine alone', () => {
    vi.useFakeTimers();
    const { store, sent, restarts } = readyStore();
    store.getState().start();
    const run = runIdOf(sent, 'run');
    store.getState().receive({ type: 'compiling', runId: run, properties: 3 });
    store.getState().receive({ type: 'compiled', runId: run });
    vi.advanceTimersByTime(60_000);
    expect(restarts()).toBe(0);
    expect(store.getState().run.status).toBe('running');
  });
});

describe('loads', () => {
  it('Cancel goes back to the bundled pair', () => {
    const { store, sent } = readyStore();
    store.getState().setPair({
      ...BUNDLED_PAIR,
      label: 'Custom',
      draftUrl: 'https://example.com/d/',
      targetUrl: 'https://example.com/t/',
    });
    store.getState().cancelLoad();
    expect(
      sent
        .filter((message) => message.type === 'load')
        .map((message) => (message as { source: { label: string } }).source.label),
    ).toEqual(['Custom', BUNDLED_PAIR.label]);
    expect(store.getState().pair).toBe(BUNDLED_PAIR);
  });
});
