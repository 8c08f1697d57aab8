/**
 * The whole app on a store whose worker is a recorder (no models load), for tests that need events no bundled
 * model gives: the page can put runs into the history that no check has seen (records the checks of a stored
 * history would drop), so that the real history panel fails in the real app; and it can finish the race the
 * page asked for with the engine's own race over runs of a chosen speed, faster than any pair runs here, or
 * the run it asked for with as many recorded steps as a test needs.
 * What the store sends lands on window.speclabPanelTest.sent.
 */
import { createRoot } from 'react-dom/client';
import type { ToWorker } from '../../src/contract/protocol';
import { zeroTimings, type StepRecord } from '../../src/contract/stepRecord';
import { DECODE_METHODS } from '../../src/contract/runParams';
import { race } from '../../src/engine/bench';
import { createSpecStore } from '../../src/store/store';
import type { HistoryEntry } from '../../src/store/state';
import { App } from '../../src/ui/App';
import { StoreContext } from '../../src/ui/storeContext';
import { TOUR_DISMISSED_KEY } from '../../src/ui/Tour';
import { WASM_ENGINE_INFO } from '../support/engineInfo';
import { emptyCounters, exportCounters, recordStep } from '../../src/core/metrics';
import { goodReport } from '../support/runReports';
import recordedStepJson from '../fixtures/steps/person-lecture-step-2.json?raw';
import '../../src/ui/app.css';

const sent: ToWorker[] = [];
const store = createSpecStore({ post: (message) => sent.push(message), restart: () => undefined });

/** Two runs whose counters lack the counts per draft source: the table shows them, comparing them throws. */
function putUncheckedRuns(): void {
  const runs = ['a', 'b'].map((id, i): HistoryEntry => {
    const report = goodReport();
    const counters = { ...report.counters, bySource: undefined } as unknown as HistoryEntry['report']['counters'];
    return { id, finishedAt: Date.UTC(2026, 11, 3, 9, i), report: { ...report, counters } };
  });
  store.getState().setHistory(runs);
}

/**
 * Answers the last race the page sent as the worker would (src/engine/bench.ts's race over every method), with
 * runs of `tokensPerSecond` (the baseline; each later method a tenth faster than the one before it).
 */
async function finishRace(tokensPerSecond: number): Promise<void> {
  const asked = sent.findLast((message) => message.type === 'race');
  if (asked?.type !== 'race') throw new Error('the page has not asked for a race');
  const result = await race(
    (params) => {
      const report = goodReport();
      const speed = tokensPerSecond * (1 + DECODE_METHODS.indexOf(params.method) / 10);
      return Promise.resolve({ ...report, params, generationMs: (report.tokens.length / speed) * 1000 });
    },
    asked.params,
    DECODE_METHODS,
    asked.repeats,
    { tokenBudget: 1 },
  );
  store.getState().receive({ type: 'race-done', runId: asked.runId, result });
}

/**
 * Answers the last run the page sent with `stepCount` copies of a recorded step (the person lecture's second,
 * K = 3, L = 4, 11 draft tokens proposed), then its end: counters far past what the bundled pair reaches in one
 * run of the default settings, as K = 8, L = 8 and 512 tokens give (R up to 32,768).
 */
function finishRun(stepCount: number): void {
  const asked = sent.findLast((message) => message.type === 'run');
  if (asked?.type !== 'run') throw new Error('the page has not asked for a run');
  const step = JSON.parse(recordedStepJson) as StepRecord;
  // Recorded before the copy drafter, its counts by source lack one: the run's counters go without them.
  const counts = { ...step.counts };
  delete counts.bySource;
  const records = Array.from({ length: stepCount }, (_, index): StepRecord => ({ ...step, counts, index }));
  const { receive } = store.getState();
  receive({ type: 'steps', runId: asked.runId, records });
  const counters = records.reduce((sum, record) => recordStep(sum, record.counts), emptyCounters(asked.params.L));
  const tokens = records.flatMap((record) => record.emitted.map(({ token }) => token));
  const report = {
    ...goodReport(),
    params: asked.params,
    tokens,
    counters,
    metrics: exportCounters(counters),
    steps: stepCount,
    timings: zeroTimings(),
  };
  receive({ type: 'done', runId: asked.runId, report });
}

declare global {
  interface Window {
    speclabPanelTest: {
      sent: ToWorker[];
      putUncheckedRuns: () => void;
      finishRace: (tokensPerSecond: number) => Promise<void>;
      finishRun: (stepCount: number) => void;
      /** The engine says it is ready (the bundled pair's info on wasm), so that Run and Race are enabled. */
      ready: () => void;
    };
  }
}

window.speclabPanelTest = {
  sent,
  putUncheckedRuns,
  finishRace,
  finishRun,
  ready: () => store.getState().receive({ type: 'ready', info: WASM_ENGINE_INFO }),
};
localStorage.setItem(TOUR_DISMISSED_KEY, '1');
const root = document.getElementById('root');
if (!root) throw new Error('#root is missing');
createRoot(root).render(
  <StoreContext.Provider value={store}>
    <App />
  </StoreContext.Provider>,
);
