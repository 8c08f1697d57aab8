/**
 * The worker thread behind serveCompile.ts: it builds xgrammar's engine once for the served vocabulary and
 * compiles each schema it is sent, answering how long the compile took or why it failed. It keeps nothing: the
 * compiled grammar lives in this thread's wasm memory, which the server cannot use, so the thread exists to
 * find out, off the event loop, whether a schema compiles within the budget. The server stops the thread at
 * the budget (a wasm compile cannot be interrupted), and after a trap, whose memory may be corrupt.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarEngine, isGrammarTrap } from '../../src/grammar/engine';
import type { GrammarVocabulary } from '../../src/grammar/vocabulary';
import { provideCommonJsGlobals } from './commonJsGlobals';
import type { CompileAnswer, CompileQuestion } from './serveCompile';

const port = parentPort;
if (port === null) throw new Error('serveCompileWorker.ts runs as a worker thread');

provideCommonJsGlobals(import.meta.url);
const setup = GrammarEngine.create(workerData as GrammarVocabulary);
setup.then(
  () => port.postMessage({ type: 'ready' } satisfies CompileAnswer),
  (error: unknown) => port.postMessage({ type: 'setup-failed', message: String(error) } satisfies CompileAnswer),
);

port.on('message', (question: CompileQuestion) => {
  void (async () => {
    const engine = await setup;
    const started = performance.now();
    try {
      const compiled = await engine.compile(question.schemaText);
      compiled.dispose();
      port.postMessage({ type: 'compiled', id: question.id, ms: performance.now() - started } satisfies CompileAnswer);
    } catch (error) {
      port.postMessage({
        type: 'refused',
        id: question.id,
        message: error instanceof Error ? error.message : String(error),
        trap: isGrammarTrap(error),
      } satisfies CompileAnswer);
    }
  })();
});
