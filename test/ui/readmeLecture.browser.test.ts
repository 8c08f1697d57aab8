/**
 * The README's five-minute lecture (README.md#a-five-minute-lecture), done as the README says, key by key, on
 * the built app at 1280 × 720: each of its six steps checked for what the text promises the room will see.
 * Screenshots go to test-results/screenshots (readme-lecture-*.png).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ALL_FORCED } from '../../src/ui/playback';
import { TOUR_STOPS } from '../../src/ui/tourStops';
import { buildAndPreview, launchChromium, recordProblems, type BuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENSHOTS}/readme-lecture-${name}-1280x720.png` });

/** The README's lecture section, so that the test reads the promises it checks from the text a speaker follows. */
const LECTURE = /## A five-minute lecture\n([\s\S]*?)\n## /.exec(readFileSync('README.md', 'utf8'))?.[1] ?? '';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Presses → and waits for the inspector to show step `count` of `count`. */
async function stepWithArrow(page: Page, count: number) {
  await page.keyboard.press('ArrowRight');
  await page
    .getByTestId('inspector')
    .filter({ hasText: `Step ${count} of ${count}` })
    .waitFor({ timeout: 120_000 });
}

describe("the README's five-minute lecture, step by step in the built app", () => {
  let app: BuiltApp;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [app, browser] = await Promise.all([buildAndPreview(), launchChromium()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    problems = recordProblems(page);
    // A first visit as a person makes it: the tour stays shut under automation (src/ui/Tour.ts), so the page is
    // told it is not automated.
    await page.addInitScript(() => Object.defineProperty(navigator, 'webdriver', { get: () => false }));
  }, 400_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('the README holds the six steps this test follows', () => {
    expect(LECTURE.match(/^\d\. \*\*/gm)).toHaveLength(6);
    for (const promise of [
      'eight-stop tour',
      'Press **P**',
      'SpecTr-GBV',
      '**→** (Step) twice',
      'Space',
      'Race all methods',
    ])
      expect(LECTURE).toContain(promise);
    expect(LECTURE).toContain(`*${ALL_FORCED}*`);
  });

  it('1. Open it: an eight-stop tour on a first visit, closed for good once dismissed', async () => {
    expect(TOUR_STOPS).toHaveLength(8);
    await page.goto(app.url);
    const popover = page.locator('.driver-popover');
    await popover.waitFor({ timeout: 120_000 });
    await expect(popover.textContent()).resolves.toMatch(/Start here/);
    await shot(page, '1-tour');
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
    await expect(popover.count()).resolves.toBe(0);
  });

  it('2. Set the scene: P for presentation mode, the person preset, SpecTr-GBV by its key, K = 3, L = 4, drafts from Model + schema', async () => {
    await page.keyboard.press('p');
    await page.waitForFunction(() => document.documentElement.classList.contains('presentation'));
    await page.locator('#preset').selectOption('person');
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('5');
    await expect(page.locator('#method').inputValue()).resolves.toBe('spectr-gbv');
    for (const [id, value] of [
      ['K', '3'],
      ['L', '4'],
    ] as const) {
      await page.locator(`#${id}`).fill(value);
      await page.locator(`#${id}`).press('Tab');
    }
    await expect(page.locator('#drafter').inputValue()).resolves.toBe('model+grammar');
    // The preset brings the seed the README names for the second step.
    const seed = /\(the\s+person\s+preset\s+brings\s+seed\s+(\d+)/.exec(LECTURE)?.[1];
    expect(seed).toBeDefined();
    await expect(page.locator('#seed').inputValue()).resolves.toBe(seed);
    await shot(page, '2-scene');
  });

  it('3. One step, slowly: → twice; the first step all forced, the second a branching tree with a rejected draft token, a u line per test and a correction from the residual; Play this step walks the phases', async () => {
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await stepWithArrow(page, 1);
    const inspector = page.getByTestId('inspector');
    await expect(inspector.textContent()).resolves.toContain(ALL_FORCED);
    const opening = /drafts the schema's opening `([^`]+)`/.exec(LECTURE)?.[1];
    expect(opening).toBeDefined();
    // Its drafts are that opening, each forced (◆); the target's bonus token follows them in the output, which
    // marks a space with · (src/ui/format.ts visibleToken).
    const tree = page.getByTestId('draft-tree');
    await expect(tree.locator('[data-node="prefix"][data-source="grammar"]').count()).resolves.toBeGreaterThan(0);
    await expect(tree.locator('[data-node="prefix"]:not([data-source="grammar"])').count()).resolves.toBe(0);
    await expect(page.locator('[data-testid="token-stream"] .step-group').first().textContent()).resolves.toMatch(
      new RegExp(`^${escapeRegExp(opening?.replaceAll(' ', '·') ?? '')}`),
    );
    await shot(page, '3-step-1');
    await stepWithArrow(page, 2);
    await expect(tree.locator('[data-branching]').count()).resolves.toBeGreaterThan(0);
    await expect(
      tree.locator('[data-status="rejected"]:not([data-source="grammar"])').count(),
    ).resolves.toBeGreaterThan(0);
    await expect(tree.locator('g[data-node="final"].final-correction').count()).resolves.toBe(1);
    await expect(tree.locator('[data-source="grammar"]').count()).resolves.toBeGreaterThan(0);
    const grid = page.getByTestId('decision-grid');
    await expect(grid.textContent()).resolves.toMatch(/u = \d\.\d{3} [<≥] /);
    await expect(page.getByTestId('final-law').count()).resolves.toBe(1);
    await tree.scrollIntoViewIfNeeded();
    await shot(page, '3-step-2');
    // Play this step: drafting, grammar check, target scoring, each decision and the emission, one caption each. It
    // plays at the presenter's speed; once it has moved on by itself, → on the player walks the rest.
    await page.getByRole('button', { name: 'Play this step' }).click();
    const player = page.getByTestId('step-player');
    await page.locator('[data-testid="step-player"][data-phase="drafting"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="step-player"]:not([data-frame="0"])').waitFor({ timeout: 60_000 });
    const phases = ['drafting'];
    await player.focus();
    for (let i = 0; i < 200 && phases.at(-1) !== 'emission'; i++) {
      const phase = (await player.getAttribute('data-phase')) ?? '';
      if (phase !== phases.at(-1)) phases.push(phase);
      await page.keyboard.press('ArrowRight');
    }
    expect(phases).toEqual(['drafting', 'grammar', 'scoring', 'verification', 'emission']);
    await expect(page.getByTestId('step-caption').textContent()).resolves.toMatch(/^\d+\/\d+ · /);
    // Esc on the player leaves the replay: the whole dashboard is back.
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="step-player"][data-phase="off"]').waitFor();
  });

  it('4. Ask "why this token?": a hovered token gives p, q and its decision, a correction its rejection and residual', async () => {
    const correction = page.locator('[data-testid="token-stream"] .token.origin-correction').last();
    await correction.scrollIntoViewIfNeeded();
    await correction.hover();
    const card = page.getByTestId('token-card');
    await expect(card.textContent()).resolves.toMatch(/correction token \(from the residual\)/);
    await expect(card.textContent()).resolves.toMatch(/p \(target\)/);
    await expect(card.textContent()).resolves.toMatch(/here: .*u = \d\.\d+/);
    await shot(page, '4-token-card');
    await page.mouse.move(0, 0);
    await card.waitFor({ state: 'detached' });
  });

  it('5. Run to the end with Space: R, I, D, A and the ratios, A and A/D of the proposed drafts beside the forced share, the histogram with its expectation', async () => {
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press(' ');
    await page
      .getByTestId('run-status')
      .filter({ hasText: /^(done|error)$/ })
      .waitFor({ timeout: 180_000 });
    await expect(page.getByTestId('run-status').textContent()).resolves.toBe('done');
    for (const counter of [
      'R',
      'I',
      'D',
      'A',
      'survival',
      'conditional',
      'yield',
      'A-proposed',
      'conditional-proposed',
    ])
      await expect(page.locator(`[data-counter="${counter}"]`).count(), counter).resolves.toBe(1);
    const forcedShare = await page.locator('[data-counter="forced-share"]').textContent();
    expect(parseFloat(forcedShare ?? '')).toBeGreaterThan(0);
    await page.locator('figure[data-chart="histogram"] .recharts-line-curve').first().waitFor({ timeout: 60_000 });
    await page.getByTestId('counters').scrollIntoViewIfNeeded();
    await shot(page, '5-run');
  });

  it('6. Compare: Race all methods gives every method tokens/s as median [min–max], beside AR + jump-forward', async () => {
    // The default five rounds (a median and its range, as the README says), at 50 tokens per method a round rather
    // than the default 300: the rows, their format and the screenshot are the same for any budget, and the
    // default's race was most of this file's time.
    await page.locator('#race-budget').selectOption('50');
    await page.getByRole('button', { name: 'Race all methods' }).click();
    const results = page.getByTestId('race-results');
    await results.waitFor({ timeout: 600_000 });
    await expect(results.locator('tr[data-method="ar+jump-forward"]').count()).resolves.toBe(1);
    await expect(results.locator('tr[data-method="spectr-gbv"]').count()).resolves.toBe(1);
    for (const rate of await results.getByTestId('race-rate').allTextContents())
      expect(rate).toMatch(/^\d+\.\d \[\d+\.\d–\d+\.\d\]$/);
    await page.getByTestId('race').evaluate((race) => race.scrollIntoView({ block: 'start' }));
    await shot(page, '6-race');
    expect(problems).toEqual([]);
  }, 660_000);
});
