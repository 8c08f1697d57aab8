import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ViteDevServer } from 'vite';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser';
import type { BrowserGrammarReport } from '../browser/grammarPage';

describe('xgrammar in headless Chromium, loaded by Vite as the app loads it', () => {
  let server: ViteDevServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
    await server.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('masks, validates drafts, and reports a rejected schema with its message', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.resolvedUrls?.local[0]}test/browser/grammar.html`);
    const report = (await page.evaluate(() => window.speclabGrammar)) as BrowserGrammarReport | { error: string };
    if ('error' in report) throw new Error(`the browser run failed: ${report.error}`);
    expect(report.allowedAtStart).toEqual(['"', '"positive"']);
    expect(report.validLengths).toEqual([2]);
    expect(report.rejection).toMatch(/xgrammar rejected the schema: .*missing/);
  });
});
