import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { FromWorker, ToWorker } from './contract/protocol';
import { persistHistory } from './store/historyDb';
import { createSpecStore } from './store/store';
import { decodeShare } from './store/shareUrl';
import { App } from './ui/App';
import { StoreContext } from './ui/storeContext';
import { markPhase } from './core/timeline';
import './ui/app.css';
import './ui/teaching.css';

// The page's modules are fetched and evaluated; the worker starts next.
markPhase('page modules');

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('SpecLab: #root element is missing from index.html');

/** The engine's worker; replaced by a fresh one when a schema compile must be stopped (wasm cannot be interrupted). */
let worker: Worker;
const store = createSpecStore({
  post: (message) => worker.postMessage(message),
  restart: () => {
    worker.terminate();
    startWorker();
  },
});
function startWorker() {
  worker = new Worker(new URL('./engine/worker.ts', import.meta.url), { type: 'module', name: 'speclab-engine' });
  worker.onmessage = (event: MessageEvent<FromWorker>) => store.getState().receive(event.data);
  worker.onerror = (event) => store.getState().receive({ type: 'load-error', message: `the engine worker failed: ${event.message}` });
}
startWorker();
// Test hook for test/ui/deviceLoss.browser.test.ts, present only under the ?test-hooks query flag.
if (new URLSearchParams(location.search).has('test-hooks')) {
  const lose: ToWorker = { type: 'lose-gpu-device' };
  Object.assign(window, { speclabTestHooks: { loseGpuDevice: () => worker.postMessage(lose) } });
}

// A shared link is untrusted input: its fields are checked like the form's, and a bad one is shown, not thrown.
const shared = decodeShare(location.hash, store.getState().params);
if (shared) store.getState().applyShared(shared);
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
