import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';

/** A greedy (T = 0) run of the short 'sentiment' preset to its end; the tokens it produced. */
async function greedyTokens(page: Page): Promise<string> {
  await page.locator('#preset').selectOption('sentiment');
  await page.locator('#temperature').fill('0');
  await page.locator('#temperature').press('Tab');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page
    .getByTestId('run-status')
    .filter({ hasText: /^(done|error)$/ })
    .waitFor({ timeout: 180_000 });
  expect(
    await page
      .getByTestId('run-error')
      .textContent({ timeout: 10 })
      .catch(() => null),
  ).toBeNull();
  return (await page.getByTestId('token-stream').getAttribute('data-text')) ?? '';
}

// Which backend the default pair gets: WebGPU on a hardware adapter (here SwiftShader, reported as hardware by
// the ?test-hooks&hardware-adapter hook), wasm on a software adapter or without WebGPU.
describe('the default pair follows the hardware, in the built app', () => {
  let app: BuiltApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await buildAndPreview();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  // One WebGPU run serves both checks (each costs about 45 s on SwiftShader): the hook's hardware path, and the
  // same T = 0 tokens as the pair gives on wasm.
  it('on a hardware adapter, runs the float32 target and the WGSL verifier on WebGPU, reading the logits in place, and gives the same T = 0 tokens as on wasm', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}?test-hooks&hardware-adapter`);
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    await expect(page.getByTestId('provider').textContent()).resolves.toMatch(
      /^Models on WebGPU \(hardware adapter: .+\) · speclab-draft → speclab-target · /,
    );
    await expect(page.getByTestId('verifier').textContent()).resolves.toMatch(
      /^Verifier: WGSL on .+, reading the target's logits in place$/,
    );
    await expect(page.getByTestId('verifier').getAttribute('data-logits-in-place')).resolves.toBe('true');
    const onWebgpu = await greedyTokens(page);
    expect(JSON.parse(onWebgpu)).toHaveProperty('sentiment');
    // The tree's node rows are copied into the verifier's order on onnxruntime's device, so the kernels still
    // read the logits in place.
    await expect(page.getByTestId('verified-on').textContent()).resolves.toMatch(
      /reading the target’s logits in place/,
    );
    await expect(page.getByTestId('scoring').textContent()).resolves.toMatch(
      /^Target scored \d+ positions? in one tree pass \(batched: \d+\)\.$/,
    );
    await page.locator('#provider').selectOption('wasm');
    await page
      .getByTestId('provider')
      .filter({ hasText: /^Models on wasm \(CPU\).* · speclab-draft → speclab-target-int8 · / })
      .waitFor({ timeout: 120_000 });
    expect(await greedyTokens(page)).toBe(onWebgpu);
    await page.close();
  });

  // Without WebGPU the pair runs on wasm with the int8 target and says why: app.browser.test.ts.
});
