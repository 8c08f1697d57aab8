import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';

/** The counters the page shows, and the invariants they must keep whatever happened to the run. */
async function expectConsistentCounters(page: Page): Promise<number> {
  const read = async (name: string) => (await page.locator(`[data-counter="${name}"]`).textContent()) ?? '';
  const [R, I, D, A, steps] = await Promise.all(
    ['R', 'I', 'D', 'A', 'steps'].map(async (name) => Number(await read(name))),
  );
  const histogram = (await read('histogram')).split('·').map(Number);
  expect(D).toBe((R as number) - (I as number));
  expect(A).toBeLessThanOrEqual(D as number);
  expect(histogram.reduce((a, b) => a + b, 0)).toBe(steps);
  return steps as number;
}

// The built app under ?test-hooks, verifying with the WGSL kernels (SwiftShader) when the device is lost.
describe('a GPU device lost mid-run, in the built app', () => {
  let app: BuiltApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = await buildAndPreview();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.goto(`${app.url}?test-hooks`);
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('ends the run with a clear message, falls back to the CPU twin with consistent counters, and the next run works', async () => {
    await page.locator('#verifier-choice').selectOption('gpu');
    await page
      .getByTestId('verifier')
      .filter({ hasText: /^Verifier: WGSL on / })
      .waitFor({ timeout: 120_000 });
    await page.locator('#preset').selectOption('person');
    // Two whole steps on the GPU, then the device goes while the run waits for the third.
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.locator('[data-counter="steps"]').filter({ hasText: /^2$/ }).waitFor({ timeout: 120_000 });
    await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor({ timeout: 120_000 });
    await page.evaluate(() =>
      (window as unknown as { speclabTestHooks: { loseGpuDevice(): void } }).speclabTestHooks.loseGpuDevice(),
    );
    await page
      .getByRole('button', { name: 'Step', exact: true })
      .click({ timeout: 5_000 })
      .catch(async (error: unknown) => {
        await page.screenshot({ path: `${SCREENSHOTS}/device-lost-step-refused.png` });
        throw new Error(`Step refused after the loss (${String(error)}); page problems: ${problems.join(' | ')}`);
      });
    await page.getByTestId('run-status').filter({ hasText: 'error' }).waitFor({ timeout: 120_000 });
    await expect(page.getByTestId('run-error').textContent()).resolves.toMatch(
      /the GPU device was lost: .*; continuing on the CPU twin/,
    );
    await page
      .getByTestId('verifier')
      .filter({ hasText: /^Verifier: CPU twin \(the GPU device was lost/ })
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: `${SCREENSHOTS}/device-lost.png` });
    expect(await expectConsistentCounters(page)).toBe(2);

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page
      .getByTestId('run-status')
      .filter({ hasText: /^(done|error)$/ })
      .waitFor({ timeout: 180_000 });
    await expect(page.getByTestId('run-error').count()).resolves.toBe(0);
    await expect(page.getByTestId('verifier').textContent()).resolves.toMatch(/^Verifier: CPU twin/);
    expect(await expectConsistentCounters(page)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 600_000);

  it('has no test hook without the query flag', async () => {
    const other = await browser.newPage();
    await other.goto(app.url);
    await expect(other.evaluate(() => 'speclabTestHooks' in window)).resolves.toBe(false);
    await other.close();
  });
});
