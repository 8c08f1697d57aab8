/**
 * The whole app on a store whose worker is a recorder (no models load), for tests that need events no bundled
 * model gives: the page can put runs into the history that no check has seen (records the checks of a stored
 * history would drop), so that the real history panel fails in the real app; and it can finish the race the
 * page asked for with the engine's own race over runs of a chosen speed, faster than any pair runs here.
 * What the store sends lands on window.speclabPanelTest.sent.
 */
import { createRoot } from 'react-dom/client';
import type { ToWorker } from '../../src/contract/protocol';
import { DECODE_METHODS } from '../../src/contract/runParams';
import { race } from '../../src/engine/bench';
import { createSpecStore } from '../../src/store/store';
import type { HistoryEntry } from '../../src/store/state';
import { App } from '../../src/ui/App';
import { StoreContext } from '../../src/ui/storeContext';
import { TOUR_DISMISSED_KEY } from '../../src/ui/Tour';
import { WASM_ENGINE_INFO } from '../support/engineInfo';
import { goodReport } from '../support/runReports';
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

declare global {
  interface Window {
    speclabPanelTest: {
      sent: ToWorker[];
      putUncheckedRuns: () => void;
      finishRace: (tokensPerSecond: number) => Promise<void>;
      /** The engine says it is ready (the bundled pair's info on wasm), so that Run and Race are enabled. */
      ready: () => void;
    };
  }
}

window.speclabPanelTest = {
  sent,
  putUncheckedRuns,
  finishRace,
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
