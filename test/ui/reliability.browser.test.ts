/**
 * Nothing hangs, nothing crashes: the built app in headless Chromium against hostile input. A model server
 * that never answers, a schema whose compile would take most of a minute, share links with impossible
 * values, number fields typed freely, races cut short.
 */
import { mkdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY } from '../../src/contract/csp';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';

/** Model files under /hang/ are requested and never answered. */
const hanging: ServerResponse[] = [];
const hangingModelServer: Plugin = {
  name: 'hanging-model-server',
  configurePreviewServer(server) {
    server.middlewares.use('/hang/', (_request, response) => {
      hanging.push(response);
    });
  },
};

/** Every stage the download banner showed, with its text, in order. */
function recordLoadBanner() {
  const seen: { phase: string; text: string }[] = [];
  (window as unknown as { loadBanner: typeof seen }).loadBanner = seen;
  new MutationObserver(() => {
    const banner = document.querySelector('[data-testid="load-progress"]');
    if (!banner) return;
    const entry = { phase: banner.getAttribute('data-phase') ?? '', text: banner.textContent ?? '' };
    const last = seen.at(-1);
    if (last?.phase !== entry.phase || last.text !== entry.text) seen.push(entry);
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/** How each job the worker ran ended, as the worker said it: a race's result or its cancellation. */
function recordJobEndings() {
  const endings: string[] = [];
  (window as unknown as { jobEndings: string[] }).jobEndings = endings;
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...args: ConstructorParameters<typeof Worker>) {
      super(...args);
      this.addEventListener('message', (event: MessageEvent<{ type: string; message?: string }>) => {
        if (event.data.type === 'race-done') endings.push('race-done');
        if (event.data.type === 'run-error') endings.push(`run-error: ${event.data.message ?? ''}`);
      });
    }
  };
}

const wideSchema = (properties: number) =>
  JSON.stringify({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`field_${i}`, { type: 'integer' }])),
  });

describe('the built app under hostile input', { timeout: 300_000 }, () => {
  let app: BuiltApp;
  let browser: Browser;
  const problems: string[] = [];

  async function openApp(hash = '', waitForModels = true): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.addInitScript(recordLoadBanner);
    await page.addInitScript(recordJobEndings);
    await page.goto(`${app.url}${hash}`);
    if (waitForModels) await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    return page;
  }

  const runButton = (page: Page) => page.getByRole('button', { name: 'Run', exact: true });

  async function runPresetToEnd(page: Page, preset: string): Promise<void> {
    await page.locator('#preset').selectOption(preset);
    await runButton(page).click();
    await page
      .getByTestId('run-status')
      .filter({ hasText: /^(done|error)$/ })
      .waitFor({ timeout: 180_000 });
    await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/^Schema-valid JSON/);
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = await buildAndPreview([hangingModelServer]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const response of hanging) response.destroy();
    await browser?.close();
    await app?.close();
    expect(problems).toEqual([]);
  });

  it('shows real download progress: bytes known from the start, then hash check, session creation (the grammar engine is built after ready)', async () => {
    const page = await openApp();
    const seen = await page.evaluate(
      () => (window as unknown as { loadBanner: { phase: string; text: string }[] }).loadBanner,
    );
    const phases = seen.map((entry) => entry.phase).filter((phase, i, all) => phase !== all[i - 1]);
    for (const phase of ['download', 'hash', 'session']) expect(phases, JSON.stringify(seen)).toContain(phase);
    expect(phases.at(-1)).toBe('session');
    // Sizes come from the manifest before the first byte: never "0.0 / 0.0 MiB", and the model's MiB show at once.
    const downloading = seen.filter((entry) => entry.phase === 'download' && / of /.test(entry.text));
    expect(downloading.length).toBeGreaterThan(0);
    for (const entry of downloading)
      expect(entry.text).toMatch(/^Downloading: \d+(\.\d)? (KiB|MiB) of [1-9][\d.]* (KiB|MiB) $/);
    expect(downloading.some((entry) => / of \d+\.\d MiB/.test(entry.text))).toBe(true);
    await page.close();
  });

  it('K: typing "1", backspace, "2" leaves 2; K = 100 shows the range and disables Run until fixed', async () => {
    const page = await openApp();
    const K = page.locator('#K');
    await K.click();
    await K.press('ControlOrMeta+a');
    await K.pressSequentially('1');
    await K.press('Backspace');
    await expect(K.inputValue()).resolves.toBe('');
    await K.pressSequentially('2');
    await K.press('Tab');
    await expect(K.inputValue()).resolves.toBe('2');
    await expect(page.getByTestId('field-error-K').count()).resolves.toBe(0);

    await K.fill('100');
    await K.press('Tab');
    await expect(page.getByTestId('field-error-K').textContent()).resolves.toBe(
      'K drafts must be an integer from 1 to 8; got 100',
    );
    await expect(K.inputValue()).resolves.toBe('100');
    await expect(runButton(page).isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/reliability-k-out-of-range.png` });
    await K.fill('3');
    await expect(page.getByTestId('field-error-K').count()).resolves.toBe(0);
    await expect(runButton(page).isEnabled()).resolves.toBe(true);

    // "the prompt is empty" goes once a preset refills the prompt.
    await page.locator('#prompt').fill('');
    await runButton(page).click();
    await expect(page.getByTestId('field-error-prompt').textContent()).resolves.toBe('the prompt is empty');
    await page.locator('#preset').selectOption('sentiment');
    await expect(page.getByTestId('field-error-prompt').count()).resolves.toBe(0);
    await expect(runButton(page).isEnabled()).resolves.toBe(true);
    await page.close();
  });

  it.each(['0', '2.5', '1e9'])(
    'a share link with L = %s loads with L marked, Run disabled, nothing thrown',
    async (L) => {
      const page = await openApp(
        `#run?method=spectr-gbv&K=3&L=${L}&t=1&seed=1&max=32&drafting=validate&preset=person&prompt=Text%3A+x%0AJSON%3A+`,
        false,
      );
      await expect(page.getByTestId('field-error-L').textContent()).resolves.toMatch(
        new RegExp(
          `^the link's L: L draft length must be an integer from 1 to 8; got ${L === '1e9' ? '1000000000' : L}$`,
        ),
      );
      await expect(page.locator('#L').inputValue()).resolves.toBe(L);
      await expect(page.locator('#L').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(runButton(page).isDisabled()).resolves.toBe(true);
      await page.close();
    },
  );

  it('a race started while a stepped run is paused ends that run cleanly and keeps it on screen; Cancel race stops the race and a Run then completes', async () => {
    const page = await openApp();
    const scorecard = page.locator('dd').filter({ hasText: /\(truncated \d+, dead ends \d+\)$/ });
    await page.locator('#preset').selectOption('order');
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page
      .getByTestId('run-status')
      .filter({ hasText: /^paused$/ })
      .waitFor({ timeout: 60_000 });
    const stepsShown = page.getByTestId('token-stream').locator('.step-group');
    await stepsShown.first().waitFor({ timeout: 120_000 });
    const before = await scorecard.textContent();
    const shownBefore = await stepsShown.count();
    const stepsBefore = await page.locator('[data-counter="steps"]').textContent();
    await page.getByRole('button', { name: 'Race all methods' }).click();
    // The engine runs one job at a time: the race ends the paused run, which stays on screen as it stood (a
    // record of its own beside the race), stopped rather than paused, since it cannot resume.
    await expect(page.getByTestId('run-status').textContent()).resolves.toBe('stopped');
    await page.getByRole('heading', { name: /Race: every method.*\(running…/ }).waitFor({ timeout: 10_000 });
    await expect(stepsShown.count()).resolves.toBe(shownBefore);
    await expect(page.locator('[data-counter="steps"]').textContent()).resolves.toBe(stepsBefore);
    await page.getByRole('button', { name: 'Cancel race' }).click();
    await page.getByRole('heading', { name: /Race: every method.*\(cancelled\)/ }).waitFor({ timeout: 10_000 });
    await expect(stepsShown.count()).resolves.toBe(shownBefore);
    // The worker itself stopped the race: it read the cancel mid-race instead of finishing the race first.
    const jobEndings = () => page.evaluate(() => (window as unknown as { jobEndings: string[] }).jobEndings);
    await expect.poll(jobEndings, { timeout: 60_000 }).not.toEqual([]);
    await expect(jobEndings()).resolves.toEqual(['run-error: race cancelled']);
    await expect(scorecard.textContent()).resolves.toBe(before);
    await runPresetToEnd(page, 'person');
    await expect(scorecard.textContent()).resolves.toMatch(/ of 1 \(truncated 0,/);
    await page.close();
  });

  // The four tests below run side by side, each on its own page: most of their time is waiting (a silent
  // server's 15 s, a compile's 10 s budget, model loads), which the others can use.
  it.concurrent('a model address that is not a URL is refused with a clear message, before any download', async () => {
    const page = await openApp();
    await page.locator('#draft-url').fill('my models');
    await page.locator('#target-url').fill('https://example.com/target/');
    await page.getByRole('button', { name: 'Load custom pair' }).click();
    await expect(page.getByTestId('url-error').textContent()).resolves.toMatch(
      /^Draft URL: "my models" is not a URL: give the full address of a model directory/,
    );
    await expect(page.getByTestId('provider').isVisible()).resolves.toBe(true);
    await page.close();
  });

  it.concurrent(
    'a plain http:// pair on another origin is refused in the worker, naming the Content-Security-Policy; the header reaches the worker script',
    async () => {
      const page = await openApp();
      const workerUrl = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((entry) => entry.name)
          .find((name) => /worker[^/]*\.js$/.test(name)),
      );
      expect(workerUrl).toBeDefined();
      const response = await fetch(workerUrl as string);
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      const elsewhere = app.url.replace('127.0.0.1', 'localhost');
      await page.locator('#draft-url').fill(`${elsewhere}models/speclab-draft/`);
      await page.locator('#target-url').fill(`${elsewhere}models/speclab-target/`);
      await page.getByRole('button', { name: 'Load custom pair' }).click();
      await expect(page.getByTestId('load-error').textContent({ timeout: 30_000 })).resolves.toMatch(
        /is blocked by the app's Content-Security-Policy \(connect-src 'self' https:\): serve the models over https:\/\/ or from this app's own origin/,
      );
      await expect(page.getByTestId('recovery-hint').isVisible()).resolves.toBe(true);
      await page.close();
    },
  );

  it.concurrent(
    'a model server that never answers is reported within 30 s with Retry and the way back; the bundled pair then runs',
    async () => {
      const page = await openApp();
      await page.locator('#draft-url').fill(`${app.url}hang/draft/`);
      await page.locator('#target-url').fill(`${app.url}hang/target/`);
      await page.getByRole('button', { name: 'Load custom pair' }).click();
      await expect(page.getByTestId('load-progress').textContent()).resolves.toMatch(/^(Connecting to|Downloading)/);
      const error = page.getByTestId('load-error');
      await error.waitFor({ timeout: 30_000 });
      await expect(error.textContent()).resolves.toMatch(
        /the server at http:\/\/127\.0\.0\.1:\d+ did not respond within 15 s/,
      );
      await expect(page.getByRole('button', { name: 'Retry' }).isVisible()).resolves.toBe(true);
      await expect(page.getByTestId('recovery-hint').textContent()).resolves.toMatch(
        /bundled pair is always available/,
      );
      await page.screenshot({ path: `${SCREENSHOTS}/reliability-server-silent.png` });
      await page.getByRole('button', { name: 'Load the bundled pair' }).click();
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });
      await runPresetToEnd(page, 'sentiment');

      // A load can be cancelled while it waits, and the bundled pair comes back.
      await page.locator('#draft-url').fill(`${app.url}hang/draft/`);
      await page.locator('#target-url').fill(`${app.url}hang/target/`);
      await page.getByRole('button', { name: 'Load custom pair' }).click();
      await page.getByRole('button', { name: /^Cancel/ }).click();
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });
      await expect(page.locator('#model-pair').inputValue()).resolves.toBe('0');
      await page.close();
    },
  );

  it.concurrent(
    'a 10,000-property schema: stopped at the 10 s budget with its size named, abandoned at once by Reset, and a preset run then completes',
    async () => {
      const page = await openApp();
      await page.locator('#preset').selectOption('custom');
      await page.locator('#schema').fill(wideSchema(10_000));
      await runButton(page).click();
      await expect(page.getByTestId('compiling').textContent({ timeout: 30_000 })).resolves.toMatch(
        /Compiling the schema \(10,000 properties\)/,
      );
      await expect(page.getByTestId('run-error').textContent({ timeout: 40_000 })).resolves.toMatch(
        /^this schema has 10,000 properties; compiling it took more than 10 s and was stopped/,
      );
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });

      await runButton(page).click();
      await page.getByTestId('compiling').waitFor({ timeout: 30_000 });
      await page.getByRole('button', { name: 'Reset', exact: true }).click();
      await expect(page.getByTestId('compiling').count()).resolves.toBe(0);
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });
      await runPresetToEnd(page, 'person');
      await page.close();
    },
  );
});
