/**
 * onnxruntime-web for the browser: its wasm files are emitted by Vite as assets and located explicitly,
 * so that the app works from any base path and under its Content-Security-Policy.
 */
import * as ort from 'onnxruntime-web';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';
import mjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.mjs?url';

ort.env.wasm.wasmPaths = { wasm: wasmUrl, mjs: mjsUrl };
// One thread: the engine already runs in a worker, and SwiftShader machines have few cores to share.
ort.env.wasm.numThreads = 1;

export { ort };
