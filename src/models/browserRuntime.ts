/**
 * onnxruntime-web for the browser, one build per execution provider: the models on wasm get the CPU-only
 * build (a 14 MB wasm instead of the 28 MB JSEP one, and a fifth of the JavaScript), the models on WebGPU
 * the JSEP build. Each is imported on first use, so a page that never asks for WebGPU never downloads or
 * compiles its runtime; both can live side by side (a provider switch in one worker). The wasm file is
 * emitted by Vite as an asset and located explicitly, so that the app works from any base path and under
 * its Content-Security-Policy; the bundles' own loader code is used (no second script fetch).
 */
import type * as ort from 'onnxruntime-web';
import cpuWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import jsepWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';
import type { ExecutionProvider, WasmThreads } from '../contract/protocol';

const runtimes = new Map<ExecutionProvider, Promise<typeof ort>>();

async function importRuntime(provider: ExecutionProvider): Promise<typeof ort> {
  const runtime = provider === 'wasm' ? await import('onnxruntime-web/wasm') : await import('onnxruntime-web');
  runtime.env.wasm.wasmPaths = { wasm: provider === 'wasm' ? cpuWasmUrl : jsepWasmUrl };
  runtime.env.wasm.numThreads = wasmThreads(globalThis).threads;
  return runtime;
}

/**
 * onnxruntime-web's wasm threads: every core where the page (or its worker) is cross-origin isolated, so that
 * SharedArrayBuffer exists (the dev server and preview send COOP/COEP, the service worker adds them on a static
 * host); one elsewhere, where threads cannot run, with the reason the status line shows (no silent fallback).
 */
export function wasmThreads(scope: {
  crossOriginIsolated?: boolean;
  navigator?: { hardwareConcurrency?: number };
}): WasmThreads {
  const cores = scope.navigator?.hardwareConcurrency;
  if (scope.crossOriginIsolated !== true)
    return {
      threads: 1,
      reason:
        'one thread: the page is not cross-origin isolated (served without COOP/COEP headers, and the service worker has not added them yet; a reload adds them), so SharedArrayBuffer and wasm threads are off',
    };
  if (cores === undefined || !Number.isInteger(cores) || cores < 2)
    return {
      threads: 1,
      reason: `one thread: the browser reports ${cores === undefined ? 'no core count' : `${cores} core`}`,
    };
  return { threads: cores, reason: null };
}

/** The onnxruntime build for `provider`, imported and configured once. */
export function runtimeFor(provider: ExecutionProvider): Promise<typeof ort> {
  let runtime = runtimes.get(provider);
  if (!runtime) {
    runtime = importRuntime(provider);
    runtimes.set(provider, runtime);
  }
  return runtime;
}
