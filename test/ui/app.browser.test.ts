import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';

describe('the built app in headless Chromium', () => {
  let app: BuiltApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    app = await buildAndPreview();
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()} at ${message.location().url}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    const response = await page.goto(app.url);
    expect(response?.status()).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('says what it is', async () => {
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('SpecLab');
    const methods = await page.locator('dl.methods dt').allTextContents();
    expect(methods).toEqual(['Token-wise', 'GBV', 'SpecTr', 'SpecTr-GBV']);
  });

  it('finds the WebGPU adapter and names it', async () => {
    const badge = page.getByTestId('webgpu-status');
    await badge.filter({ hasNotText: 'Checking' }).waitFor();
    await expect(badge.textContent()).resolves.toMatch(/^WebGPU: \S/);
  });

  it('ships a Content-Security-Policy without script eval, and is cross-origin isolated for ORT threads', async () => {
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(policy).not.toMatch(/'unsafe-eval'/);
    await expect(page.evaluate(() => window.crossOriginIsolated)).resolves.toBe(true);
  });

  it('raised no console or page errors', () => {
    expect(problems).toEqual([]);
  });
});
