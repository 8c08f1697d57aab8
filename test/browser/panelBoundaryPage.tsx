/**
 * The whole app on a store whose worker is a recorder (no models load), for the panel boundary's test: the
 * page can put runs into the history that no check has seen (records the checks of a stored history would
 * drop), so that the real history panel fails in the real app. What the store sends lands on
 * window.speclabPanelTest.sent.
 */
import { createRoot } from 'react-dom/client';
import type { ToWorker } from '../../src/contract/protocol';
import { createSpecStore } from '../../src/store/store';
import type { HistoryEntry } from '../../src/store/state';
import { App } from '../../src/ui/App';
import { StoreContext } from '../../src/ui/storeContext';
import { TOUR_DISMISSED_KEY } from '../../src/ui/Tour';
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

declare global {
  interface Window {
    speclabPanelTest: { sent: ToWorker[]; putUncheckedRuns: () => void };
  }
}

window.speclabPanelTest = { sent, putUncheckedRuns };
localStorage.setItem(TOUR_DISMISSED_KEY, '1');
const root = document.getElementById('root');
if (!root) throw new Error('#root is missing');
createRoot(root).render(
  <StoreContext.Provider value={store}>
    <App />
  </StoreContext.Provider>,
);
