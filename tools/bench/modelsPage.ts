import * as ort from 'onnxruntime-web';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';
import mjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.mjs?url';
import { httpReader } from '../../src/models/httpReader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: Promise<ModelsBenchReport[] | { error: string }>;
  }
}

ort.env.wasm.wasmPaths = { wasm: wasmUrl, mjs: mjsUrl };
ort.env.wasm.numThreads = 1;
const readers = { draft: httpReader('/models/speclab-draft/', false), target: httpReader('/models/speclab-target/', false) };
window.speclabModelsBench = (async () => [await runModelsBench(ort, readers, 'webgpu'), await runModelsBench(ort, readers, 'wasm')])().catch((error: unknown) => ({
  error: String(error),
}));
