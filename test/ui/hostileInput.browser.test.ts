/**
 * Hostile input, round two, against the built app in one page's life (one app load) to keep the suite short:
 * malformed stored history records and a hostile share link met by the first load, hostile vLLM scrapes, the
 * other hostile schemas through share links opened in the same tab (property names with quotes carried), a
 * sweep's and a race's huge schema compiles cancelled, model servers sending more than their manifests list, announcing 2 GB and trickling, or
 * sending honest sizes too slowly, each followed by a preset run to the end without a reload; Space on a
 * focused button; a clear in a second tab reaching the first; and the response headers.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Plugin } from 'vite';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { encodeShare } from '../../src/store/shareUrl';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';
import { CONTENT_SECURITY_POLICY } from '../../src/contract/csp';

/**
 * Misbehaving model servers serving the bundled manifests: under /oversize/<model>/ every file is 2 MiB long,
 * sent without a Content-Length (the 200 MB body for a file the manifest lists as 346 KB); under
 * /trickle/<model>/ every file announces Content-Length 2 GB and then sends 1 KiB every 2 s (the issue's
 * download that never timed out); under /slow/<model>/ every file announces its listed size and sends 64
 * bytes every 250 ms, within that size and never stalling, only too slowly.
 */
const misbehavingModelServer: Plugin = {
  name: 'misbehaving-model-server',
  configurePreviewServer(server) {
    for (const kind of ['oversize', 'trickle', 'slow'] as const) {
      server.middlewares.use(`/${kind}/`, (request, response) => {
        const [model, ...file] = (request.url ?? '').split('?')[0]?.split('/').filter(Boolean) ?? [];
        if (model !== 'speclab-draft' && model !== 'speclab-target') return void response.writeHead(404).end();
        const manifestText = readFileSync(`public/models/${model}/manifest.json`, 'utf8');
        if (file.join('/') === 'manifest.json') {
          response.writeHead(200, { 'content-type': 'application/json' }).end(manifestText);
          return;
        }
        if (kind === 'slow') {
          const listed = (JSON.parse(manifestText) as { files: { path: string; bytes: number }[] }).files.find(({ path }) => path === file.join('/'));
          response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': listed?.bytes ?? 1024 ** 2 });
          const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write(Buffer.alloc(64))), 250);
          response.on('close', () => clearInterval(timer));
          return;
        }
        if (kind === 'trickle') {
          response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 2 * 1024 ** 3 });
          const send = () => (response.destroyed ? clearInterval(timer) : response.write(Buffer.alloc(1024)));
          const timer = setInterval(send, 2000);
          response.on('close', () => clearInterval(timer));
          send();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let chunk = 0; chunk < 16; chunk++) response.write(Buffer.alloc(128 * 1024));
        response.end();
      });
    }
  },
};

/** A share link that runs `schemaText` as a custom schema with the person preset's prompt. */
const schemaLink = (schemaText: string) => encodeShare({ params: { ...presetParams(findPreset('person')), schemaText }, preset: 'custom' });

/** Schemas that jammed or broke the engine when a link carried them, and what the worker now answers. */
const HOSTILE_LINK_SCHEMAS: [string, string, RegExp][] = [
  [
    '$defs a0…a30 each referencing the next twice',
    JSON.stringify({ type: 'object', properties: { v: { $ref: '#/$defs/a0' } }, $defs: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`a${i}`, { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] }])) }),
    /with its \$refs written out, has more than 100,000 sub-schemas/,
  ],
  ['`not` nested 5,000 levels (90 KB)', `{"type":"object","properties":{"x":${'{"not":'.repeat(5000)}{"type":"string"}${'}'.repeat(5000)}}}`, /nests more than 32 levels deep/],
  // xgrammar's parser overflowed its stack on it, and every later compile, presets included, then read memory
  // out of bounds (the worker restarting was the way out); test/store/engineTrap.test.ts keeps that way out tested.
  [
    'a 10 KB regex of 5,000 nested groups',
    JSON.stringify({ type: 'object', properties: { x: { type: 'string', pattern: `${'('.repeat(5000)}a${')'.repeat(5000)}` } }, required: ['x'] }),
    /a pattern in the schema nests its groups 5,000 levels deep; the limit is 32/,
  ],
];

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
    app = await buildAndPreview([misbehavingModelServer]);
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

  /** Opens a share link carrying `schemaText` in the tab already showing the app (only its fragment changes): it runs, and fails with `message`. */
  async function linkedSchemaFails(page: Page, what: string, schemaText: string, message: RegExp): Promise<void> {
    await page.evaluate((hash) => {
      location.hash = hash;
    }, schemaLink(schemaText));
    await expect(page.getByTestId('run-error').filter({ hasText: message }).textContent(), what).resolves.toMatch(message);
  }

  /** Loads the pair at `draft` and `target` (folders of the misbehaving server), which fails with `message`; then the bundled pair again. */
  async function customPairFails(page: Page, kind: string, message: RegExp): Promise<void> {
    await page.locator('#draft-url').fill(`${app.url}${kind}/speclab-draft/`);
    await page.locator('#target-url').fill(`${app.url}${kind}/speclab-target/`);
    await page.getByRole('button', { name: 'Load custom pair' }).click();
    await expect(page.getByTestId('load-error').textContent({ timeout: 30_000 })).resolves.toMatch(message);
    await page.getByRole('button', { name: 'Load the bundled pair' }).click();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  }

  it('one page through every hostile case, each followed by a preset run to the end before anything could repair the engine; a clear in another tab reaches it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    // The records are written from a plain file of the app's origin, so the app's first load meets them.
    await page.goto(`${app.url}models/speclab-draft/manifest.json`);
    await page.evaluate(writeRecords, [{ id: 'x', finishedAt: Date.now(), report: null }, { id: 'y' }]);

    // Malformed history records, and a share link whose schema (2 KB, within the plain limits) used to run by
    // itself into an exponential output check: the app renders, drops the records, and the worker refuses the link's schema.
    const [, chainSchema, chainMessage] = HOSTILE_LINK_SCHEMAS[0] as (typeof HOSTILE_LINK_SCHEMAS)[number];
    await page.goto(`${app.url}${schemaLink(chainSchema)}`);
    await expect(page.getByTestId('run-error').textContent({ timeout: 120_000 })).resolves.toMatch(chainMessage);
    await expect(page.getByTestId('history-notice').textContent()).resolves.toMatch(/^2 stored runs were unreadable and were dropped/);
    await expect(page.getByTestId('panel-failed').count()).resolves.toBe(0);

    // 480 bytes that made the tab grow to 4.4 GB; then a scrape reaching position 1023, whose chart is summarised.
    const scrape = (position: string) =>
      [
        'vllm:spec_decode_num_drafts_total{engine="0"} 10',
        'vllm:spec_decode_num_draft_tokens_total{engine="0"} 30',
        'vllm:spec_decode_num_accepted_tokens_total{engine="0"} 12',
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} 6',
        `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="${position}"} 1`,
        '',
      ].join('\n');
    await page.locator('#vllm-after').fill(scrape('100000000'));
    await page.getByRole('button', { name: 'Read metrics' }).click();
    await expect(page.getByTestId('vllm-error').textContent()).resolves.toMatch(/needs a position label 0, 1, … below 1024 in decimal, got "100000000"/);
    await page.locator('#vllm-after').fill(scrape('1023'));
    await page.getByRole('button', { name: 'Read metrics' }).click();
    await expect(page.getByTestId('vllm-import').textContent()).resolves.toMatch(/the first 64 of 1024 positions are drawn/);

    // The other schemas, each through a share link opened in this tab: refused before xgrammar sees them
    // (refusals repair nothing, so one preset run after them shows that none of them broke the engine).
    for (const [what, schemaText, message] of HOSTILE_LINK_SCHEMAS.slice(1)) await linkedSchemaFails(page, what, schemaText, message);
    // Property names with a quote, a backslash and a NUL (they reached xgrammar's grammar text as grammar): a
    // link carrying them runs to the end, the keys written JSON-escaped, and the output checks valid.
    const names = ['a"pwnmarker', 'b\\\u0000'];
    await page.evaluate((hash) => {
      location.hash = hash;
    }, schemaLink(JSON.stringify({ type: 'object', properties: { [names[0] as string]: { const: 'ok' }, [names[1] as string]: { type: 'boolean' } }, required: names })));
    await page.getByTestId('verdict').filter({ hasText: /^Schema-valid JSON/ }).waitFor({ timeout: 60_000 });
    await expect(page.getByTestId('token-stream').getAttribute('data-text')).resolves.toContain(`{${JSON.stringify(names[0])}: "ok", ${JSON.stringify(names[1])}: `);
    await runPresetToEnd(page);

    // A sweep compiles under the run's budget and shows it; Cancel abandons the compile at once.
    await page.locator('#preset').selectOption('custom');
    const hugeSchema = JSON.stringify({ type: 'object', properties: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`field_${i}`, { type: 'integer' }])) });
    await page.locator('#schema').fill(hugeSchema);
    const sweep = page.getByTestId('sweep');
    await sweep.getByRole('button', { name: 'Run sweep' }).click();
    await expect(page.getByTestId('compiling').textContent({ timeout: 30_000 })).resolves.toMatch(/Compiling the schema \(10,000 properties\)/);
    await sweep.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('compiling').count()).resolves.toBe(0);
    await expect(sweep.getByTestId('sweep-status').getAttribute('data-status')).resolves.toBe('cancelled');
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    await runPresetToEnd(page);
    // A race compiles under the same budget and shows it; Reset abandons the compile at once.
    await page.locator('#preset').selectOption('custom');
    await page.locator('#schema').fill(hugeSchema);
    await page.getByRole('button', { name: 'Race all methods' }).click();
    await expect(page.getByTestId('compiling').textContent({ timeout: 30_000 })).resolves.toMatch(/Compiling the schema \(10,000 properties\)/);
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await expect(page.getByTestId('compiling').count()).resolves.toBe(0);
    await page.getByRole('heading', { name: /Race: every method.*\(cancelled\)/ }).waitFor({ timeout: 10_000 });
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    await runPresetToEnd(page);

    // A model server sending 2 MiB for files its manifest lists at 26 KB and 354 KB; then one announcing 2 GB
    // and trickling, refused from its Content-Length before the body is read.
    await customPairFails(page, 'oversize', /is more than \d+ bytes, but \d+ bytes at most were expected \(the size the manifest lists\): the download was stopped/);
    await runPresetToEnd(page);
    await customPairFails(page, 'trickle', /is 2147483648 bytes \(Content-Length\), but \d+ bytes at most were expected \(the size the manifest lists\): the download was stopped/);
    await runPresetToEnd(page);
    // A server sending honest sizes at 256 bytes/s, never stalling: its total time is bounded by the bytes it sent.
    await customPairFails(page, 'slow', /sent \d+ bytes in \d+\.\d s, slower than the 4096 bytes\/s a download must keep after its first 2 s: the download was stopped/);
    await runPresetToEnd(page);
    await expect(page.locator('[data-history-id]').count()).resolves.toBe(7);

    // Space on a focused "Race all methods" presses that button (it used to start a plain run instead).
    await page.getByRole('button', { name: 'Race all methods' }).focus();
    await page.keyboard.press(' ');
    await page.getByRole('heading', { name: /Race: every method.*\(running…/ }).waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('run-status').textContent()).resolves.toBe('idle');
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByRole('heading', { name: /Race: every method.*\(cancelled\)/ }).waitFor({ timeout: 10_000 });

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
