/** The target thread in Node: loads the target from the directory (or URL) it is given and serves it (src/engine/targetThread.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { loadModel } from '../src/models/loader';
import { serveTarget, type ThreadPort } from '../src/engine/targetThread';
import { ort, readerAt } from './bundled';

const { location, threads } = workerData as { location: string; threads: number };
ort.env.wasm.numThreads = threads;
const port = parentPort as unknown as ThreadPort;
try {
  const target = await loadModel(ort, readerAt(location), 'wasm', 'target');
  serveTarget(port, target.session);
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ ready: false, error: error instanceof Error ? error.message : String(error) });
}
