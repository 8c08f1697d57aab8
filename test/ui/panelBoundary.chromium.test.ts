/**
 * A panel that fails while rendering, in the whole app in headless Chromium (test/browser/panelBoundary.html:
 * the app on a recorder for a worker): runs no check has seen make the history's comparison throw. The
 * panel shows the error and its ways out, the rest of the page keeps working, and each way out works.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ToWorker } from '../../src/contract/protocol';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';
import { recordProblems, suiteDevPages } from '../support/browser';

const failed = (page: Page) => page.getByTestId('panel-failed');

/** Puts two unchecked runs in the history and ticks both: the comparison throws, and the panel shows why. */
async function breakHistoryPanel(page: Page): Promise<void> {
  await page.evaluate(() => window.speclabPanelTest.putUncheckedRuns());
  const boxes = page.locator('[data-history-id] input[type="checkbox"]');
  await boxes.nth(0).check();
  // A click, not check(): the box is gone once the panel has failed.
  await boxes.nth(1).click();
  await expect(failed(page).getAttribute('data-panel')).resolves.toBe('run history');
  await expect(failed(page).textContent()).resolves.toMatch(
    /^The run history panel failed: Cannot read properties of undefined \(reading '\w+'\)\. The rest of the page still works\./,
  );
}

/** Presses one of the failed panel's buttons: the panel is back, and the store was asked what the button says. */
async function wayOut(page: Page, button: string): Promise<ToWorker | undefined> {
  const before = await page.evaluate(() => window.speclabPanelTest.sent.length);
  await failed(page).getByRole('button', { name: button, exact: true }).click();
  await page.getByTestId('history').waitFor();
  await expect(failed(page).count()).resolves.toBe(0);
  const sent = await page.evaluate(() => window.speclabPanelTest.sent);
  return sent.length > before ? sent.at(-1) : undefined;
}

describe('a panel that fails while rendering', () => {
  const pages = suiteDevPages();

  it('shows the error in that panel alone, keeps the page working, and Try again, Reset, Clear history and Load the bundled pair each bring it back', async () => {
    const page = await pages.open('test/browser/panelBoundary.html');
    const problems = recordProblems(page);
    await page.getByTestId('history').waitFor();
    await breakHistoryPanel(page);

    // The rest of the page: every other panel is there, and one still works (a scrape read and drawn).
    await expect(failed(page).count()).resolves.toBe(1);
    await expect(page.getByTestId('sweep').count()).resolves.toBe(1);
    await page
      .locator('#vllm-after')
      .fill(
        [
          'vllm:spec_decode_num_drafts_total{engine="0"} 10',
          'vllm:spec_decode_num_draft_tokens_total{engine="0"} 30',
          'vllm:spec_decode_num_accepted_tokens_total{engine="0"} 12',
          '',
        ].join('\n'),
      );
    await page.getByRole('button', { name: 'Read metrics' }).click();
    await page.getByTestId('vllm-source').waitFor();
    await expect(page.getByTestId('vllm-error').count()).resolves.toBe(0);

    // Try again renders the panel afresh (nothing ticked), asking the store for nothing.
    await expect(wayOut(page, 'Try again')).resolves.toBeUndefined();
    await expect(page.locator('[data-history-id]').count()).resolves.toBe(2);
    await breakHistoryPanel(page);
    await expect(wayOut(page, 'Reset')).resolves.toEqual({ type: 'cancel' });
    await breakHistoryPanel(page);
    await expect(wayOut(page, 'Clear history')).resolves.toBeUndefined();
    await expect(page.locator('[data-history-id]').count()).resolves.toBe(0);
    await breakHistoryPanel(page);
    await expect(wayOut(page, 'Load the bundled pair')).resolves.toMatchObject({ type: 'load', source: BUNDLED_PAIR });

    // The failure is logged with its panel's name; nothing else went wrong on the page.
    expect(
      problems.filter(
        (problem) =>
          !/run history panel failed|Cannot read properties of undefined|The above error occurred/.test(problem),
      ),
    ).toEqual([]);
  });
});
