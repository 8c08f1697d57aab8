import { describe, expect, it } from 'vitest';
import { wasmThreads } from '../../src/models/browserRuntime';

describe("onnxruntime-web's wasm threads in the page", () => {
  it('every core where the page is cross-origin isolated, one where SharedArrayBuffer cannot exist', () => {
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 8 } })).toBe(8);
    expect(wasmThreads({ crossOriginIsolated: false, navigator: { hardwareConcurrency: 8 } })).toBe(1);
    expect(wasmThreads({ navigator: { hardwareConcurrency: 8 } })).toBe(1);
    expect(wasmThreads({ crossOriginIsolated: true })).toBe(1);
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 2.5 } })).toBe(1);
  });
});
