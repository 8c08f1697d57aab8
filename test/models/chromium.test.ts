import { describe, expect, it } from 'vitest';
import { suiteDevPages } from '../support/browser';
import type { BrowserModelsReport } from '../browser/modelsPage';

describe('the bundled models on onnxruntime-web’s WebGPU EP in headless Chromium', () => {
  const pages = suiteDevPages();

  it('match the golden logits, and the GPU-resident KV cache matches recomputation after broadcast, select and trim', async () => {
    const page = await pages.open('test/browser/models.html');
    const report = (await page.evaluate(() => window.speclabModels)) as BrowserModelsReport | { error: string };
    if ('error' in report) throw new Error(`the browser run failed: ${report.error}`);
    for (const name of ['speclab-draft', 'speclab-target']) {
      const checks = report[name];
      expect(checks?.provider).toBe('webgpu');
      expect(checks?.cacheOnGpu, name).toBe(true);
      for (const key of ['golden', 'incremental', 'batched', 'trimmed'] as const) expect(checks?.[key], `${name} ${key}`).toBeLessThan(1e-4);
    }
  });
});
