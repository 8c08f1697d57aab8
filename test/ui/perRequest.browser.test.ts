/**
 * The vLLM view of the built app, in headless Chromium: a per-request file imported through its file input shows
 * the pooled figures beside the median and p90 over requests and the histogram of the requests' acceptance
 * lengths (figures by hand in test/tools/importResponses.test.ts); a hostile file shows its one-line message and
 * its text is never markup.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { suiteBuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';

describe('per-request import in the vLLM view', () => {
  const suite = suiteBuiltApp({ width: 1280, height: 900 });
  let page: Page;

  beforeAll(() => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = suite.page();
  });

  it('vLLM responses: the pooled A/D and length beside the median and p90, and the histogram of requests', async () => {
    const view = page.getByTestId('per-request-import');
    await view.locator('#per-request-file').setInputFiles('test/fixtures/responses/vllm-responses.jsonl');
    const table = view.getByTestId('per-request-table');
    const figure = (key: string) => table.locator(`[data-figure="${key}"][data-model="test-model"]`).textContent();
    await expect(figure('requests')).resolves.toBe('3');
    await expect(figure('pooled-rate')).resolves.toBe('11.1%');
    await expect(figure('request-rate')).resolves.toBe('10.0% / 50.0%');
    await expect(figure('pooled-length')).resolves.toBe('1.333');
    await expect(figure('request-length')).resolves.toBe('1.300 / 2.500');
    await expect(figure('histogram')).resolves.toBe('47, 5, 1, 4');
    await expect(view.getByTestId('per-request-lines').textContent()).resolves.toMatch(
      /^3 requests with counters; 2 lines without them .*; 1 failed requests\.$/,
    );
    const chart = view.locator('[data-chart="per-request-length"]');
    // Lengths 1.233, 1.3 and 2.5 in bins of 0.1 from 1.2: three bars with a request, the bins between them empty.
    await expect(chart.locator('figcaption').textContent()).resolves.toMatch(/bins of 0\.1.*pooled figure \(1\.333/);
    await expect(chart.locator('.recharts-bar-rectangle').count()).resolves.toBe(3);
    await expect(chart.locator('.recharts-reference-line').count()).resolves.toBe(2);
    await expect(chart.locator('.recharts-label').allTextContents()).resolves.toEqual(
      expect.arrayContaining(['acceptance length (bin start)', 'requests', 'pooled', 'median']),
    );
    await view.scrollIntoViewIfNeeded();
    await view.screenshot({ path: `${SCREENSHOTS}/per-request-import.png` });
  });

  it("AIPerf's profile_export.jsonl reads into the same figures", async () => {
    const view = page.getByTestId('per-request-import');
    await view.locator('#per-request-file').setInputFiles('test/fixtures/responses/aiperf-profile_export.jsonl');
    const figure = (key: string) => view.locator(`[data-figure="${key}"][data-model="(no model field)"]`).textContent();
    await expect(figure('pooled-length')).resolves.toBe('2.000');
    await expect(figure('request-length')).resolves.toBe('1.500 / 3.250');
    await expect(figure('histogram')).resolves.toBe('13, 7, 4, 3, 1');
    await view.screenshot({ path: `${SCREENSHOTS}/per-request-import-aiperf.png` });
  });

  it('a hostile file: its one-line message, and markup in it stays text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'speclab-per-request-'));
    const path = join(dir, '<img src=x onerror=alert(1)>.jsonl');
    const spec = { num_spec_steps: 2, num_draft_tokens: 6, num_accepted_draft_tokens: 3, acceptance_histogram: [2] };
    writeFileSync(path, JSON.stringify({ id: 'a', model: '<b>m</b>', metrics: { speculative_decoding: spec } }));
    const view = page.getByTestId('per-request-import');
    await view.locator('#per-request-file').setInputFiles(path);
    await expect(view.getByTestId('per-request-error').textContent()).resolves.toBe(
      'the file "<img src=x onerror=alert(1)>.jsonl" line 1: metrics.speculative_decoding: acceptance_histogram accepts 0 drafts (Σ j × count), not num_accepted_draft_tokens 3',
    );
    await expect(view.locator('img, b').count()).resolves.toBe(0);
    const valid = join(dir, 'valid.jsonl');
    writeFileSync(
      valid,
      JSON.stringify({
        id: 'a',
        model: '<b>m</b>',
        metrics: { speculative_decoding: { ...spec, acceptance_histogram: [0, 1, 1] } },
      }),
    );
    await view.locator('#per-request-file').setInputFiles(valid);
    await expect(view.locator('th[scope="col"]').nth(1).textContent()).resolves.toBe('<b>m</b>');
    await expect(view.locator('b').count()).resolves.toBe(0);
    expect(suite.problems).toEqual([]);
  });
});
