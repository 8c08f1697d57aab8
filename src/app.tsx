import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { FromWorker, ToWorker } from './contract/protocol';
import { persistHistory } from './store/historyDb';
import { createSpecStore } from './store/store';
import { decodeShare } from './store/shareUrl';
import { App } from './ui/App';
import { pageEmbed } from './ui/embed';
import { StoreContext } from './ui/storeContext';
import { markPhase, markPhaseOnce } from './core/timeline';
import './ui/app.css';
import './ui/teaching.css';

/** The engine's workers as src/main.tsx started them, before this module loaded. */
export interface EngineWorkers {
  /** The worker started before the UI loaded. */
  first: Worker;
  /** A fresh worker, for a restart. */
  start: () => Worker;
  /** Why the first worker failed before the UI was there to listen, if it did. */
  earlyError: string | null;
}

/** Mounts the UI on the engine's worker, which main.tsx started before these modules loaded. */
export function mountApp(workers: EngineWorkers): void {
  // The UI's modules are fetched and evaluated.
  markPhase('page modules');

  const rootElement = document.getElementById('root');
  if (!rootElement) throw new Error('SpecLab: #root element is missing from index.html');

  /** The engine's worker; replaced by a fresh one when a schema compile must be stopped (wasm cannot be interrupted). */
  let worker: Worker = workers.first;
  const query = new URLSearchParams(location.search);
  const testHooks = query.has('test-hooks');
  const store = createSpecStore(
    {
      post: (message) => worker.postMessage(message),
      restart: () => {
        worker.terminate();
        startWorker();
      },
    },
    // Test hook for test/ui/hardwareDefault.browser.test.ts: the setup treats SwiftShader as a hardware adapter.
    testHooks && query.has('hardware-adapter') ? { assumeHardwareAdapter: true } : {},
  );
  function listen() {
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      // bench:load splits the first token's wait at the page: the worker's first step arrives, then it renders.
      if (event.data.type === 'first-step') markPhaseOnce('first steps received');
      store.getState().receive(event.data);
    };
    worker.onerror = (event) =>
      store.getState().receive({ type: 'load-error', message: `the engine worker failed: ${event.message}` });
  }
  function startWorker() {
    worker = workers.start();
    listen();
  }
  listen();
  // Test hook for test/ui/deviceLoss.browser.test.ts, present only under the ?test-hooks query flag.
  if (testHooks) {
    const lose: ToWorker = { type: 'lose-gpu-device' };
    Object.assign(window, { speclabTestHooks: { loseGpuDevice: () => worker.postMessage(lose) } });
  }

  // A shared link is untrusted input: its fields are checked like the form's, and a bad one is shown, not thrown.
  const applyLink = (): boolean => {
    const shared = decodeShare(location.hash, store.getState().params);
    if (shared) store.getState().applyShared(shared);
    return shared !== null;
  };
  const shared = applyLink();
  // A link opened in a tab already showing the app changes only the fragment, which reloads nothing: it is read the same way.
  window.addEventListener('hashchange', () => void applyLink());
  if (new URLSearchParams(location.search).get('present') === '1') store.getState().setUi({ presentation: true });
  // An embed in a slide runs as soon as the models are ready: the link's run, or the first preset's.
  const embed = pageEmbed();
  if (embed && !('error' in embed) && !shared) store.setState({ pendingAutoRun: true });
  if (embed && !('error' in embed) && embed.step !== undefined) store.setState({ stepToShow: embed.step });
  store.getState().load();
  if (workers.earlyError !== null)
    store.getState().receive({ type: 'load-error', message: `the engine worker failed: ${workers.earlyError}` });
  // Without IndexedDB (some private windows) the history still works, for this page's life only.
  persistHistory(store).catch((error: unknown) =>
    console.warn(`SpecLab: the run history will not survive a reload: ${String(error)}`),
  );

  createRoot(rootElement).render(
    <StrictMode>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </StrictMode>,
  );
}
