/** Starts the target on a worker thread of its own in Node (src/engine/targetThread.ts says why). */
import { Worker } from 'node:worker_threads';
import { TargetThreadClient, type ThreadPort } from '../src/engine/targetThread';

export interface NodeTargetThread {
  client: TargetThreadClient;
  terminate(): Promise<void>;
}

/** The target model at `location` (a directory or URL) on a new thread, onnxruntime there with `threads` threads. */
export async function startTargetThread(location: string, threads: number): Promise<NodeTargetThread> {
  const worker = new Worker(new URL('./targetThreadBoot.mjs', import.meta.url), {
    workerData: { entry: new URL('./targetThreadMain.ts', import.meta.url).href, location, threads },
  });
  await new Promise<void>((resolve, reject) => {
    const first = (message: { ready?: boolean; error?: string }) => {
      if (message.ready === undefined) return;
      worker.off('message', first);
      if (message.ready) resolve();
      else reject(new Error(`the target thread could not load ${location}: ${message.error}`));
    };
    worker.on('message', first);
    worker.once('error', reject);
  });
  const client = new TargetThreadClient(worker as unknown as ThreadPort);
  let ending = false;
  worker.on('error', (error) => client.lost(`failed: ${error.message}`));
  worker.on('exit', (code) => {
    if (!ending) client.lost(`exited (code ${code})`);
  });
  return {
    client,
    terminate: async () => {
      ending = true;
      await worker.terminate();
    },
  };
}
