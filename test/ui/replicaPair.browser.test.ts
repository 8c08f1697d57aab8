/**
 * A presenter with internet loads a real pair from the Hub through the picker's URL fields. Here a local mirror in
 * the Hub's URL layout (`/{org}/{repo}/resolve/main/…`) stands in for the Hub, served from the app's own origin
 * as the Content-Security-Policy allows a user's mirror, holding a replica pair of Llama's export (a 1-layer draft
 * and a 2-layer target: Llama 2's real tokenizer at 32,000 tokens, grouped-query attention, the onnx-community
 * inputs and outputs; tools/replica). The built app loads it with progress, runs a schema on wasm, then reloads it
 * from the Cache API with the models on WebGPU (SwiftShader) and the WGSL verifier, and runs it there.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import type { Browser, Page } from 'playwright-core';
import type { Plugin } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAndPreview, launchChromium, recordProblems, type BuiltApp } from '../support/browser';
import { pairDirs, replicaFiles } from '../support/replicas';

const SCREENSHOTS = 'test-results/screenshots';
const ORG = 'speclab-replicas';
const DRAFT_REPO = 'llama2-1-layer';
const TARGET_REPO = 'llama2-2-layer';
/** The file whose first request the mirror holds, so that the page is seen mid-download. */
const HELD = `${TARGET_REPO}/onnx/model.onnx`;

// A closed language (enums and a boolean), as in replicaPairs.test.ts: random weights still end it in a few tokens.
const SCHEMA = {
  type: 'object',
  properties: { mood: { enum: ['happy', 'sad', '中立'] }, ok: { type: 'boolean' } },
  required: ['mood', 'ok'],
  additionalProperties: false,
};
const ajv = new Ajv({ strict: false });

/**
 * The Hub's URL layout over local directories: `/{ORG}/{repo}/resolve/main/{path}` answers the repository's files
 * (only those, by name: nothing else of the disk is reachable) and 404 for any other path, as the Hub does. It
 * counts the requests for each path, and holds the first request for `HELD` until `release()`.
 */
function hubMirror(repos: Record<string, string>) {
  const files = new Map<string, string>();
  for (const [repo, dir] of Object.entries(repos))
    for (const { path } of replicaFiles(dir)) files.set(`${repo}/${path}`, join(dir, path));
  const requests = new Map<string, number>();
  let arrived: () => void = () => undefined;
  let release: () => void = () => undefined;
  const heldArrived = new Promise<void>((resolve) => (arrived = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const plugin: Plugin = {
    name: 'hub-mirror',
    configurePreviewServer(server) {
      server.middlewares.use(`/${ORG}/`, (request, response) => {
        const match = /^\/([^/]+)\/resolve\/main\/([^?]+)/.exec(request.url ?? '');
        const key = match ? `${match[1]}/${match[2]}` : (request.url ?? '');
        requests.set(key, (requests.get(key) ?? 0) + 1);
        const file = files.get(key);
        if (!file || (request.method !== 'GET' && request.method !== 'HEAD')) {
          response.statusCode = 404;
          response.end('Entry not found');
          return;
        }
        const body = readFileSync(file);
        const answer = () => {
          response.setHeader('Content-Type', key.endsWith('.json') ? 'application/json' : 'application/octet-stream');
          response.setHeader('Content-Length', body.length);
          response.end(request.method === 'HEAD' ? undefined : body);
        };
        if (key === HELD && requests.get(key) === 1) {
          arrived();
          void released.then(answer);
        } else answer();
      });
    },
  };
  return { plugin, requests, files, heldArrived, release: () => release() };
}

/** Runs the page's settings to the end, as a user presses Run; the text written, after checking that no error shows. */
async function runToDone(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page
    .getByTestId('run-status')
    .filter({ hasText: /^(done|error)$/ })
    .waitFor({ timeout: 240_000 });
  await expect(page.getByTestId('run-error').count()).resolves.toBe(0);
  return (await page.getByTestId('token-stream').getAttribute('data-text')) ?? '';
}

/**
 * The schema, prompt and settings of both runs, entered in the form. K = 2 and L = 2 keep the WGSL verifier's
 * work on SwiftShader (K·(L + 1) + K·L rows of 32,000 a step) short; T = 0 makes the run the same each time.
 */
async function enterRun(page: Page): Promise<void> {
  await page.locator('#schema').fill(JSON.stringify(SCHEMA, null, 2));
  await page.locator('#prompt').fill('Mood?');
  const settings: [string, string][] = [
    ['#temperature', '0'],
    ['#K', '2'],
    ['#L', '2'],
  ];
  for (const [field, value] of settings) {
    await page.locator(field).fill(value);
    await page.locator(field).press('Tab');
  }
}

/** The top of the page (status line, settings, the output and its verdict), where a user looks. */
async function screenshotTop(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SCREENSHOTS}/replica-pair-${name}.png` });
}

async function expectSchemaValid(page: Page, text: string): Promise<void> {
  const value: unknown = JSON.parse(text);
  expect(ajv.validate(SCHEMA, value), `${text}: ${ajv.errorsText()}`).toBe(true);
  await expect(page.getByTestId('verdict').textContent()).resolves.toMatch(/^Schema-valid JSON/);
}

const PAIR_NAMES = `${ORG}/${DRAFT_REPO} → ${ORG}/${TARGET_REPO}`;

describe('a replica pair from a local Hub mirror, loaded through the picker', () => {
  const { draft, target } = pairDirs('llama2');
  const mirror = hubMirror({ [DRAFT_REPO]: draft, [TARGET_REPO]: target });
  let app: BuiltApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = await buildAndPreview([mirror.plugin]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1200 } });
    recordProblems(page, problems);
    await page.goto(app.url);
    // The bundled pair first, as on every visit.
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  });

  afterAll(async () => {
    mirror.release();
    await browser?.close();
    await app?.close();
  });

  it('loads the pair from the mirror with progress, names it, and runs a schema to valid JSON on wasm', async () => {
    await page.locator('#draft-url').fill(`${app.url}${ORG}/${DRAFT_REPO}/resolve/main/`);
    await page.locator('#target-url').fill(`${app.url}${ORG}/${TARGET_REPO}/resolve/main/`);
    await page.getByRole('button', { name: 'Load custom pair' }).click();
    await mirror.heldArrived;
    // The target's model.onnx has not answered yet: its size is unknown, so the banner says "or more".
    const banner = page.locator('[data-testid="load-progress"][data-phase="download"]');
    await banner.filter({ hasText: /^Downloading: [\d.]+ (KiB|MiB) of [\d.]+ (KiB|MiB) or more/ }).waitFor();
    await expect(banner.locator('progress').count()).resolves.toBe(1);
    await screenshotTop(page, 'loading');
    mirror.release();

    const provider = page.getByTestId('provider');
    await provider
      .filter({ hasText: new RegExp(`^Models on wasm \\(CPU\\).* · ${PAIR_NAMES} · loaded in`) })
      .waitFor({ timeout: 180_000 });
    await expect(page.locator('#model-pair').inputValue()).resolves.toBe('custom');
    await enterRun(page);
    await expectSchemaValid(page, await runToDone(page));
    await screenshotTop(page, 'wasm');
  });

  it('reloads it from the cache with the models on WebGPU and the WGSL verifier, and runs it there', async () => {
    await page.locator('#provider').selectOption('webgpu');
    await page.locator('#verifier-choice').selectOption('gpu');
    await page
      .getByTestId('provider')
      .filter({ hasText: new RegExp(`^Models on WebGPU \\(chosen, on the software adapter .*\\) · ${PAIR_NAMES} · `) })
      .waitFor({ timeout: 180_000 });
    await page
      .getByTestId('verifier')
      .filter({ hasText: /^Verifier: WGSL on .*swiftshader/ })
      .waitFor({ timeout: 120_000 });
    // Every file of the repositories went over the network once: the reloads read the Cache API.
    const fetched = [...mirror.requests].filter(([path]) => mirror.files.has(path));
    expect(fetched.map(([path]) => path)).toEqual(
      expect.arrayContaining([`${DRAFT_REPO}/onnx/model.onnx`, HELD, `${TARGET_REPO}/tokenizer.json`]),
    );
    for (const [path, count] of fetched) expect(count, path).toBe(1);
    await expectSchemaValid(page, await runToDone(page));
    await screenshotTop(page, 'webgpu');
  });

  it('raised no console or page errors', () => {
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
