/**
 * Hostile input, round two, against the built app: a malformed stored history record, a hostile vLLM scrape
 * and the response headers. After each, the same page runs a preset to the end without a reload.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';

describe('the built app against stored and imported hostile input', { timeout: 300_000 }, () => {
  let app: BuiltApp;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await buildAndPreview();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    expect(problems).toEqual([]);
  });

  async function runPresetToEnd(page: Page): Promise<void> {
    await page.locator('#preset').selectOption('person');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('run-status').filter({ hasText: /^(done|error)$/ }).waitFor({ timeout: 180_000 });
    await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/^Schema-valid JSON/);
  }

  it('a malformed history record is dropped with a notice, the app renders, and a preset run completes', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.goto(app.url);
    // The record from the report: a run with a null report, written straight into the app's database.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('speclab-history', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('runs', { keyPath: 'id' });
          open.onsuccess = () => {
            const transaction = open.result.transaction('runs', 'readwrite');
            transaction.objectStore('runs').put({ id: 'x', finishedAt: Date.now(), report: null });
            transaction.objectStore('runs').put({ id: 'y' });
            transaction.oncomplete = () => {
              open.result.close();
              resolve();
            };
            transaction.onerror = () => reject(new Error('could not write the record'));
          };
        }),
    );
    await page.reload();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    await expect(page.getByTestId('history-notice').textContent()).resolves.toMatch(/^2 stored runs were unreadable and were dropped/);
    await expect(page.getByTestId('panel-failed').count()).resolves.toBe(0);
    await runPresetToEnd(page);
    await expect(page.locator('[data-history-id]').count()).resolves.toBe(1);
    await page.close();
  });

  it('a 480-byte scrape with position="100000000" is refused at once, and the response headers forbid sniffing and framing by other sites', async () => {
    const response = await fetch(app.url);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.goto(app.url);
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    const scrape = [
      'vllm:spec_decode_num_drafts_total{engine="0"} 10',
      'vllm:spec_decode_num_draft_tokens_total{engine="0"} 30',
      'vllm:spec_decode_num_accepted_tokens_total{engine="0"} 12',
      'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="100000000"} 1',
      '',
    ].join('\n');
    await page.locator('#vllm-after').fill(scrape);
    await page.getByRole('button', { name: 'Read metrics' }).click();
    await expect(page.getByTestId('vllm-error').textContent()).resolves.toMatch(/needs a position label 0, 1, … below 1024 in decimal, got "100000000"/);
    await runPresetToEnd(page);
    await page.close();
  });
});
