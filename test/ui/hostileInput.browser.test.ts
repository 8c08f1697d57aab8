/**
 * Hostile input, round two, against the built app in one page's life (one app load, then only fragments change)
 * to keep the suite short: malformed stored history records met by the first load, hostile schemas, numbers and
 * a 400 KB prompt through share links opened in the same tab (property names with quotes carried), hostile vLLM
 * scrapes, a sweep's and a race's huge schema compiles cancelled, model servers sending more than their manifests
 * list, announcing 2 GB and trickling, or sending honest sizes too slowly, a draft with a NaN in its weights, Space
 * on a focused button, and a clear in a second tab: each case is its own test, ending with a preset run to the end
 * on the same page, without a reload.
 * The `?talk=` downloads (a 400 MB body, an endless one, a silent server, a missing file) load the page with
 * their query, as a talk is opened. Then the response headers.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Plugin } from 'vite';
import { findPreset, presetParams } from '../../src/contract/runParams';
import { encodeShare } from '../../src/store/shareUrl';
import { buildAndPreview, launchChromium, type BuiltApp } from '../support/browser';
import { CONTENT_SECURITY_POLICY } from '../../src/contract/csp';
import { damagedCopy } from '../support/damagedModel';

/**
 * Misbehaving model servers serving the bundled manifests: under /oversize/<model>/ every file is 2 MiB long,
 * sent without a Content-Length (the reported 200 MB body for a file the manifest lists as 346 KB); under
 * /trickle/<model>/ every file announces Content-Length 2 GB and then sends 1 KiB every 2 s (the reported
 * download that never timed out); under /slow/<model>/ every file announces its listed size and sends 64
 * bytes every 250 ms, within that size and never stalling, only too slowly; under /far-tokenizer/<model>/ the
 * manifest names its tokenizer at another site's https:// address, which the app used to fetch.
 */
const misbehavingModelServer: Plugin = {
  name: 'misbehaving-model-server',
  configurePreviewServer(server) {
    for (const kind of ['oversize', 'trickle', 'slow', 'far-tokenizer'] as const) {
      server.middlewares.use(`/${kind}/`, (request, response) => {
        const [model, ...file] = (request.url ?? '').split('?')[0]?.split('/').filter(Boolean) ?? [];
        if (model !== 'speclab-draft' && model !== 'speclab-target') return void response.writeHead(404).end();
        const manifestText = readFileSync(`public/models/${model}/manifest.json`, 'utf8');
        if (file.join('/') === 'manifest.json') {
          const manifest = JSON.parse(manifestText) as { tokenizer: { file: string } };
          if (kind === 'far-tokenizer') manifest.tokenizer.file = 'https://evil.example/tokenizer.json';
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(manifest));
          return;
        }
        if (kind === 'slow') {
          const listed = (JSON.parse(manifestText) as { files: { path: string; bytes: number }[] }).files.find(
            ({ path }) => path === file.join('/'),
          );
          response.writeHead(200, {
            'content-type': 'application/octet-stream',
            'content-length': listed?.bytes ?? 1024 ** 2,
          });
          const timer = setInterval(
            () => (response.destroyed ? clearInterval(timer) : response.write(Buffer.alloc(64))),
            250,
          );
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

/**
 * A damaged model server: under /damaged/speclab-draft/ a copy of the bundled draft with a NaN in its embedding
 * (its manifest's sha256 and size recomputed, so only the check of its first forward's logits can tell), under
 * /damaged/speclab-target/ the bundled float32 target as it is.
 */
function damagedModelServer(damagedDraft: string): Plugin {
  const folders = new Map([
    ['speclab-draft', damagedDraft],
    ['speclab-target', 'public/models/speclab-target'],
  ]);
  return {
    name: 'damaged-model-server',
    configurePreviewServer(server) {
      server.middlewares.use('/damaged/', (request, response) => {
        const [model = '', ...file] = (request.url ?? '').split('?')[0]?.split('/').filter(Boolean) ?? [];
        const path = file.join('/');
        const folder = folders.get(model);
        if (folder === undefined || !['manifest.json', 'tokenizer.json', 'onnx/model.onnx'].includes(path))
          return void response.writeHead(404).end();
        response
          .writeHead(200, { 'content-type': path.endsWith('.json') ? 'application/json' : 'application/octet-stream' })
          .end(readFileSync(`${folder}/${path}`));
      });
    },
  };
}

/**
 * Hostile talk servers under /hostile-talk/: `huge.json` announces Content-Length 400 MB (the reported body that
 * blocked the page 28 s and took 1.5 GB); `endless.json` sends 64 KiB chunks without end and without a length;
 * `bomb.json` is a gzip bomb (spaces without end, packed); `silent.json` never answers; `portal.json` is a 200 web
 * page (a captive portal, or a server's fallback page);
 * any other file is a 404 with an HTML error page, as a static host sends.
 */
const hostileTalkServer: Plugin = {
  name: 'hostile-talk-server',
  configurePreviewServer(server) {
    server.middlewares.use('/hostile-talk/', (request, response) => {
      const file = (request.url ?? '').split('?')[0];
      if (file === '/huge.json') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 * 1024 ** 2 });
        response.write('{"format": "speclab-talk", ');
        return;
      }
      if (file === '/endless.json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        const send = () => {
          if (!response.destroyed) response.write(Buffer.alloc(64 * 1024, 0x20), () => setImmediate(send));
        };
        send();
        return;
      }
      if (file === '/bomb.json') {
        // A gzip bomb: 1 MiB of spaces packs into about 1 KiB, sent without end; the browser unpacks it.
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        const gzip = createGzip();
        gzip.pipe(response);
        const spaces = Buffer.alloc(1024 ** 2, 0x20);
        const send = () => {
          if (!response.destroyed) gzip.write(spaces, () => setImmediate(send));
        };
        response.on('close', () => gzip.destroy());
        send();
        return;
      }
      if (file === '/silent.json') return;
      if (file === '/portal.json')
        return void response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>Venue Wi-Fi</title>');
      response
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<!doctype html><title>404</title><h1>Not Found</h1>');
    });
  },
};

/** A share link that runs `schemaText` as a custom schema with the person preset's prompt. */
const schemaLink = (schemaText: string) =>
  encodeShare({ params: { ...presetParams(findPreset('person')), schemaText }, preset: 'custom' });

/** `$defs` a0…a1999, each an allOf (even) or a oneOf (odd) of one `$ref` to the next, the last an integer. */
const REF_CHAIN = {
  type: 'object',
  properties: { v: { $ref: '#/$defs/a0' } },
  $defs: Object.fromEntries(
    Array.from({ length: 2000 }, (_, i) => [
      `a${i}`,
      i === 1999 ? { type: 'integer' } : { [i % 2 ? 'oneOf' : 'allOf']: [{ $ref: `#/$defs/a${i + 1}` }] },
    ]),
  ),
};

/** Schemas that jammed or broke the engine when a link carried them, and what the worker now answers. */
const HOSTILE_LINK_SCHEMAS: [string, string, RegExp][] = [
  [
    '$defs a0…a30 each referencing the next twice',
    JSON.stringify({
      type: 'object',
      properties: { v: { $ref: '#/$defs/a0' } },
      $defs: Object.fromEntries(
        Array.from({ length: 31 }, (_, i) => [
          `a${i}`,
          { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] },
        ]),
      ),
    }),
    /with its \$refs written out, has more than 100,000 sub-schemas/,
  ],
  [
    'a 2,000-level allOf/oneOf $ref chain (a bare "Maximum call stack size exceeded")',
    JSON.stringify(REF_CHAIN),
    /with its \$refs written out, nests more than 128 levels deep/,
  ],
  [
    '`not` nested 5,000 levels (90 KB)',
    `{"type":"object","properties":{"x":${'{"not":'.repeat(5000)}{"type":"string"}${'}'.repeat(5000)}}}`,
    /nests more than 32 levels deep/,
  ],
  // xgrammar's parser overflowed its stack on it, and every later compile, presets included, then read memory
  // out of bounds (the worker restarting was the way out); test/store/engineTrap.test.ts keeps that way out tested.
  [
    'a 10 KB regex of 5,000 nested groups',
    JSON.stringify({
      type: 'object',
      properties: { x: { type: 'string', pattern: `${'('.repeat(5000)}a${')'.repeat(5000)}` } },
      required: ['x'],
    }),
    /a pattern in the schema nests its groups 5,000 levels deep; the limit is 32/,
  ],
];

/** A scrape of one engine's counters and its position 0, with `lines` (names after `vllm:spec_decode_`) added. */
const scrape = (lines: string[]) =>
  [
    'num_drafts_total{engine="0"} 10',
    'num_draft_tokens_total{engine="0"} 30',
    'num_accepted_tokens_total{engine="0"} 12',
    'num_accepted_tokens_per_pos_total{engine="0",position="0"} 6',
    ...lines,
  ]
    .map((line) => `vllm:spec_decode_${line}\n`)
    .join('');

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

describe(
  'the built app against stored and imported hostile input, one page, a preset run to the end after each case',
  { timeout: 300_000 },
  () => {
    let app: BuiltApp;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    const problems: string[] = [];
    let damagedDraft: string | undefined;

    beforeAll(async () => {
      damagedDraft = damagedCopy('public/models/speclab-draft', 'token_embedding.weight');
      app = await buildAndPreview([misbehavingModelServer, hostileTalkServer, damagedModelServer(damagedDraft)]);
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await app?.close();
      if (damagedDraft !== undefined) rmSync(dirname(damagedDraft), { recursive: true, force: true });
      expect(problems).toEqual([]);
    });

    /** The page is shared: each case ends with a preset run to the end on it, so no case leans on a later repair. */
    async function runPresetToEnd(): Promise<void> {
      await page.locator('#preset').selectOption('person');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page
        .getByTestId('run-status')
        .filter({ hasText: /^(done|error)$/ })
        .waitFor({ timeout: 180_000 });
      await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/^Schema-valid JSON/);
    }

    /** Opens `hash` in the tab already showing the app: only the fragment changes, so nothing reloads. */
    async function openLink(hash: string): Promise<void> {
      await page.evaluate((fragment) => {
        location.hash = fragment;
      }, hash);
    }

    /** Pastes `text` as the scrape and reads it; the import says `message`. */
    async function scrapeReads(text: string, testId: 'vllm-error' | 'vllm-import', message: RegExp): Promise<void> {
      await page.locator('#vllm-after').fill(text);
      await page.getByRole('button', { name: 'Read metrics' }).click();
      await expect(page.getByTestId(testId).textContent()).resolves.toMatch(message);
    }

    /** Loads the pair at `draft` and `target` (folders of the misbehaving server), which fails with `message`; then the bundled pair again. */
    async function customPairFails(kind: string, message: RegExp): Promise<void> {
      await page.locator('#draft-url').fill(`${app.url}${kind}/speclab-draft/`);
      await page.locator('#target-url').fill(`${app.url}${kind}/speclab-target/`);
      await page.getByRole('button', { name: 'Load custom pair' }).click();
      await expect(page.getByTestId('load-error').textContent({ timeout: 30_000 })).resolves.toMatch(message);
      await page.getByRole('button', { name: 'Load the bundled pair' }).click();
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    }

    /** Fills a 10,000-property schema (about 45 s to compile) as the custom schema. */
    async function fillHugeSchema(): Promise<void> {
      await page.locator('#preset').selectOption('custom');
      await page.locator('#schema').fill(
        JSON.stringify({
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`field_${i}`, { type: 'integer' }])),
        }),
      );
    }

    it('drops malformed stored history records (report: null, {id} alone) with a notice on the first load; the app renders', async () => {
      // The records are written from a plain file of the app's origin, so the app's first load meets them.
      await page.goto(`${app.url}models/speclab-draft/manifest.json`);
      await page.evaluate(writeRecords, [{ id: 'x', finishedAt: Date.now(), report: null }, { id: 'y' }]);
      await page.goto(app.url);
      await expect(page.getByTestId('history-notice').textContent()).resolves.toMatch(
        /^2 stored runs were unreadable and were dropped/,
      );
      await expect(page.getByTestId('panel-failed').count()).resolves.toBe(0);
      await runPresetToEnd();
    });

    /** Opens the app with `?talk=/hostile-talk/<file>`, whose download fails with `message`, shown as the talk's error. */
    async function talkFails(file: string, message: RegExp): Promise<void> {
      await page.goto(`${app.url}?talk=/hostile-talk/${file}`);
      await expect(page.getByTestId('talk-error').textContent({ timeout: 30_000 })).resolves.toMatch(message);
      await expect(page.getByTestId('talk-loading').count()).resolves.toBe(0);
    }

    it('refuses a ?talk= body announcing 400 MB from its Content-Length, unread', async () => {
      await talkFails(
        'huge.json',
        /^The talk at \/hostile-talk\/huge\.json could not be read: \S+ is 419430400 bytes \(Content-Length\), but 3000000 bytes at most were expected \(the most a talk file may be\): the download was stopped\.$/,
      );
      await runPresetToEnd();
    });

    it('stops an endless ?talk= body, plain or a gzip bomb, at the first chunk (of output) past 3,000,000 bytes', async () => {
      for (const file of ['endless.json', 'bomb.json']) {
        await talkFails(
          file,
          /could not be read: \S+ is more than 3000000 bytes, but 3000000 bytes at most were expected \(the most a talk file may be\): the download was stopped\.$/,
        );
      }
      await runPresetToEnd();
    });

    it('ends a ?talk= server that never answers after 15 s with a message, and Cancel ends it at once', async () => {
      await talkFails('silent.json', /could not be read: the server at \S+ did not respond within 15 s/);
      await page.goto(`${app.url}?talk=/hostile-talk/silent.json`);
      await expect(page.getByTestId('talk-loading').textContent()).resolves.toBe(
        'Loading the talk from /hostile-talk/silent.json… Cancel',
      );
      await page.screenshot({ path: 'test-results/screenshots/talk-loading-1280x900.png' });
      await page.getByTestId('talk-loading').getByRole('button', { name: 'Cancel' }).click();
      await expect(page.getByTestId('talk-error').textContent()).resolves.toMatch(
        /could not be read: loading \S+silent\.json was cancelled\.$/,
      );
      await expect(page.getByTestId('talk-loading').count()).resolves.toBe(0);
      await runPresetToEnd();
    });

    it('says a missing ?talk= file is not found (404), and a web page in its place is one, not that either is not JSON', async () => {
      await talkFails(
        'missing.json',
        /^The talk at \/hostile-talk\/missing\.json could not be read: not found \(404\)\.$/,
      );
      await talkFails(
        'portal.json',
        /^The talk at \/hostile-talk\/portal\.json could not be read: the server sent a web page, not a talk file\.$/,
      );
      await runPresetToEnd();
    });

    // A 2 KB schema within the plain limits that, carried by a link, ran by itself into an exponential output check.
    it.each(HOSTILE_LINK_SCHEMAS)(
      'refuses a share link carrying %s before xgrammar or the output check sees it',
      async (_what, schemaText, message) => {
        await openLink(schemaLink(schemaText));
        await expect(page.getByTestId('run-error').filter({ hasText: message }).textContent()).resolves.toMatch(
          message,
        );
        await runPresetToEnd();
      },
    );

    it('runs a share link whose property names hold a quote, a backslash and a NUL to a schema-valid end, the keys JSON-escaped', async () => {
      // They reached xgrammar's grammar text as grammar ("Rule "pwnmarker" is not defined").
      const names = ['a"pwnmarker', 'b\\\u0000'];
      await openLink(
        schemaLink(
          JSON.stringify({
            type: 'object',
            properties: { [names[0] as string]: { const: 'ok' }, [names[1] as string]: { type: 'boolean' } },
            required: names,
          }),
        ),
      );
      await page
        .getByTestId('verdict')
        .filter({ hasText: /^Schema-valid JSON/ })
        .waitFor({ timeout: 60_000 });
      await expect(page.getByTestId('token-stream').getAttribute('data-text')).resolves.toContain(
        `{${JSON.stringify(names[0])}: "ok", ${JSON.stringify(names[1])}: `,
      );
      await runPresetToEnd();
    });

    it('marks K = 0x3 and a prompt of spaces in a share link, and starts no run', async () => {
      await openLink(
        encodeShare({ params: { ...presetParams(findPreset('person')), prompt: ' \t\n ' }, preset: 'person' }).replace(
          /([?&])K=\d+/,
          '$1K=0x3',
        ),
      );
      await expect(page.getByTestId('field-error-K').textContent()).resolves.toBe(
        'the link\'s K: K drafts must be an integer from 1 to 8; got "0x3"',
      );
      await expect(page.getByTestId('field-error-prompt').textContent()).resolves.toBe(
        "the link's prompt: the prompt is empty",
      );
      await expect(page.locator('#K').inputValue()).resolves.toBe('0x3');
      await expect(page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).resolves.toBe(true);
      await page.locator('#K').fill('3');
      await runPresetToEnd();
    });

    // A 400 KB prompt in a link once ended in "Maximum call stack size exceeded" (ids.push(...ids) in the tokenizer).
    it('refuses a share link carrying a 400 KB prompt by its token count', async () => {
      await openLink(
        encodeShare({
          params: { ...presetParams(findPreset('person')), prompt: 'word '.repeat(80_000) },
          preset: 'person',
        }),
      );
      await expect(page.getByTestId('run-error').textContent({ timeout: 30_000 })).resolves.toMatch(
        /the prompt is \d+ tokens and one step needs \d+ more positions; the models see 256, so the prompt must be at most \d+ tokens/,
      );
      await runPresetToEnd();
    });

    // `pair in BUNDLED_PAIR_IDS` took "toString" for a pair: the worker was posted a function and the app blanked.
    it('refuses a share link naming the pair toString, an inherited name, in one line; the pair stays loaded', async () => {
      await openLink(`${encodeShare({ params: presetParams(findPreset('person')), preset: 'person' })}&pair=toString`);
      await expect(page.getByTestId('run-error').filter({ hasText: /pair/ }).textContent()).resolves.toMatch(
        /the link's pair "toString" is not one of bundled, bundled-float32/,
      );
      await runPresetToEnd();
    });

    it('refuses scrape positions 100000000 (480 bytes that grew the tab to 4.4 GB), 4294967296, 0x2 and 1e1, sizing no array from them', async () => {
      for (const position of ['100000000', '4294967296', '0x2', '1e1']) {
        await scrapeReads(
          scrape([`num_accepted_tokens_per_pos_total{engine="0",position="${position}"} 1`]),
          'vllm-error',
          new RegExp(`needs a position label 0, 1, … below 1024 in decimal, got "${position}"`),
        );
      }
      await runPresetToEnd();
    });

    it('draws the first 64 positions of a scrape reaching position 1023 and says how many there are', async () => {
      await scrapeReads(
        scrape(['num_accepted_tokens_per_pos_total{engine="0",position="1023"} 1']),
        'vllm-import',
        /the first 64 of 1024 positions are drawn/,
      );
      await runPresetToEnd();
    });

    it('refuses counters of 1e308 (which summed to Infinity) and a series listed twice (which was counted twice)', async () => {
      await scrapeReads(
        scrape(['num_drafts_total{engine="1"} 1e308']),
        'vllm-error',
        /a counter is a finite number from 0 to 2\^53/,
      );
      await scrapeReads(scrape(['num_drafts_total{engine="0"} 10']), 'vllm-error', /appears twice/);
      await runPresetToEnd();
    });

    it('refuses a dropped 50 MB scrape file from its size, unread (8 MiB of it in the box blocked the page ~12 s)', async () => {
      const boxBefore = await page.locator('#vllm-after').inputValue();
      await page.locator('#vllm-after').evaluate((box) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(50 * 1024 * 1024)], 'metrics.prom'));
        box.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      });
      await expect(page.getByTestId('vllm-error').textContent()).resolves.toBe(
        'the dropped file "metrics.prom" is 50.0 MiB of text; a scrape may be at most 8 MiB (a vLLM /metrics page is tens of kilobytes)',
      );
      await expect(page.locator('#vllm-after').inputValue()).resolves.toBe(boxBefore);
      await runPresetToEnd();
    });

    it('shows the compile budget in a sweep of a 10,000-property schema; Cancel abandons the compile at once', async () => {
      await fillHugeSchema();
      const sweep = page.getByTestId('sweep');
      await sweep.getByRole('button', { name: 'Run sweep' }).click();
      await expect(page.getByTestId('compiling').textContent({ timeout: 30_000 })).resolves.toMatch(
        /Compiling the schema \(10,000 properties\)/,
      );
      await sweep.getByRole('button', { name: 'Cancel' }).click();
      await expect(page.getByTestId('compiling').count()).resolves.toBe(0);
      await expect(sweep.getByTestId('sweep-status').getAttribute('data-status')).resolves.toBe('cancelled');
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });
      await runPresetToEnd();
    });

    it('shows the compile budget in a race of a 10,000-property schema; Reset abandons the compile at once', async () => {
      await fillHugeSchema();
      await page.getByRole('button', { name: 'Race all methods' }).click();
      await expect(page.getByTestId('compiling').textContent({ timeout: 30_000 })).resolves.toMatch(
        /Compiling the schema \(10,000 properties\)/,
      );
      await page.getByRole('button', { name: 'Reset', exact: true }).click();
      await expect(page.getByTestId('compiling').count()).resolves.toBe(0);
      await page.getByRole('heading', { name: /Race: every method.*\(cancelled\)/ }).waitFor({ timeout: 10_000 });
      await page.getByTestId('provider').waitFor({ timeout: 120_000 });
      await runPresetToEnd();
    });

    it('stops a model server sending 2 MiB for files its manifest lists at 26 KB and 354 KB', async () => {
      await customPairFails(
        'oversize',
        /is more than \d+ bytes, but \d+ bytes at most were expected \(the size the manifest lists\): the download was stopped/,
      );
      await runPresetToEnd();
    });

    it('refuses a model server announcing Content-Length 2 GB and trickling 1 KiB / 2 s from its header', async () => {
      await customPairFails(
        'trickle',
        /is 2147483648 bytes \(Content-Length\), but \d+ bytes at most were expected \(the size the manifest lists\): the download was stopped/,
      );
      await runPresetToEnd();
    });

    it('stops a model server sending honest sizes at 256 bytes/s, never stalling, by its pace', async () => {
      await customPairFails(
        'slow',
        /sent \d+ bytes in \d+\.\d s, slower than the 4096 bytes\/s a download must keep after its first 2 s: the download was stopped/,
      );
      await runPresetToEnd();
    });

    it('refuses a manifest naming its tokenizer at another site, before fetching it', async () => {
      await customPairFails(
        'far-tokenizer',
        /manifest field tokenizer\.file must be a file in the model's own directory, got "https:\/\/evil\.example\/tokenizer\.json"/,
      );
      await runPresetToEnd();
    });

    // A NaN in the draft's weights once loaded as "loaded", and every run then failed.
    it('refuses a draft with a NaN in its weights (its sha256 recomputed) at load: its logits are not finite', async () => {
      await customPairFails('damaged', /the draft's logits are not finite: the model file is damaged/);
      await runPresetToEnd();
    });

    it('presses a focused "Race all methods" on Space (it used to start a plain run)', async () => {
      const runBefore = await page.getByTestId('run-status').textContent();
      await page.getByRole('button', { name: 'Race all methods' }).focus();
      await page.keyboard.press(' ');
      await page.getByRole('heading', { name: /Race: every method.*\(running…/ }).waitFor({ timeout: 10_000 });
      // The run before the race is a record of its own: a race leaves it as it was.
      await expect(page.getByTestId('run-status').textContent()).resolves.toBe(runBefore);
      // The focus stays on the button, which now cancels the race: Space again stops it.
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel race');
      await page.keyboard.press(' ');
      await page.getByRole('heading', { name: /Race: every method.*\(cancelled\)/ }).waitFor({ timeout: 10_000 });
      await runPresetToEnd();
    });

    it('empties the list and says so when another tab clears the history', async () => {
      const other = await context.newPage();
      other.on('pageerror', (error) => problems.push(`other tab: ${error.message}`));
      await other.goto(app.url);
      await other.locator('[data-history-id]').first().waitFor();
      await other.getByRole('button', { name: 'Clear history' }).click();
      await page.getByTestId('history-notice').filter({ hasText: 'The history was cleared in another tab.' }).waitFor();
      await expect(page.locator('[data-history-id]').count()).resolves.toBe(0);
      await other.close();
      await runPresetToEnd();
      await expect(page.locator('[data-history-id]').count()).resolves.toBe(1);
    });
  },
);

describe("the built app's response headers", () => {
  let app: BuiltApp;
  beforeAll(async () => {
    app = await buildAndPreview();
  });
  afterAll(async () => {
    await app?.close();
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
