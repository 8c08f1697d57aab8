import { runtimeFor } from '../../src/models/browserRuntime';
import { BUNDLED_FLOAT_PAIR, BUNDLED_PAIR } from '../../src/contract/modelPairs';
import { httpReader } from '../../src/models/httpReader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: (repeats: number) => Promise<ModelsBenchReport[] | { error: string }>;
  }
}

const readers = (pair: typeof BUNDLED_PAIR) => ({ draft: httpReader(pair.draftUrl, false), target: httpReader(pair.targetUrl, false) });
// The int8 target gives the right logits on wasm only (its manifest says so); WebGPU times the float32 target it was quantized from.
window.speclabModelsBench = (repeats) =>
  (async () => [
    await runModelsBench(await runtimeFor('webgpu'), readers(BUNDLED_FLOAT_PAIR), 'webgpu', repeats, 'bundled float32 target (the int8 one runs on wasm only)'),
    await runModelsBench(await runtimeFor('wasm'), readers(BUNDLED_PAIR), 'wasm', repeats),
  ])().catch((error: unknown) => ({ error: String(error) }));
