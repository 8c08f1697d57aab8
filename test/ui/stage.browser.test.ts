import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Plugin } from 'vite';
import type { SceneStop, ViewName } from '../../src/store/talk';
import type { SceneClaim } from '../../src/contract/sceneClaims';
import { CLAIM_SELECTORS, TALK_FOCUS } from '../../src/ui/views';
import { BUNDLED_FLOAT_PAIR } from '../../src/contract/modelPairs';
import { createServer } from 'node:http';
import { buildAndPreview, launchChromium, recordProblems, type BuiltApp } from '../support/browser';
import { svgTextProblems } from '../support/svgTexts';

const SCREENSHOTS = 'test-results/screenshots';

/** Three scenes: a run to the end, a run paused at step 2 then 3, and multiple drafts to the end. */
const TALK = JSON.stringify({
  format: 'speclab-talk',
  version: 1,
  title: 'three scenes',
  scenes: [
    { caption: 'The target alone.', run: { preset: 'sentiment', method: 'ar', seed: 5, max: 12 }, view: 'output' },
    {
      caption: 'One draft, two steps, then three.',
      run: { preset: 'person', method: 'tokenwise', K: 1, L: 4, seed: 5, max: 48 },
      stop: [2, 3],
      view: 'inspector',
    },
    {
      caption: 'Three drafts to the end.',
      run: { preset: 'sentiment', method: 'spectr-gbv', K: 3, L: 4, seed: 5, max: 24 },
      view: 'chart-histogram',
    },
  ],
});
const BAD_TALK = JSON.stringify({ format: 'speclab-talk', version: 1, scenes: [{ run: { K: 99 } }] });

/** A GIF's screen size and image count, read by walking its blocks (LZW data is skipped, not decoded). */
function gifFrames(bytes: Buffer): { width: number; height: number; frames: number } {
  expect(bytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
  const skipSubBlocks = (at: number) => {
    while (bytes[at] !== 0) at += (bytes[at] ?? 0) + 1;
    return at + 1;
  };
  const colourTable = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
  let at = 13 + colourTable(bytes[10] ?? 0);
  let frames = 0;
  for (;;) {
    const block = bytes[at];
    if (block === 0x3b) break;
    if (block === 0x21) at = skipSubBlocks(at + 2);
    else if (block === 0x2c) {
      frames++;
      at = skipSubBlocks(at + 10 + colourTable(bytes[at + 9] ?? 0) + 1);
    } else throw new Error(`GIF: unexpected block 0x${block?.toString(16)} at ${at}`);
  }
  return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8), frames };
}

/**
 * The slide page: a plain page served on a second localhost port (a page on another origin, as a reveal.js
 * deck served by its own server is; a routed page would count as public, and Chromium then refuses its frames
 * to a local server).
 */
async function serveSlide(html: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.setHeader('Content-Type', 'text/html');
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the slide server has no port');
  return {
    origin: `http://localhost:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The reveal.js example of docs/presenting.md#embeds, as written there, for SpecLab at `app`. */
function revealExample(app: string): string {
  const src = /<iframe data-src="https:\/\/speclab\.example\/(embed\.html\?view=tree[^"]*)"/.exec(
    readFileSync('docs/presenting.md', 'utf8'),
  )?.[1];
  if (!src) throw new Error('docs/presenting.md has no reveal.js example of embed.html?view=tree');
  return `${app}${src.replaceAll('&amp;', '&')}`;
}

/**
 * What the preview server sends that a plain static host would not, for the offline cache's tests: a captive
 * portal's 200 HTML page, once, for each path in `portalOnce`; the example talk edited on the server
 * (`editedTalk`, when set); and, when `newBuild` is set, the build's sw.js with another version, as a new build
 * would serve it.
 */
const offlineServer = { portalOnce: new Set<string>(), editedTalk: null as string | null, newBuild: false };
const offlineServerPlugin: Plugin = {
  name: 'stage-offline-server',
  configurePreviewServer(server) {
    server.middlewares.use((request, response, next) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      if (offlineServer.portalOnce.delete(path))
        return void response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>Venue Wi-Fi</title><h1>Accept the terms to continue</h1>');
      if (path === '/talks/introduction.json' && offlineServer.editedTalk !== null)
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(offlineServer.editedTalk);
      if (path === '/sw.js' && offlineServer.newBuild) {
        const script = readFileSync(resolve(server.config.root, server.config.build.outDir, 'sw.js'), 'utf8');
        return void response
          .writeHead(200, { 'content-type': 'text/javascript' })
          .end(script.replace(/"version":"[0-9a-f]+"/, '"version":"0000000000000000"'));
      }
      next();
    });
  },
};

const status = (page: Page) => page.getByTestId('run-status');
const tokens = (page: Page) => page.getByTestId('token-stream').first().getAttribute('data-text');

/** The scene on screen: its counter and caption, and the run stopped where the scene says. */
async function expectScene(
  page: Page,
  scene: number,
  caption: string,
  stopped: 'done' | 'paused',
  steps?: number,
  scenes = 3,
): Promise<void> {
  await expect(page.getByTestId('talk-counter').textContent()).resolves.toBe(`scene ${scene} / ${scenes}`);
  await expect(page.getByTestId('talk-caption').textContent()).resolves.toBe(caption);
  await status(page)
    .filter({ hasText: new RegExp(`^${stopped}$`) })
    .waitFor({ timeout: 120_000 });
  if (steps !== undefined)
    await page
      .locator(`[data-counter="steps"]`)
      .filter({ hasText: new RegExp(`^${steps}$`) })
      .waitFor({ timeout: 60_000 });
}

describe('on stage: offline after one visit, a talk driven by a clicker, one view in a frame', () => {
  let app: BuiltApp;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [app, browser] = await Promise.all([buildAndPreview([offlineServerPlugin]), launchChromium({ webgpu: false })]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('after one visit, the app reloads and runs a generation to the end with the network off', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const problems = recordProblems(page);
    // ?sw: under automation the app registers its service worker only when asked (src/ui/OfflineStatus.tsx).
    await page.goto(`${app.url}?sw`);
    await page.getByTestId('offline-status').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 180_000 });
    await expect(page.getByTestId('offline-status').textContent()).resolves.toBe('offline: ready');
    await context.setOffline(true);
    await page.reload();
    await page.getByTestId('status-line').waitFor({ timeout: 120_000 });
    await page.locator('#max-tokens').fill('16');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await status(page)
      .filter({ hasText: /^(done|error)$/ })
      .waitFor({ timeout: 120_000 });
    await expect(status(page).textContent()).resolves.toBe('done');
    expect((await tokens(page))?.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the offline cache heals: a captive portal's page for a manifest is never kept, an edited talk shows after one reload, Clear offline data says what it cleared, a new build drops old runtime caches", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const problems = recordProblems(page);
    await page.goto(`${app.url}?sw`);
    await page.getByTestId('offline-status').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 180_000 });
    await page.reload();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

    // A venue's captive portal answers the float32 target's manifest once with its page: the load says so (the
    // loader, finding no manifest, looks for a Hub config.json and names that);
    // the page is not kept, so Retry (the portal passed) loads the pair and runs.
    offlineServer.portalOnce.add('/models/speclab-target/manifest.json');
    await page.locator('#model-pair').selectOption({ label: BUNDLED_FLOAT_PAIR.label });
    await expect(page.getByTestId('load-error').textContent({ timeout: 60_000 })).resolves.toMatch(
      /\/models\/speclab-target\/\S+ is a web page, not a model file/,
    );
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByTestId('provider').filter({ hasText: 'speclab-target' }).waitFor({ timeout: 120_000 });
    await expect(page.getByTestId('provider').textContent()).resolves.not.toMatch(/int8/);
    await page.locator('#max-tokens').fill('16');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await status(page)
      .filter({ hasText: /^(done|error)$/ })
      .waitFor({ timeout: 120_000 });
    await expect(status(page).textContent()).resolves.toBe('done');
    // What the worker kept for the manifest is the JSON file (kept in the background once checked).
    const keptManifest = () =>
      page.evaluate(async () => {
        for (const name of await caches.keys()) {
          const hit = await (
            await caches.open(name)
          ).match(new URL('/models/speclab-target/manifest.json', location.href).href);
          if (hit) return `${name}: ${hit.headers.get('content-type')}: ${(await hit.text()).slice(0, 1)}`;
        }
        return 'none';
      });
    await expect.poll(keptManifest).toMatch(/^speclab-runtime-[0-9a-f]{16}: application\/json: \{$/);

    // The example talk, precached at install, edited on the server: one load shows the new caption.
    const talk = JSON.parse(readFileSync('public/talks/introduction.json', 'utf8')) as {
      scenes: { caption: string }[];
    };
    const edited = 'Edited on the server after the app was cached.';
    offlineServer.editedTalk = JSON.stringify({
      ...talk,
      scenes: talk.scenes.map((scene, i) => (i === 0 ? { ...scene, caption: edited } : scene)),
    });
    await page.goto(`${app.url}?talk=talks/introduction.json`);
    await expect(page.getByTestId('talk-caption').textContent({ timeout: 60_000 })).resolves.toBe(edited);
    offlineServer.editedTalk = null;

    // A new build: its activate deletes the runtime caches of older versions (one of this build's, one unversioned as
    // before), and the old shell. Clear offline data first says what it clears.
    await page.goto(`${app.url}?sw`);
    await page.getByTestId('offline-status').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 180_000 });
    await page.getByRole('button', { name: 'Clear offline data' }).click();
    await page.getByTestId('offline-cleared').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/offline-cleared-1280x720.png` });
    await expect(page.getByTestId('offline-cleared').textContent()).resolves.toMatch(
      /^ Cleared \d+ files \(2\d\.\d MB\) kept offline as they were loaded \(the float32 target, talks, Hub models\); the app and the bundled int8 pair stay cached\.$/,
    );
    const before = await page.evaluate(async () => {
      await (await caches.open('speclab-runtime')).put('/old.json', new Response('{}'));
      await (await caches.open('speclab-runtime-ffffffffffffffff')).put('/old.json', new Response('{}'));
      return caches.keys();
    });
    offlineServer.newBuild = true;
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((registration) => registration?.update()));
    await page.getByRole('button', { name: 'Reload to update' }).click({ timeout: 180_000 });
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    // Only the new version's caches are left: its shell, and its runtime cache if it has kept anything yet.
    await expect
      .poll(() =>
        page.evaluate(() => caches.keys()).then((names) => names.filter((name) => !name.endsWith('-0000000000000000'))),
      )
      .toEqual([]);
    await expect(page.evaluate(() => caches.has('speclab-shell-0000000000000000'))).resolves.toBe(true);
    expect(before).toEqual(expect.arrayContaining(['speclab-runtime', 'speclab-runtime-ffffffffffffffff']));
    expect(before.some((name) => name.startsWith('speclab-shell-') && name !== 'speclab-shell-0000000000000000')).toBe(
      true,
    );
    offlineServer.newBuild = false;
    expect(problems).toEqual([]);
    await context.close();
  });

  it('PageDown and PageUp step through a three-scene talk, showing the same tokens on a second pass; a step exports as a GIF; a malformed talk is named; ?present=1 opens presentation mode', async () => {
    // No service worker here, so that the page's routes see every request.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 720 },
      serviceWorkers: 'block',
      acceptDownloads: true,
    });
    await context.route(
      (url) => url.pathname === '/stage-talk.json',
      (route) => route.fulfill({ contentType: 'application/json', body: TALK }),
    );
    await context.route(
      (url) => url.pathname === '/bad-talk.json',
      (route) => route.fulfill({ contentType: 'application/json', body: BAD_TALK }),
    );
    const page = await context.newPage();
    const problems = recordProblems(page);
    await page.goto(`${app.url}?talk=/stage-talk.json`);
    await expectScene(page, 1, 'The target alone.', 'done');
    const first = await tokens(page);
    await page.keyboard.press('PageDown');
    await expectScene(page, 2, 'One draft, two steps, then three.', 'paused', 2);
    await page.keyboard.press('PageDown');
    await expectScene(page, 2, 'One draft, two steps, then three.', 'paused', 3);
    await page.keyboard.press('PageDown');
    await expectScene(page, 3, 'Three drafts to the end.', 'done');
    const third = await tokens(page);
    await page.screenshot({ path: `${SCREENSHOTS}/talk-mode-1280x720.png` });
    // "Export this step": the last step's replay as a GIF.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 120_000 }),
      page.getByTestId('export-step').click(),
    ]);
    const gif = readFileSync(await download.path());
    writeFileSync(`${SCREENSHOTS}/${download.suggestedFilename()}`, gif);
    const decoded = gifFrames(gif);
    expect(decoded).toMatchObject({ width: 1280, height: 720 });
    expect(decoded.frames).toBeGreaterThanOrEqual(10);
    await page.keyboard.press('PageUp');
    await expectScene(page, 2, 'One draft, two steps, then three.', 'paused', 3);
    await page.keyboard.press('PageUp');
    await expectScene(page, 2, 'One draft, two steps, then three.', 'paused', 2);
    await page.keyboard.press('PageUp');
    await expectScene(page, 1, 'The target alone.', 'done');
    expect(await tokens(page)).toBe(first);
    await page.keyboard.press('PageDown');
    await expectScene(page, 2, 'One draft, two steps, then three.', 'paused', 2);
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    await expectScene(page, 3, 'Three drafts to the end.', 'done');
    expect(await tokens(page)).toBe(third);
    await page.keyboard.press('Escape');
    await page.getByTestId('talk-bar').waitFor({ state: 'detached' });

    await page.goto(`${app.url}?talk=/bad-talk.json`);
    await expect(page.getByTestId('talk-error').textContent()).resolves.toMatch(
      /^This talk file cannot be used: scene 1: the run's K: /,
    );
    await page.goto(`${app.url}?present=1`);
    await page.waitForFunction(() => document.documentElement.classList.contains('presentation'));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('PageDown moves on while a scene runs and while a race runs; a talk whose scene cannot show its claim is refused in one line', async () => {
    const busyTalk = JSON.stringify({
      format: 'speclab-talk',
      version: 1,
      title: 'busy',
      scenes: [
        { caption: 'A long run.', run: { preset: 'reasoning', method: 'ar', seed: 5, max: 512 }, view: 'output' },
        {
          caption: 'A race.',
          run: { preset: 'sentiment', method: 'tokenwise', seed: 5, max: 48 },
          stop: 'race',
          view: 'race',
        },
        { caption: 'After the race.', run: { preset: 'sentiment', method: 'ar', seed: 5, max: 12 }, view: 'output' },
      ],
    });
    // The invalidation scene of the example, cut to 8 tokens: its first struck-out token comes later.
    const example = JSON.parse(readFileSync('public/talks/introduction.json', 'utf8')) as {
      scenes: { shows?: string; run: Record<string, unknown> }[];
    };
    const mask = example.scenes.find((scene) => scene.shows === 'invalidation');
    const shortTalk = JSON.stringify({
      format: 'speclab-talk',
      version: 1,
      scenes: [
        { run: { method: 'ar' }, shows: 'target-alone' },
        { ...mask, run: { ...mask?.run, max: 8 } },
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, serviceWorkers: 'block' });
    for (const [path, body] of [
      ['/busy-talk.json', busyTalk],
      ['/short-talk.json', shortTalk],
    ] as const)
      await context.route(
        (url) => url.pathname === path,
        (route) => route.fulfill({ contentType: 'application/json', body }),
      );
    const page = await context.newPage();
    const problems = recordProblems(page);
    /** Presses PageDown and returns the ms until the talk bar names `scene` (logged: a test asserts no wall-clock time). */
    const next = (scene: number) =>
      page.evaluate(
        (scene) =>
          new Promise<number>((resolve) => {
            const pressed = performance.now();
            const observer = new MutationObserver(() => {
              if (document.querySelector(`[data-testid="talk-bar"][data-scene="${scene}"]`)) {
                observer.disconnect();
                resolve(performance.now() - pressed);
              }
            });
            observer.observe(document.body, { subtree: true, attributes: true, childList: true });
            document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true }));
          }),
        scene,
      );
    await page.goto(`${app.url}?talk=/busy-talk.json`);
    await status(page)
      .filter({ hasText: /^running$/ })
      .waitFor({ timeout: 120_000 });
    const fromRun = await next(2);
    // Scene 1's run is stopped, not finished; scene 2's race starts.
    await page.getByText(/\(running… \d+ of/).waitFor({ timeout: 60_000 });
    const fromRace = await next(3);
    await expectScene(page, 3, 'After the race.', 'done', undefined, 3);
    console.log(
      `PageDown to the next scene: ${Math.round(fromRun)} ms from a run, ${Math.round(fromRace)} ms from a race`,
    );

    await page.goto(`${app.url}?talk=/short-talk.json`);
    const refusal = await page.getByTestId('talk-error').textContent({ timeout: 120_000 });
    expect(refusal).toMatch(
      /^This talk cannot be used: scene 2 shows "invalidation" \(a draft token struck out by the schema\), but its run \(tokenwise, K = 1, L = 6, seed 2, 8 tokens\) never does; choose another seed or settings\.$/,
    );
    await expect(page.getByTestId('talk-bar').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('ready before the warm-up is over; introduction.json, stepped with PageDown: every scene places its focus whole in the screen and above the caption bar at 1024 × 768, 1920 × 1080 and 1280 × 720', async () => {
    const talk = JSON.parse(readFileSync('public/talks/introduction.json', 'utf8')) as {
      scenes: { stop?: SceneStop; view: ViewName; shows?: SceneClaim }[];
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, serviceWorkers: 'block' });
    const page = await context.newPage();
    const problems = recordProblems(page);
    // "Ready" comes before the engine's warm-up is over (by the order of what the page shows, never by time): the
    // status line, which appears at "ready", is first seen with the warm-up still running.
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { warmOrder: seen });
      new MutationObserver(() => {
        const warm = document.querySelector('[data-testid="status-line"]')?.getAttribute('data-warm');
        if (warm && seen.at(-1) !== warm) seen.push(warm);
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-warm'] });
    });
    await page.goto(`${app.url}?talk=talks/introduction.json`);
    await page.locator('[data-testid="status-line"][data-warm="true"]').waitFor({ timeout: 120_000 });
    await expect(page.evaluate(() => (window as unknown as { warmOrder: string[] }).warmOrder)).resolves.toEqual([
      'false',
      'true',
    ]);
    // The race scene races every method for five rounds (enough pairs for a verdict), at 50 tokens per method a
    // round rather than the 300 of the default: what is checked (its focus placed, its verdict beside the caption,
    // its rows recorded) is the same for any budget, and the default's race was half of this file's time. Talk
    // mode hides the race's own fields (html.talk .race > .field), so the app's field is set where it stands.
    await page.locator('#race-budget').selectOption('50', { force: true });
    const settled = (scene: number) =>
      page
        .locator(`[data-testid="talk-bar"][data-scene="${scene}"][data-settled="true"]`)
        .waitFor({ timeout: 300_000 });
    const boxes: string[] = [];
    for (const [index, scene] of talk.scenes.entries()) {
      const stops = Array.isArray(scene.stop) ? scene.stop.length : 1;
      for (let stop = 0; stop < stops; stop++) {
        if (index > 0 || stop > 0) await page.keyboard.press('PageDown');
        // A stop of a paused scene is settled once the run is paused at that step count.
        await settled(index + 1);
        // The scene opens paused on the step found to show its claim (the talk bar names it), or at its count.
        const pausedAt =
          scene.stop === 'shown'
            ? await page.getByTestId('talk-bar').getAttribute('data-shown-step')
            : Array.isArray(scene.stop)
              ? String(scene.stop[stop])
              : null;
        if (pausedAt !== null) {
          await page
            .locator('[data-counter="steps"]')
            .filter({ hasText: new RegExp(`^${pausedAt}$`) })
            .waitFor({ timeout: 60_000 });
          // The inspector (tree, grid) draws deferred: measured once it shows that step, not the one before it.
          await page
            .locator('label[for="step-scrub"]')
            .filter({ hasText: new RegExp(`^Step ${pausedAt} of ${pausedAt}`) })
            .waitFor({ timeout: 60_000 });
        }
        // The step's explanation draws after the run pauses; the talk places the focus again once it has.
        await page.locator(TALK_FOCUS[scene.view]).first().waitFor({ state: 'attached', timeout: 60_000 });
        // One page, resized: the talk places the focus again on every resize.
        for (const size of [
          { width: 1024, height: 768 },
          { width: 1920, height: 1080 },
          { width: 1280, height: 720 },
        ]) {
          await page.setViewportSize(size);
          // Views that draw after the run stops move the focus, and the talk places it again: measured once still.
          const measure = () =>
            page.evaluate(
              ({ selector, claim }) =>
                new Promise<{
                  focus: DOMRect | null;
                  bar: DOMRect | null;
                  top: number;
                  claims: DOMRect[];
                }>((resolve) =>
                  requestAnimationFrame(() =>
                    requestAnimationFrame(() => {
                      const runBar = document.querySelector('.run-bar');
                      const focus = document.querySelector(selector);
                      resolve({
                        focus: focus?.getBoundingClientRect().toJSON() ?? null,
                        bar:
                          document.querySelector('[data-testid="talk-bar"]')?.getBoundingClientRect().toJSON() ?? null,
                        top:
                          runBar && getComputedStyle(runBar).position === 'sticky'
                            ? runBar.getBoundingClientRect().bottom
                            : 0,
                        // A counter at 0 or a bar with no height shows nothing (src/ui/views.ts CLAIM_SELECTORS).
                        claims: claim
                          ? [...(focus?.matches(claim) ? [focus] : []), ...(focus?.querySelectorAll(claim) ?? [])]
                              .filter((element) =>
                                element.hasAttribute('data-counter')
                                  ? parseFloat(element.textContent ?? '') > 0
                                  : !element.matches('.recharts-bar-rectangle') ||
                                    element.getBoundingClientRect().height > 0,
                              )
                              .map((element) => element.getBoundingClientRect().toJSON())
                          : [],
                      });
                    }),
                  ),
                ),
              { selector: TALK_FOCUS[scene.view], claim: scene.shows ? CLAIM_SELECTORS[scene.shows] : null },
            );
          let placed = await measure();
          for (let again = await measure(); JSON.stringify(again) !== JSON.stringify(placed); again = await measure())
            placed = again;
          const where = `scene ${index + 1}${stops > 1 ? ` stop ${stop + 1}` : ''} (${scene.view}) at ${size.width} × ${size.height}`;
          if (!placed.focus || !placed.bar) throw new Error(`${where}: no focus element or no caption bar`);
          boxes.push(
            `${where}: ${Math.round(placed.focus.top)}–${Math.round(placed.focus.bottom)} between ${Math.round(placed.top)} and ${Math.round(placed.bar.top)}`,
          );
          expect.soft(placed.focus.top, where).toBeGreaterThanOrEqual(placed.top - 0.5);
          expect.soft(placed.focus.bottom, where).toBeLessThanOrEqual(placed.bar.top + 0.5);
          expect.soft(placed.focus.left, where).toBeGreaterThanOrEqual(-0.5);
          expect.soft(placed.focus.right, where).toBeLessThanOrEqual(size.width + 0.5);
          expect
            .soft(await page.evaluate(svgTextProblems), `${where}: SVG texts cut by their box or over each other`)
            .toEqual([]);
          await page.screenshot({
            path: `${SCREENSHOTS}/talk-scene-${index + 1}${stops > 1 ? `-${stop + 1}` : ''}-${size.width}x${size.height}.png`,
          });
          // What the caption claims is on screen: an element that shows it, whole, between the run bar and the caption.
          if (scene.shows) {
            const bar = placed.bar;
            const inView = placed.claims.filter(
              (box) =>
                box.width > 0 &&
                box.top >= placed.top - 0.5 &&
                box.bottom <= bar.top + 0.5 &&
                box.left >= -0.5 &&
                box.right <= size.width + 0.5,
            );
            expect
              .soft(
                inView.length,
                `${where}: an element showing "${scene.shows}" in view (found: ${JSON.stringify(placed.claims.map((box) => [box.left, box.top, box.right, box.bottom].map(Math.round)))})`,
              )
              .toBeGreaterThan(0);
          }
        }
      }
    }
    console.log(boxes.join('\n'));
    // The race scene's caption sits beside the race's own verdict for its method.
    await expect(page.getByTestId('talk-verdict').textContent()).resolves.toMatch(
      /^SpecTr-GBV against AR: .*(faster|slower|within noise|too few samples)/,
    );
    const raced = await page.getByTestId('race-speedup').allTextContents();
    // Back and on again: the race scene shows the rows it recorded, at once, and says when they were recorded.
    await page.keyboard.press('PageUp');
    await settled(talk.scenes.length - 1);
    await page.keyboard.press('PageDown');
    await settled(talk.scenes.length);
    await expect(page.getByTestId('talk-verdict').textContent()).resolves.toMatch(/\(recorded .+\)$/);
    await expect(page.getByTestId('race-speedup').allTextContents()).resolves.toEqual(raced);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('embed.html?view=tree and ?view=chart-histogram fill an 800 × 450 frame with that view alone, in a slide page on another origin, which may not frame the app itself', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 1100 }, serviceWorkers: 'block' });
    const page = await context.newPage();
    const problems = recordProblems(page);
    // A plain slide page on another origin (localhost on a second port, while the app is at 127.0.0.1;
    // docs/presenting.md#embeds): no isolation headers are needed. The tree is the docs' reveal.js example, a
    // short link its preset fills. The app's own page refuses its frame (X-Frame-Options: SAMEORIGIN).
    const slide = await serveSlide(
      [
        // No favicon request: the slide server would answer it with the page.
        '<!doctype html><link rel="icon" href="data:,">',
        `<iframe id="tree" src="${revealExample(app.url)}" width="800" height="450"></iframe>`,
        `<iframe id="chart" src="${app.url}embed.html?view=chart-histogram" width="800" height="450"></iframe>`,
        `<iframe id="app" src="${app.url}?embed=tree" width="200" height="100"></iframe>`,
      ].join(''),
    );
    await page.goto(slide.origin);
    for (const [frameId, selector] of [
      ['tree', '[data-testid="draft-tree"]'],
      ['chart', 'figure[data-chart="histogram"] .recharts-bar-rectangle'],
    ] as const) {
      const frame = page.frameLocator(`#${frameId}`);
      await frame.locator(selector).first().waitFor({ state: 'attached', timeout: 180_000 });
      const target = await frame.locator('.embed-target').boundingBox();
      const outer = await page.locator(`#${frameId}`).boundingBox();
      if (!target || !outer) throw new Error('no box');
      // The view fills the frame, inside its 2 px border (a frame from another origin reports its offset as 0 or 2).
      expect(Math.abs(target.width - 800)).toBeLessThan(1);
      expect(Math.abs(target.height - 450)).toBeLessThan(1);
      for (const [start, extent, frameStart, frameExtent] of [
        [target.x, target.width, outer.x, outer.width],
        [target.y, target.height, outer.y, outer.height],
      ] as const) {
        expect(start).toBeGreaterThanOrEqual(frameStart - 0.5);
        expect(start + extent).toBeLessThanOrEqual(frameStart + frameExtent + 0.5);
      }
      // Projector type in an embed: the tree's tokens and the chart's axis titles and ticks at 18 px or more, as drawn.
      const sizes = await frame.locator('.embed-target').evaluate((target) =>
        [...target.querySelectorAll('svg text')]
          .filter((text) => (text.textContent ?? '').trim() !== '')
          .map((text) => {
            const svg = (text as SVGTextElement).ownerSVGElement;
            const viewBox = svg?.viewBox.baseVal;
            const scale = svg && viewBox && viewBox.width > 0 ? svg.getBoundingClientRect().width / viewBox.width : 1;
            return parseFloat(getComputedStyle(text).fontSize) * scale;
          }),
      );
      expect(sizes.length, frameId).toBeGreaterThan(0);
      expect(Math.min(...sizes), frameId).toBeGreaterThanOrEqual(17.95);
      await expect(frame.getByRole('heading', { name: 'SpecLab' }).isVisible()).resolves.toBe(false);
      await expect(frame.locator('section.counters').isVisible()).resolves.toBe(false);
    }
    // The docs' example, a short link, runs (its preset fills the keys it leaves out) and shows the step its
    // &step= names, a tree of several prefixes, not the one-node tree of a run's last step.
    const tree = page.frameLocator('#tree');
    await tree
      .getByTestId('run-status')
      .filter({ hasText: /^(done|error)$/ })
      .waitFor({ state: 'attached', timeout: 180_000 });
    await expect(tree.getByTestId('run-status').textContent()).resolves.toBe('done');
    const shownStep = new URL(revealExample(app.url)).searchParams.get('step');
    expect(shownStep, 'the docs example names its step').not.toBeNull();
    await expect(tree.locator('label[for="step-scrub"]').textContent()).resolves.toMatch(
      new RegExp(`^Step ${shownStep} of \\d+`),
    );
    expect(
      Number(await tree.locator('[data-testid="draft-tree"] svg').getAttribute('data-prefixes')),
    ).toBeGreaterThanOrEqual(4);
    // A slide shows the whole tree: every node, the final token included, inside the frame, none scrolled out of
    // view (wider across than 800 px, this tree turns down to fit).
    const fit = await tree.locator('.embed-target').evaluate((target) => {
      const frame = target.getBoundingClientRect();
      const nodes = [...target.querySelectorAll('g.tree-node rect')].map((rect) => rect.getBoundingClientRect());
      return {
        nodes: nodes.length,
        outside: nodes.filter(
          (box) => box.left < frame.left || box.right > frame.right || box.top < frame.top || box.bottom > frame.bottom,
        ).length,
        scrolls: target.scrollWidth > target.clientWidth || target.scrollHeight > target.clientHeight,
      };
    });
    expect(fit).toMatchObject({ outside: 0, scrolls: false });
    expect(fit.nodes).toBeGreaterThanOrEqual(6);
    // The app's own page in that frame was refused: Chromium shows its error page there instead.
    await expect.poll(() => page.frames().some((frame) => frame.url().startsWith('chrome-error:'))).toBe(true);
    const chart = await page.locator('#chart').boundingBox();
    if (!chart) throw new Error('no box');
    await page.screenshot({
      path: `${SCREENSHOTS}/embeds-800x450.png`,
      clip: { x: 0, y: 0, width: 1000, height: chart.y + chart.height },
    });
    expect(
      problems.filter(
        (problem) => !/Refused to display .* in a frame because it set 'X-Frame-Options' to 'sameorigin'/.test(problem),
      ),
    ).toEqual([]);
    await context.close();
    await slide.close();
  });
});
