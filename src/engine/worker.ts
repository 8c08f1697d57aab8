/**
 * The engine's Web Worker: wires the real engine (setupEngine over the pair's files) and `postMessage` to
 * the message handler (workerHandler.ts), which does the work.
 */
import { runtimeFor, wasmThreads } from '../models/browserRuntime';
import type { ToWorker } from '../contract/protocol';
import { setupEngine } from './setup';
import { interpretedValidator } from '../grammar/interpretedValidator';
import { loadPair } from '../models/loader';
import { startGrammarModule } from '../grammar/engine';
import { modelDirectoryName, targetUrlFor } from '../contract/modelPairs';
import { evictModelCache, httpReader } from '../models/httpReader';
import { ModelLoadError } from '../models/manifest';
import { markPhase, markPhaseOnce, timed } from '../core/timeline';
import { EngineWorkerHandler, type LoadHooks, type LoadMessage, type WorkerSetup } from './workerHandler';

// Every module of the worker has been fetched and evaluated by now.
markPhase('worker modules');

/** Builds the pair a load message names, reading its files over HTTP (or the Cache API). */
async function loadEngine(message: LoadMessage, hooks: LoadHooks): Promise<WorkerSetup> {
  const { source } = message;
  const network = { signal: hooks.signal, ...(message.network ? { timeouts: message.network } : {}) };
  // The grammar's wasm starts while the model files download (the page's first run waits for its engine); a
  // failure here is that engine's to report when a run asks for it.
  void timed('grammar module', startGrammarModule).catch(() => undefined);
  try {
    const setup = await setupEngine({
      provider: message.provider,
      verifier: message.verifier,
      gpu: 'gpu' in navigator ? navigator.gpu : null,
      loadPair: async (provider) => {
        // Imported while the model files download.
        const runtime = timed('runtime import', () => runtimeFor(provider));
        const targetUrl = targetUrlFor(source, provider);
        const pair = await timed('load pair', () =>
          loadPair(
            runtime,
            {
              draft: httpReader(source.draftUrl, source.cache, network),
              target: httpReader(targetUrl, source.cache, network),
              ...(source.headUrl ? { head: httpReader(source.headUrl, source.cache, network) } : {}),
            },
            provider,
            { onProgress: hooks.onProgress, onPhase: hooks.onPhase },
            source.modelFile,
          ),
        );
        // The loader names a model without a manifest by its role ("draft"): the status line names it by its URL.
        if (pair.draft.manifest === null) pair.draft.name = modelDirectoryName(source.draftUrl);
        if (pair.target.manifest === null) pair.target.name = modelDirectoryName(targetUrl);
        return pair;
      },
      validate: interpretedValidator,
      ...(message.assumeHardwareAdapter ? { assumeHardwareAdapter: true } : {}),
    });
    return Object.assign(setup, { wasmThreads: wasmThreads(globalThis) });
  } catch (error) {
    // A file that failed its hash must not be served from the cache next time.
    if (error instanceof ModelLoadError) await evictModelCache();
    throw error;
  }
}

/**
 * onnxruntime's wasm calls resolve within the task that made them, so a decode loop never lets this worker
 * read its messages: without a turn, Cancel or Pause would wait for the whole run, race or sweep (a race cut
 * by Reset ran on for about a minute). A zero-delay macrotask through a MessageChannel (setTimeout is
 * clamped to 4 ms once nested), at most every TURN_MS; the engine leaves time spent here out of tokens/s.
 */
const TURN_MS = 50;
function messageTurns(): () => Promise<void> {
  const turns = new MessageChannel();
  const last = { turn: 0 };
  return async () => {
    if (performance.now() - last.turn < TURN_MS) return;
    await new Promise<void>((resolve) => {
      turns.port1.onmessage = () => resolve();
      turns.port2.postMessage(null);
    });
    last.turn = performance.now();
  };
}

const handler = new EngineWorkerHandler({
  loadEngine,
  post: (message) => {
    // The worker's first step: bench:load's last phase before the first token.
    if (message.type === 'first-step') markPhaseOnce('first steps posted');
    postMessage(message);
  },
  readMessages: messageTurns(),
});

onmessage = (event: MessageEvent<ToWorker>) => handler.receive(event.data);
