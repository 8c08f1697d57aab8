import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { FromWorker, ToWorker } from './contract/protocol';
import { persistHistory } from './store/historyDb';
import { createSpecStore } from './store/store';
import { decodeShare } from './store/shareUrl';
import { App } from './ui/App';
import { StoreContext } from './ui/storeContext';
import './ui/app.css';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('SpecLab: #root element is missing from index.html');

const worker = new Worker(new URL('./engine/worker.ts', import.meta.url), { type: 'module', name: 'speclab-engine' });
const store = createSpecStore({ post: (message) => worker.postMessage(message) });
worker.onmessage = (event: MessageEvent<FromWorker>) => store.getState().receive(event.data);
// Test hook for test/ui/deviceLoss.browser.test.ts, present only under the ?test-hooks query flag.
if (new URLSearchParams(location.search).has('test-hooks')) {
  const lose: ToWorker = { type: 'lose-gpu-device' };
  Object.assign(window, { speclabTestHooks: { loseGpuDevice: () => worker.postMessage(lose) } });
}
worker.onerror = (event) => store.getState().receive({ type: 'load-error', message: `the engine worker failed: ${event.message}` });

try {
  const shared = decodeShare(location.hash);
  if (shared) store.getState().applyShared(shared.preset, shared.params);
} catch (error) {
  store.getState().receive({ type: 'run-error', runId: 0, message: (error as Error).message });
}
store.getState().load();
// Without IndexedDB (some private windows) the history still works, for this page's life only.
persistHistory(store).catch((error: unknown) => console.warn(`SpecLab: the run history will not survive a reload: ${String(error)}`));

createRoot(rootElement).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>
  </StrictMode>,
);
