/**
 * The engineer's bench in the built app, in headless Chromium: a 2 × 2 sweep to its heatmaps,
 * the scorecard's schema-on and schema-off rows, a pasted vLLM scrape, and the run history across a reload.
 * Token budgets are tiny: these check the plumbing and the counters' identities, not speed.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { suiteBuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';

describe('the bench views of the built app', () => {
  const suite = suiteBuiltApp({ width: 1280, height: 900 });
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = suite.page();
    await page
      .getByRole('button', { name: 'Run', exact: true })
      .and(page.locator(':enabled'))
      .waitFor({ timeout: 240_000 });
    await page.locator('#preset').selectOption('sentiment');
    await page.locator('#max-tokens').fill('12');
  }, 300_000);

  it('a 2 × 2 sweep completes with three heatmaps, each with its best cell marked, and consistent exports', async () => {
    const sweep = page.getByTestId('sweep');
    await sweep.locator('#sweep-K').fill('1,2');
    await sweep.locator('#sweep-L').fill('2,3');
    await sweep.locator('#sweep-max-tokens').selectOption('12');
    await sweep.getByRole('button', { name: 'Run sweep' }).click();
    await sweep.locator('[data-testid="sweep-status"][data-status="done"]').waitFor({ timeout: 300_000 });
    for (const metric of ['meanAcceptanceLength', 'speedup', 'draftYield']) {
      const heatmap = sweep.locator(`[data-heatmap="${metric}"]`);
      await expect(heatmap.locator('td[data-cell]').count()).resolves.toBe(4);
      await expect(heatmap.locator('td[data-best]').count()).resolves.toBe(1);
    }
    await expect(sweep.locator('progress').getAttribute('value')).resolves.toBe(
      await sweep.locator('progress').getAttribute('max'),
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      sweep.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
      cells: {
        K: number;
        L: number;
        R: number;
        I: number;
        D: number;
        A: number;
        steps: number;
        acceptance_histogram: number[];
      }[];
    };
    expect(exported.cells.map((cell) => `${cell.K}x${cell.L}`)).toEqual(['1x2', '1x3', '2x2', '2x3']);
    for (const cell of exported.cells) {
      expect(cell.D).toBe(cell.R - cell.I);
      expect(cell.A).toBeLessThanOrEqual(cell.D);
      expect(cell.acceptance_histogram.reduce((a, b) => a + b, 0)).toBe(cell.steps);
    }
    await sweep.screenshot({ path: `${SCREENSHOTS}/bench-sweep.png` });
  });

  it('the scorecard shows a schema-on and a schema-off row per family', async () => {
    const card = page.getByTestId('scorecard');
    await card.getByRole('button', { name: 'Run scorecard' }).click();
    const table = card.getByTestId('scorecard-table');
    await table.waitFor({ timeout: 300_000 });
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => `${tr.getAttribute('data-preset')}:${tr.getAttribute('data-constrained')}`),
      );
    expect(rows).toEqual(['sentiment:true', 'sentiment:false', 'person:true', 'person:false']);
    for (const row of await table.locator('tbody tr').all()) {
      const read = async (column: string) => Number(await row.locator(`[data-column="${column}"]`).textContent());
      expect(await read('D')).toBe((await read('R')) - (await read('I')));
      expect(await read('A')).toBeLessThanOrEqual(await read('D'));
      const histogram = ((await row.locator('[data-column="acceptance_histogram"]').textContent()) ?? '')
        .split('·')
        .map(Number);
      expect(histogram.reduce((a, b) => a + b, 0)).toBe(await read('steps'));
    }
    await card.screenshot({ path: `${SCREENSHOTS}/bench-scorecard.png` });
  });

  it('a pasted vLLM scrape shows its counters, and a bad one its message', async () => {
    const view = page.getByTestId('vllm-import');
    await view.locator('#vllm-after').fill(readFileSync('test/fixtures/vllm/after.prom', 'utf8'));
    await view.getByRole('button', { name: 'Read metrics' }).click();
    const counters = view.getByTestId('vllm-counters');
    await expect(counters.locator('[data-figure="num_drafts"]').textContent()).resolves.toBe('100');
    await expect(counters.locator('[data-figure="D"]').textContent()).resolves.toBe('295');
    await expect(counters.locator('[data-figure="A"]').textContent()).resolves.toBe('180');
    await expect(counters.locator('[data-figure="mean-length"]').textContent()).resolves.toBe('2.800');
    await expect(counters.locator('[data-figure="R"]').textContent()).resolves.toBe('not in vLLM’s counters');
    await expect(view.locator('[data-chart="vllm-per-position"] .recharts-bar-rectangle').count()).resolves.toBe(3);
    await view
      .locator('#vllm-before')
      .fill(readFileSync('test/fixtures/vllm/after.prom', 'utf8').replace('} 60.0', '} 600.0'));
    await view.getByRole('button', { name: 'Read metrics' }).click();
    await expect(view.getByTestId('vllm-error').textContent()).resolves.toMatch(/went backwards between the scrapes/);
    await view.locator('#vllm-before').fill('');
    await view.locator('#vllm-after').fill('<html><body>502 Bad Gateway</body></html>');
    await view.getByRole('button', { name: 'Read metrics' }).click();
    await expect(view.getByTestId('vllm-error').textContent()).resolves.toMatch(/not Prometheus text/);
  });

  it('keeps finished runs across a reload, compares two, and clears them', async () => {
    for (const seed of ['1', '2']) {
      await page.locator('#seed').fill(seed);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page
        .getByTestId('run-status')
        .filter({ hasText: /^done$/ })
        .waitFor({ timeout: 180_000 });
    }
    await page.reload();
    const history = page.getByTestId('history');
    await history.locator('tbody tr').nth(1).waitFor({ timeout: 60_000 });
    const boxes = history.getByRole('checkbox');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    const compare = history.getByTestId('history-compare');
    await expect(compare.locator('h3').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^A: .* seed 2$/),
      expect.stringMatching(/^B: .* seed 1$/),
    ]);
    await expect(
      compare.locator('[data-chart="compare-histogram"] .recharts-bar-rectangle').count(),
    ).resolves.toBeGreaterThan(0);
    await history.screenshot({ path: `${SCREENSHOTS}/bench-history.png` });
    await history.getByRole('button', { name: 'Clear history' }).click();
    await page.reload();
    await page
      .getByTestId('history')
      .getByText(/No finished runs yet/)
      .waitFor({ timeout: 60_000 });
  });

  it('logged no errors', () => {
    expect(suite.problems).toEqual([]);
  });
});
