/**
 * The store's reducer: each engine event gives new state and a list of effects, and nothing else happens: the
 * state it reads stays as it was (every object frozen), the transport hears nothing, and the same event on
 * the same state gives the same answer.
 */
import { describe, expect, it } from 'vitest';
import type { RaceResult } from '../../src/contract/bench';
import type { FromWorker, ToWorker } from '../../src/contract/protocol';
import { raceRecordKey } from '../../src/store/raceSlice';
import { reduce, type StoreData } from '../../src/store/receive';
import { createSpecStore } from '../../src/store/store';
import { parseTalk, TALK_FORMAT } from '../../src/store/talk';
import { goodReport } from '../support/runReports';
import { WASM_ENGINE_INFO } from '../support/engineInfo';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A ready store's state with a run, a race and a sweep in flight, and every message the store sent. */
function busyState() {
  const sent: ToWorker[] = [];
  const restarts: number[] = [];
  const store = createSpecStore({ post: (message) => sent.push(message), restart: () => restarts.push(1) });
  store.getState().receive({ type: 'ready', info: WASM_ENGINE_INFO });
  store.getState().startSweep({ base: store.getState().params, Ks: [1], Ls: [2], seeds: 1 });
  store.getState().startRace();
  store.getState().start();
  return { state: store.getState(), sent, restarts };
}

const idOf = (sent: ToWorker[], type: 'run' | 'race' | 'sweep') =>
  (sent.filter((message) => message.type === type).at(-1) as { runId: number }).runId;

/** One event of every type the engine sends, addressed to the busy state's run, race or sweep. */
function everyEvent(sent: ToWorker[]): FromWorker[] {
  const run = idOf(sent, 'run');
  const race = idOf(sent, 'race');
  const sweep = idOf(sent, 'sweep');
  const report = goodReport();
  return [
    { type: 'progress', file: 'draft.onnx', loaded: 5, total: 10 },
    { type: 'phase', phase: 'hash' },
    { type: 'ready', info: WASM_ENGINE_INFO },
    { type: 'warmed-up' },
    { type: 'load-error', message: 'no network' },
    { type: 'compiling', runId: run, properties: 3 },
    { type: 'compiled', runId: run },
    { type: 'steps', runId: run, records: [] },
    { type: 'paused', runId: run, paused: true },
    { type: 'done', runId: run, report },
    { type: 'bench-progress', runId: race, done: 1, total: 4 },
    { type: 'race-done', runId: race, result: { repeats: 1, tokenBudget: 1, entries: [] } },
    { type: 'sweep-cell', runId: sweep, cell: {} as never },
    { type: 'sweep-done', runId: sweep },
    { type: 'scorecard-done', runId: -2, rows: [] },
    { type: 'bench-error', runId: sweep, message: 'failed', cancelled: false },
    { type: 'run-error', runId: run, message: 'failed', errors: { K: 'too big' } },
    { type: 'engine-trapped' },
  ];
}

describe('receive as a reducer', () => {
  it('reads the state without changing it, sends nothing, and answers the same twice', () => {
    const { state, sent, restarts } = busyState();
    const events = everyEvent(sent);
    expect(new Set(events.map((event) => event.type)).size).toBe(events.length);
    const sentBefore = sent.length;
    const frozen: StoreData = deepFreeze(state);
    for (const event of events) {
      const first = reduce(frozen, event);
      expect(reduce(frozen, event), event.type).toEqual(first);
    }
    expect(sent).toHaveLength(sentBefore);
    expect(restarts).toEqual([]);
  });

  it('folds an event into new state: a run error marks the run and its field', () => {
    const { state, sent } = busyState();
    const run = idOf(sent, 'run');
    const { state: next, effects } = reduce(state, {
      type: 'run-error',
      runId: run,
      message: 'no',
      errors: { K: 'K?' },
    });
    expect(next.run).toMatchObject({ id: run, status: 'error', error: 'no' });
    expect(next.form?.errors).toMatchObject({ K: 'K?' });
    expect(effects).toEqual([]);
  });

  it('returns the effects an event implies, as data, in the order they must run', () => {
    const { state, sent } = busyState();
    const run = idOf(sent, 'run');
    expect(reduce(state, { type: 'compiling', runId: run, properties: 2, pattern: '(a+)+' }).effects).toEqual([
      { type: 'watch-compile', properties: 2, pattern: '(a+)+' },
    ]);
    expect(reduce(state, { type: 'compiled', runId: run }).effects).toEqual([{ type: 'stop-compile-watch' }]);
    expect(reduce(state, { type: 'engine-trapped' })).toEqual({
      state: { compiling: null },
      effects: [{ type: 'stop-compile-watch' }, { type: 'restart-engine' }, { type: 'load' }],
    });
    const linked = { ...state, pendingAutoRun: true };
    expect(reduce(linked, { type: 'ready', info: WASM_ENGINE_INFO })).toMatchObject({
      state: { pendingAutoRun: false, engine: { status: 'ready' } },
      effects: [{ type: 'mark-phase', phase: 'ready' }, { type: 'auto-run' }],
    });
  });

  it('in a talk, a paused scene asks for its next step, and a race scene keeps its rows', () => {
    const { state, sent } = busyState();
    const parsed = parseTalk(
      JSON.stringify({ format: TALK_FORMAT, version: 1, title: 'T', scenes: [{ stop: 'race' }] }),
    );
    if ('error' in parsed) throw new Error(parsed.error);
    const talk = { talk: parsed.talk, scene: 0, stop: 0, stopAt: 3, pending: false };
    // A race still running (busyState's run cancelled its race).
    const inTalk = { ...state, talk, race: { ...state.race, status: 'running' as const } };
    expect(reduce(inTalk, { type: 'paused', runId: idOf(sent, 'run'), paused: true }).effects).toEqual([
      { type: 'send', message: { type: 'step' } },
    ]);
    const result: RaceResult = { repeats: 1, tokenBudget: 1, entries: [] };
    expect(reduce(inTalk, { type: 'race-done', runId: idOf(sent, 'race'), result }).effects).toEqual([
      { type: 'keep-race', key: raceRecordKey(inTalk), result },
    ]);
  });
});
