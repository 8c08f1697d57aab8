import { describe, expect, it } from 'vitest';
import { suiteDevPages } from '../support/browser';
import type { BrowserGrammarReport } from '../browser/grammarPage';

describe('xgrammar in headless Chromium, loaded by Vite as the app loads it', () => {
  const pages = suiteDevPages();

  it('masks, validates drafts, and reports a rejected schema with its message', async () => {
    const page = await pages.open('test/browser/grammar.html');
    const report = (await page.evaluate(() => window.speclabGrammar)) as BrowserGrammarReport | { error: string };
    if ('error' in report) throw new Error(`the browser run failed: ${report.error}`);
    expect(report.allowedAtStart).toEqual(['"', '"positive"']);
    expect(report.validLengths).toEqual([2]);
    expect(report.rejection).toMatch(/\$ref "#\/\$defs\/missing" points at nothing in the schema/);
  });
});
