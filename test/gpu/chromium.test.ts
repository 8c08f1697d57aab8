import { describe, expect, it } from 'vitest';
import { GPU_VERIFIER_IDS } from '../../src/core/verify';
import { suiteDevPages } from '../support/browser';
import type { BrowserTwinReport } from '../browser/gpuTwin';

const PROBLEMS_PER_METHOD = 200;

describe('GPU verifier against the CPU reference in headless Chromium (--enable-unsafe-webgpu)', () => {
  const pages = suiteDevPages();

  it(`decides ${PROBLEMS_PER_METHOD} seeded problems per method as the CPU does`, async () => {
    const page = await pages.open(`test/browser/gpu-twin.html?problems=${PROBLEMS_PER_METHOD}`);
    const report = (await page.evaluate(() => window.speclabTwin)) as BrowserTwinReport | { error: string };
    if ('error' in report) throw new Error(`the browser run failed: ${report.error}`);
    console.info(
      `Chromium adapter: ${report.adapter}; ties per method: ${GPU_VERIFIER_IDS.map((m) => `${m} ${report.results[m]?.ties}`).join(', ')}`,
    );
    for (const method of GPU_VERIFIER_IDS) expect(report.results[method]?.unexplained, method).toEqual([]);
  });
});
