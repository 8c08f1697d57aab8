/**
 * Hostile input, round two, against the built app, in one page's life to keep the suite short: a malformed
 * stored history record, a hostile vLLM scrape, then a preset run to the end without a reload; a clear in a
 * second tab reaches the first; and the response headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';
import { CONTENT_SECURITY_POLICY } from '../../src/contract/csp';

/** Writes records straight into the app's history database, as a person with the developer tools could. */
function writeRecords(records: unknown[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const open = indexedDB.open('speclab-history', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('runs', { keyPath: 'id' });
    open.onsuccess = () => {
      const transaction = open.result.transaction('runs', 'readwrite');
      for (const record of records) transaction.objectStore('runs').put(record);
      transaction.oncomplete = () => {
        open.result.close();
        resolve();
      };
      transaction.onerror = () => reject(new Error('could not write the records'));
    };
  });
}

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

  it('drops malformed history records with a notice, refuses a position="100000000" scrape, then runs a preset to the end; a clear in another tab reaches this one', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.goto(app.url);
    await page.evaluate(writeRecords, [{ id: 'x', finishedAt: Date.now(), report: null }, { id: 'y' }]);
    await page.reload();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    await expect(page.getByTestId('history-notice').textContent()).resolves.toMatch(/^2 stored runs were unreadable and were dropped/);
    await expect(page.getByTestId('panel-failed').count()).resolves.toBe(0);

    // 480 bytes that made the tab grow to 4.4 GB.
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

    await page.locator('#preset').selectOption('person');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('run-status').filter({ hasText: /^(done|error)$/ }).waitFor({ timeout: 180_000 });
    await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/^Schema-valid JSON/);
    await expect(page.locator('[data-history-id]').count()).resolves.toBe(1);

    const other = await context.newPage();
    other.on('pageerror', (error) => problems.push(`other tab: ${error.message}`));
    await other.goto(app.url);
    await other.locator('[data-history-id]').first().waitFor();
    await other.getByRole('button', { name: 'Clear history' }).click();
    await page.getByTestId('history-notice').filter({ hasText: 'The history was cleared in another tab.' }).waitFor();
    await expect(page.locator('[data-history-id]').count()).resolves.toBe(0);
    await context.close();
  });

  it('sends nosniff, and forbids framing by other sites but of embed.html (frame-ancestors * file:)', async () => {
    const response = await fetch(app.url);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('content-security-policy')).not.toMatch(/frame-ancestors/);
    const embed = await fetch(`${app.url}embed.html?view=tree`);
    expect(embed.headers.get('x-content-type-options')).toBe('nosniff');
    expect(embed.headers.get('x-frame-options')).toBeNull();
    expect(embed.headers.get('content-security-policy')).toBe(`${CONTENT_SECURITY_POLICY}; frame-ancestors * file:`);
    await expect(embed.text()).resolves.toMatch(/<div id="root" data-embed><\/div>/);
  });
});
