import { mkdirSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { axeProblems } from '../support/axe';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';
const ajv = new Ajv({ strict: false });

/** Counters as the page shows them. */
async function shownCounters(page: Page) {
  const read = async (name: string) => (await page.locator(`[data-counter="${name}"]`).textContent()) ?? '';
  return {
    R: Number(await read('R')),
    I: Number(await read('I')),
    D: Number(await read('D')),
    A: Number(await read('A')),
    steps: Number(await read('steps')),
    meanLength: await read('mean-length'),
    histogram: (await read('histogram')).split('·').map(Number),
  };
}

async function runToEnd(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page
    .getByTestId('run-status')
    .filter({ hasText: /^(done|error)$/ })
    .waitFor({ timeout: 180_000 });
  const error = await page
    .getByTestId('run-error')
    .textContent({ timeout: 10 })
    .catch(() => null);
  expect(error).toBeNull();
  return (await page.getByTestId('token-stream').getAttribute('data-text')) ?? '';
}

/** A PNG is blank when all its bytes after the header repeat a handful of values; check its spread. */
function distinctBytes(path: string): number {
  return new Set(readFileSync(path).subarray(64)).size;
}

describe('the built app in headless Chromium', () => {
  let app: BuiltApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = await buildAndPreview();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    const response = await page.goto(app.url);
    expect(response?.status()).toBe(200);
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('on a software WebGPU adapter, runs the models on wasm and verifies on the CPU twin, and says why', async () => {
    await expect(page.getByTestId('provider').textContent()).resolves.toMatch(
      /^Models on wasm \(CPU\): the WebGPU adapter is software-only.* · speclab-draft → speclab-target-int8/,
    );
    await expect(page.getByTestId('verifier').textContent()).resolves.toMatch(
      /^Verifier: CPU twin \(software WebGPU adapter/,
    );
    await expect(page.getByTestId('scoring-path').textContent()).resolves.toMatch(
      /Scoring: one token-tree pass per step/,
    );
  });

  it.each(SCHEMA_PRESETS.map((preset) => [preset.id, preset] as const))(
    'runs the %s preset to schema-valid JSON with consistent counters',
    async (id, preset) => {
      await page.locator('#preset').selectOption(id);
      const text = await runToEnd(page);
      const json = preset.trigger ? text.slice(text.indexOf(preset.trigger) + preset.trigger.length) : text;
      const value: unknown = JSON.parse(json);
      expect(ajv.validate(preset.schema, value), `${json}: ${ajv.errorsText()}`).toBe(true);
      await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/^Schema-valid JSON/);
      const shown = await shownCounters(page);
      expect(shown.steps).toBeGreaterThan(0);
      expect(shown.D).toBe(shown.R - shown.I);
      expect(shown.A).toBeLessThanOrEqual(shown.D);
      expect(shown.histogram.reduce((a, b) => a + b, 0)).toBe(shown.steps);
      expect(shown.meanLength).toBe((1 + shown.A / shown.steps).toFixed(3));
      // The charts are deferred: wait for each to take this run's points (a point per step, per length 0..L or
      // per position 1..L), then check that it drew marks.
      const L = shown.histogram.length - 1;
      const points = {
        counters: shown.steps,
        ratios: shown.steps,
        'mean-length': shown.steps,
        histogram: L + 1,
        'per-position': L,
      };
      for (const [chart, count] of Object.entries(points)) {
        const figure = page.locator(`[data-chart="${chart}"]`);
        await page.locator(`[data-chart="${chart}"][data-points="${count}"]`).waitFor();
        expect(await figure.locator('.recharts-line-curve, .recharts-bar-rectangle').count(), chart).toBeGreaterThan(0);
      }
      // The histogram's exact expectation sums to the steps too, once the deferred charts have caught up.
      await page.waitForFunction(`(() => {
      const values = (document.querySelector('[data-testid="histogram-expectation"]')?.getAttribute('data-expected') ?? '').split(' ').map(Number);
      return values.length === ${shown.histogram.length} && Math.abs(values.reduce((a, b) => a + b, 0) - ${shown.steps}) < 1e-4;
    })()`);
      await expect(page.locator('[data-chart="histogram"] .recharts-line-curve').count()).resolves.toBe(1);
      await page.screenshot({ path: `${SCREENSHOTS}/preset-${id}.png`, fullPage: true });
      expect(distinctBytes(`${SCREENSHOTS}/preset-${id}.png`)).toBeGreaterThan(100);
    },
  );

  it('steps one verification at a time, and the inspector shows the K×L drafts of the step', async () => {
    await page.locator('#preset').selectOption('person');
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor();
    await page.getByTestId('inspector').waitFor();
    await expect(page.locator('[data-counter="steps"]').textContent()).resolves.toBe('1');
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.locator('[data-counter="steps"]').filter({ hasText: '2' }).waitFor();
    const K = Number(await page.locator('#K').inputValue());
    // The inspector is deferred: it catches up with the counters when the page is idle.
    await page.getByTestId('inspector').filter({ hasText: 'Step 2 of 2' }).waitFor();
    await expect(page.locator('.draft-grid tbody tr').count()).resolves.toBe(K);
    // The first position: α* for these K drafts beside what this step's verifier achieved given them.
    await expect(page.getByTestId('first-position-optimum').textContent()).resolves.toMatch(
      /α\* = 0\.\d{3}|α\* = 1\.000/,
    );
    // The final token's law: its most likely tokens, heaviest first, within one unit of probability.
    const law = page.getByTestId('final-law');
    await expect(law.locator('caption').textContent()).resolves.toMatch(
      /The (correction|bonus) token was drawn from .*: \d+ tokens? possible/,
    );
    const probs = (await law.locator('tbody td:nth-child(2)').allTextContents()).map(Number);
    expect(probs.length).toBeGreaterThan(0);
    expect(probs).toEqual([...probs].sort((a, b) => b - a));
    expect(probs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1.001);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'done' }).waitFor({ timeout: 180_000 });
  });

  it('races every method on the same prompt and seed; after the race (and the run before it) axe finds no serious or critical violation', async () => {
    // One timed round after the warm-up keeps this cheap; the schedule itself is tested in test/core/fairTiming.test.ts.
    await page.locator('#race-repeats').selectOption('1');
    await page.locator('#race-budget').selectOption('50');
    await page.getByRole('button', { name: 'Race all methods' }).click();
    await expect(page.getByTestId('race-repeats-note').textContent({ timeout: 300_000 })).resolves.toMatch(
      /then 1 timed round/,
    );
    const methods = await page
      .getByTestId('race')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-method')));
    expect(methods).toEqual(['ar', 'ar+jump-forward', 'tokenwise', 'gbv', 'spectr', 'spectr-gbv', 'optimal-tree']);
    // One round has no spread: the race says so rather than ranking the methods.
    await expect(page.getByTestId('race-verdict').nth(1).textContent()).resolves.toMatch(/too few samples/);
    expect(await axeProblems(page)).toEqual([]);
  });

  it('a share link reproduces the run exactly, and round-trips the pair, the runtime and presentation mode', async () => {
    await page.locator('#preset').selectOption('event');
    await page.locator('#seed').fill('7');
    const text = await runToEnd(page);
    await page.getByTestId('share').click();
    const shared = new URL(page.url());
    const setupKeys = (url: URL) =>
      Object.fromEntries(
        ['pair', 'runtime', 'present'].map((key) => [
          key,
          new URLSearchParams(url.hash.slice('#run?'.length)).get(key),
        ]),
      );
    expect(shared.hash).toMatch(/^#run\?/);
    expect(setupKeys(shared)).toEqual({ pair: 'bundled', runtime: 'auto', present: '0' });
    // The link carries the pair, the runtime and presentation mode too: opened with wasm chosen and presentation
    // on, the run is the same, and the page's own link says so back.
    shared.hash = shared.hash.replace('runtime=auto', 'runtime=wasm').replace('present=0', 'present=1');
    const other = await browser.newPage();
    await other.goto(shared.href);
    await other.getByTestId('run-status').filter({ hasText: 'done' }).waitFor({ timeout: 180_000 });
    await expect(other.getByTestId('token-stream').getAttribute('data-text')).resolves.toBe(text);
    await expect(other.evaluate(() => document.documentElement.classList.contains('presentation'))).resolves.toBe(true);
    await expect(other.getByTestId('provider').textContent()).resolves.toMatch(
      /^Models on wasm .* · speclab-draft → speclab-target-int8 · /,
    );
    await other.getByTestId('share').click();
    expect(setupKeys(new URL(other.url()))).toEqual({ pair: 'bundled', runtime: 'wasm', present: '1' });
    await other.close();
  });

  it('presentation mode and the keyboard shortcuts work', async () => {
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('p');
    await expect(page.evaluate(() => document.documentElement.classList.contains('presentation'))).resolves.toBe(true);
    await page.keyboard.press('?');
    await page.getByTestId('shortcut-help').waitFor();
    // One key per method, from the method registry.
    const keys = await page
      .getByTestId('shortcut-help')
      .locator('div')
      .evaluateAll((rows) => rows.map((row) => row.textContent));
    expect(keys).toContain('6method: Optimal tree');
    await page.keyboard.press('Escape');
    await page.keyboard.press('2');
    await expect(page.locator('#method').inputValue()).resolves.toBe('tokenwise');
    // A single-draft method reports the one draft it uses, whatever K the form holds (the counters are
    // headed by the run that made them, so the check follows a step of a new run).
    await page.locator('#K').fill('3');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('r');
    await page.keyboard.press('ArrowRight');
    await page.locator('[data-counter="steps"]').filter({ hasText: '1' }).waitFor();
    await expect(page.getByTestId('counter-slice').textContent()).resolves.toContain(
      'K = 1 (Token-wise uses one draft)',
    );
    await page.screenshot({ path: `${SCREENSHOTS}/presentation.png` });
    expect(distinctBytes(`${SCREENSHOTS}/presentation.png`)).toBeGreaterThan(100);
    await page.keyboard.press('r');
    await page.keyboard.press('p');
    await expect(page.evaluate(() => document.documentElement.classList.contains('presentation'))).resolves.toBe(false);
  });

  it('a bad schema shows its message, and the next run still works', async () => {
    await page.locator('#schema').fill('{"type": "object", "properties": {');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByTestId('run-error').textContent()).resolves.toMatch(/line 1, column \d+/);
    await page.locator('#preset').selectOption('sentiment');
    const text = await runToEnd(page);
    expect(JSON.parse(text)).toHaveProperty('sentiment');
  });

  it('runs the models on onnxruntime’s WebGPU EP and verifies with the WGSL kernels when asked (the bundled pair loads its float32 target there)', async () => {
    await page.locator('#verifier-choice').selectOption('gpu');
    await page
      .getByTestId('verifier')
      .filter({ hasText: /^Verifier: WGSL on .*swiftshader/ })
      .waitFor({ timeout: 120_000 });
    await page.locator('#preset').selectOption('person');
    const person = JSON.parse(await runToEnd(page)) as unknown;
    expect(ajv.validate((SCHEMA_PRESETS[1] as (typeof SCHEMA_PRESETS)[number]).schema, person)).toBe(true);
    // A run with the models on WebGPU (the float32 target, logits read in place) is in hardwareDefault.browser.test.ts.
    await page.locator('#provider').selectOption('webgpu');
    await page
      .getByTestId('provider')
      .filter({
        hasText: /^Models on WebGPU \(chosen, on the software adapter .*\) · speclab-draft → speclab-target · /,
      })
      .waitFor({ timeout: 120_000 });
    await page.locator('#provider').selectOption('auto');
    await page.locator('#verifier-choice').selectOption('auto');
    await page
      .getByTestId('provider')
      .filter({ hasText: /^Models on wasm .* · speclab-draft → speclab-target-int8 · / })
      .waitFor({ timeout: 120_000 });
  });

  it('ships a Content-Security-Policy without script eval, and is cross-origin isolated for ORT threads', async () => {
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(policy).not.toMatch(/'unsafe-eval'/);
    await expect(page.evaluate(() => window.crossOriginIsolated)).resolves.toBe(true);
    // The status line states the threads the models run on: every core the browser reports.
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    await expect(page.getByTestId('wasm-threads').textContent()).resolves.toBe(`· ${cores} wasm threads `);
  });

  it('raised no console or page errors', () => {
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('without WebGPU, runs on wasm and the CPU verifier, and says so', async () => {
    const plain = await launchChromium({ webgpu: false });
    try {
      const other = await plain.newPage();
      await other.goto(app.url);
      await other.getByTestId('provider').waitFor({ timeout: 120_000 });
      await expect(other.getByTestId('provider').textContent()).resolves.toMatch(
        /^Models on wasm \(CPU\): no WebGPU adapter was granted · speclab-draft → speclab-target-int8 · /,
      );
      await expect(other.getByTestId('verifier').textContent()).resolves.toBe(
        'Verifier: CPU twin (WebGPU is unavailable: no adapter was granted)',
      );
      await other.locator('#preset').selectOption('sentiment');
      expect(JSON.parse(await runToEnd(other))).toHaveProperty('sentiment');
    } finally {
      await plain.close();
    }
  });
});
