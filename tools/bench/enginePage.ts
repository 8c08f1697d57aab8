/**
 * The engine's worker with no UI at all: loads the bundled pair and runs the given parameters `repeats`
 * times, for bench:ui to compare against the same runs with the app's UI open.
 */
import type { RunReport } from '../../src/contract/runReport';
import type { RunParams } from '../../src/contract/runParams';
import type { FromWorker, ToWorker } from '../../src/contract/protocol';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';

declare global {
  interface Window {
    speclabEngineBench: (params: RunParams, repeats: number) => Promise<number[]>;
  }
}

const worker = new Worker(new URL('../../src/engine/worker.ts', import.meta.url), { type: 'module' });
const send = (message: ToWorker) => worker.postMessage(message);
const ready = new Promise<void>((resolve, reject) => {
  worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
    if (event.data.type === 'ready') resolve();
    if (event.data.type === 'load-error') reject(new Error(event.data.message));
  });
});
send({ type: 'load', source: BUNDLED_PAIR, provider: 'auto', verifier: 'auto' });

function runOnce(runId: number, params: RunParams): Promise<RunReport> {
  return new Promise((resolve, reject) => {
    const listen = (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.type === 'done' && message.runId === runId) resolve(message.report);
      else if (message.type === 'run-error' && message.runId === runId) reject(new Error(message.message));
      else return;
      worker.removeEventListener('message', listen);
    };
    worker.addEventListener('message', listen);
    send({ type: 'run', runId, params, paused: false, stepDelayMs: 0 });
  });
}

window.speclabEngineBench = async (params, repeats) => {
  await ready;
  const rates: number[] = [];
  for (let i = 0; i < repeats; i++) rates.push((await runOnce(i + 1, params)).tokensPerSecond);
  return rates;
};
