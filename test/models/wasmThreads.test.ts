import { describe, expect, it } from 'vitest';
import { wasmThreads } from '../../src/models/browserRuntime';

describe("onnxruntime-web's wasm threads in the page", () => {
  it('every core where the page is cross-origin isolated, one where SharedArrayBuffer cannot exist', () => {
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 8 } })).toEqual({
      threads: 8,
      reason: null,
    });
    for (const scope of [
      { crossOriginIsolated: false, navigator: { hardwareConcurrency: 8 } },
      { navigator: { hardwareConcurrency: 8 } },
    ])
      expect(wasmThreads(scope)).toEqual({ threads: 1, reason: expect.stringMatching(/not cross-origin isolated/) });
    expect(wasmThreads({ crossOriginIsolated: true })).toEqual({
      threads: 1,
      reason: expect.stringMatching(/no core count/),
    });
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 2.5 } }).threads).toBe(1);
    expect(wasmThreads({ crossOriginIsolated: true, navigator: { hardwareConcurrency: 1 } }).reason).toBe(
      'one thread: the browser reports 1 core',
    );
  });
});
