import { beforeAll, describe, expect, it } from 'vitest';
import { suiteDevPages } from '../support/browser';
import { goldenTolerance } from '../support/modelChecks';
import type { BrowserModelsReport, TreeChecks } from '../browser/modelsPage';

const NAMES = ['speclab-draft', 'speclab-target-int8', 'speclab-target'];
/** Its manifest limits it to wasm: the WebGPU EP gives wrong logits for its int8 products. */
const WASM_ONLY = 'speclab-target-int8';
const REFUSAL = /^speclab-target-int8 runs on wasm only: onnxruntime-web's WebGPU EP gives wrong logits/;

describe('the bundled models on onnxruntime-web’s WebGPU EP in headless Chromium', () => {
  const pages = suiteDevPages();

  // One page runs every check (test/browser/modelsPage.ts says why); each test reads its part.
  let checks: BrowserModelsReport;
  beforeAll(async () => {
    const page = await pages.open('test/browser/models.html');
    const result = await page.evaluate(() => window.speclabModels);
    if ('error' in result) throw new Error(`the browser run failed: ${String(result.error)}`);
    await page.close();
    checks = result as BrowserModelsReport;
  });

  it('match the golden logits, and the GPU-resident KV cache matches recomputation after broadcast, select and trim', () => {
    for (const name of NAMES) {
      const onGpu = name !== WASM_ONLY;
      expect(checks[name]?.webgpuRefusal ?? null, name).toEqual(onGpu ? null : expect.stringMatching(REFUSAL));
      expect(checks[name]?.provider).toBe(onGpu ? 'webgpu' : 'wasm');
      expect(checks[name]?.cacheOnGpu, name).toBe(onGpu);
      expect(checks[name]?.golden, `${name} golden`).toBeLessThan(goldenTolerance(name));
      for (const key of ['incremental', 'batched', 'trimmed'] as const)
        expect(checks[name]?.[key], `${name} ${key}`).toBeLessThan(1e-4);
    }
  });

  it('score a token tree in one run as the batched path does, and keep one path as a fresh prefill would, on wasm and WebGPU', () => {
    for (const name of NAMES) {
      const refused = checks[name]?.tree.webgpu;
      if (name === WASM_ONLY) expect(refused && 'refusal' in refused ? refused.refusal : null).toMatch(REFUSAL);
      for (const provider of name === WASM_ONLY ? (['wasm'] as const) : (['wasm', 'webgpu'] as const)) {
        const tree = checks[name]?.tree[provider] as TreeChecks | undefined;
        expect(tree?.cacheOnGpu, `${name} ${provider}: the cache on the GPU`).toBe(provider === 'webgpu');
        expect(tree?.tree, `${name} ${provider}: tree against batched`).toBeLessThan(1e-5);
        expect(tree?.kept, `${name} ${provider}: kept path against a fresh prefill`).toBeLessThan(1e-5);
      }
    }
  });

  // Float32 compute on both sides, as the float32 target's 1e-4. The shifted control (each feature fed with
  // another row's token) must land far outside it, so a head fed the wrong inputs fails here.
  it('run the draft head on WebGPU beside its target: its golden rows within 1e-4, the target’s WebGPU features what the head reads', () => {
    const head = checks['speclab-target']?.head;
    expect(head?.logits, 'head logits').toBeLessThan(1e-4);
    expect(head?.featuresOut, 'head features_out').toBeLessThan(1e-4);
    expect(head?.targetFeatures, 'target features against the head’s features_in').toBeLessThan(1e-4);
    expect(head?.shiftedLogits, 'head logits with the tokens shifted').toBeGreaterThan(1);
  });
});
