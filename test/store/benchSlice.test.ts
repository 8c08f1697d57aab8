import { bootstrapInterval } from '../../src/core/bootstrap';
import { describe, expect, it } from 'vitest';
import type { SweepCell } from '../../src/contract/bench';
import type { ToWorker } from '../../src/contract/protocol';
import { findPreset, presetParams } from '../../src/contract/runParams';
import type { RunReport } from '../../src/contract/runReport';
import { spreadOf } from '../../src/core/fairTiming';
import { emptyCounters, recordStep } from '../../src/core/metrics';
import { HISTORY_LIMIT } from '../../src/store/state';
import { createSpecStore } from '../../src/store/store';

function storeWithOutbox() {
  const sent: ToWorker[] = [];
  return { store: createSpecStore({ post: (message) => sent.push(message), restart: () => undefined }), sent };
}

const cell = (K: number, L: number): SweepCell => ({
  K,
  L,
  seeds: 1,
  runs: 1,
  tokens: 10,
  counters: recordStep(emptyCounters(L), {
    proposed: K * L,
    invalidated: 0,
    distinctProposed: K * L,
    distinctEligible: K * L,
    accepted: 1,
  }),
  tokensPerSecond: spreadOf([10]),
  speedup: spreadOf([1.5]),
  speedupInterval: bootstrapInterval([1.5]),
  meanAcceptanceLength: spreadOf([2]),
  positionsPerStep: { path: 'tree', mean: 1 + K * L, batched: K * (L + 1) },
});

describe('the bench in the app store', () => {
  it('a sweep: sent to the engine, folds progress and cells, ends done; a later sweep ignores the earlier one’s events', () => {
    const { store, sent } = storeWithOutbox();
    const spec = { base: presetParams(findPreset('person')), Ks: [1, 2], Ls: [2], seeds: 1 };
    store.getState().startSweep(spec);
    const message = sent.at(-1) as Extract<ToWorker, { type: 'sweep' }>;
    expect(message).toMatchObject({ type: 'sweep', spec });
    const id = message.runId;
    store.getState().receive({ type: 'bench-progress', runId: id, done: 3, total: 6 });
    store.getState().receive({ type: 'sweep-cell', runId: id, cell: cell(1, 2) });
    expect(store.getState().sweep).toMatchObject({ status: 'running', done: 3, total: 6, cells: [cell(1, 2)] });
    store.getState().receive({ type: 'sweep-done', runId: id });
    expect(store.getState().sweep.status).toBe('done');
    store.getState().startSweep(spec);
    store.getState().receive({ type: 'sweep-cell', runId: id, cell: cell(2, 2) });
    expect(store.getState().sweep.cells).toEqual([]);
    // Bench ids never meet a run's id, so a run's events never land in the sweep.
    expect(store.getState().sweep.id).not.toBe(store.getState().run.id);
  });

  it('Cancel stops the sweep in the engine, and the cancellation is not an error', () => {
    const { store, sent } = storeWithOutbox();
    store.getState().startSweep({ base: presetParams(findPreset('person')), Ks: [1], Ls: [2, 4], seeds: 1 });
    const id = store.getState().sweep.id;
    store.getState().cancelBench();
    expect(sent.at(-1)).toEqual({ type: 'cancel' });
    store.getState().receive({ type: 'bench-error', runId: id, message: 'sweep cancelled', cancelled: true });
    expect(store.getState().sweep).toMatchObject({ status: 'cancelled', error: null });
  });

  it('a scorecard: its rows arrive with its done message; a failure is shown', () => {
    const { store } = storeWithOutbox();
    store.getState().startScorecard({
      presets: ['sentiment'],
      seeds: 1,
      base: { method: 'spectr-gbv', K: 2, L: 3, temperature: 1, maxTokens: 8, drafting: 'validate', seed: 1 },
    });
    const id = store.getState().scorecardTable.id;
    store
      .getState()
      .receive({ type: 'bench-error', runId: id, message: 'the models are not loaded yet', cancelled: false });
    expect(store.getState().scorecardTable).toMatchObject({ status: 'error', error: 'the models are not loaded yet' });
  });

  it('the history keeps the newest runs first, at most HISTORY_LIMIT, and clears', () => {
    const { store } = storeWithOutbox();
    const report = { params: presetParams(findPreset('person')) } as RunReport;
    for (let i = 0; i < HISTORY_LIMIT + 3; i++) store.getState().remember({ id: `run-${i}`, finishedAt: i, report });
    const { history } = store.getState();
    expect(history).toHaveLength(HISTORY_LIMIT);
    expect(history[0]?.id).toBe(`run-${HISTORY_LIMIT + 2}`);
    expect(history.at(-1)?.id).toBe('run-3');
    store.getState().clearHistory();
    expect(store.getState().history).toEqual([]);
  });
});
