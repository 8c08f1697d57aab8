/**
 * The entry point. It starts the engine's worker before the UI's modules load, so that the worker's own
 * modules download and compile alongside them, then loads the UI (src/app.tsx). The worker posts nothing
 * before the store sends its first message.
 */
import type { EngineWorkers } from './app';

const start = () =>
  new Worker(new URL('./engine/worker.ts', import.meta.url), { type: 'module', name: 'speclab-engine' });
const workers: EngineWorkers = { first: start(), start, earlyError: null };
workers.first.onerror = (event) => {
  workers.earlyError = event.message;
};

import('./app')
  .then(({ mountApp }) => mountApp(workers))
  .catch((error: unknown) => {
    // Text only: an error message is never HTML.
    const root = document.getElementById('root');
    if (root)
      root.textContent = `SpecLab could not load its interface: ${error instanceof Error ? error.message : String(error)}`;
  });
