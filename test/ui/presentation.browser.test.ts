import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { axeProblems } from '../support/axe';
import { buildAndPreview, launchChromium, recordProblems, type BuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';
const CHARTS = ['histogram', 'ratios', 'counters', 'mean-length', 'per-position'] as const;
const LINE_CHARTS = ['ratios', 'counters', 'mean-length'];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator.toString()} has no box (hidden?)`);
  return found;
}

const inside = (b: Box, width: number, height: number) =>
  b.x >= 0 && b.y >= 0 && b.x + b.width <= width + 0.5 && b.y + b.height <= height + 0.5;
/** Whether any part of the status line is cut short ("…"), as it was on the header's row. */
const statusLineClipped = (page: Page) =>
  page
    .getByTestId('status-line')
    .evaluate((element) =>
      [element, ...element.querySelectorAll('summary, summary > span')].some(
        (part) => part.scrollWidth > part.clientWidth + 1,
      ),
    );
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Significant digits of a number as printed: "0.0556" has 3, "1,230" has 3, "3.2194507377493253" has 17. */
const significantDigits = (printed: string) =>
  printed
    .replace(/[^0-9]/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '').length;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function downloadOf(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

async function runToEnd(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page
    .getByTestId('run-status')
    .filter({ hasText: /^(done|error)$/ })
    .waitFor({ timeout: 180_000 });
  await expect(page.getByTestId('run-status').textContent()).resolves.toBe('done');
}

/** The deferred charts have drawn every step of the finished run. */
async function chartsCaughtUp(page: Page): Promise<void> {
  const steps = Number(await page.locator('[data-counter="steps"]').textContent());
  // A flat line has an empty box, which Playwright calls hidden: wait for it to be drawn, not to be visible.
  await page
    .locator(`[data-chart="ratios"][data-points="${steps}"] .recharts-line-curve`)
    .first()
    .waitFor({ state: 'attached' });
  await page.locator('[data-chart="histogram"] .recharts-bar-rectangle').first().waitFor({ state: 'attached' });
}

/** Every chart's plot has the width of its card: recharts has followed a layout change. */
async function chartsFitTheirCards(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.chart-plot')].every((plot) => {
      const surface = plot.querySelector('svg.recharts-surface');
      return (
        surface !== null && Math.abs(surface.getBoundingClientRect().width - plot.getBoundingClientRect().width) < 2
      );
    }),
  );
}

describe('presentation mode, charts and exports in the built app', () => {
  let app: BuiltApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [app, browser] = await Promise.all([buildAndPreview(), launchChromium()]);
    // Downloads for the exports; the clipboard for the share link.
    context = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.url).origin });
    page = await context.newPage();
    problems = recordProblems(page);
    await page.goto(app.url);
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('names its regions: Output, Counters, Charts, Inspector, Settings', async () => {
    for (const name of ['Output', 'Counters', 'Charts', 'Step inspector', 'Settings']) {
      await expect(page.getByRole('region', { name, exact: true }).count(), name).resolves.toBe(1);
    }
    // The one verifier the app does not offer is named as such in its list of methods.
    await expect(page.getByTestId('method-not-offered').getAttribute('data-method')).resolves.toBe(
      'recursive-rejection',
    );
  });

  it('shows where the models and the verifier run on one line, with the reasons on click', async () => {
    const line = page.getByTestId('status-line');
    const summary = line.locator('summary');
    const lineHeight = await summary.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight));
    const closed = await box(summary);
    expect(closed.height).toBeLessThan(lineHeight * 1.5);
    await summary.click();
    await expect(line.getAttribute('open')).resolves.toBe('');
    expect((await box(summary)).height).toBeGreaterThan(lineHeight * 1.5);
    await expect(page.getByTestId('verifier').textContent()).resolves.toMatch(/^Verifier: CPU twin \(/);
    await summary.click();
    expect((await box(summary)).height).toBeLessThan(lineHeight * 1.5);
  });

  it('at 1280 × 720 after a run, with the page at the top, the run bar, output, counters and two charts are in view', async () => {
    // The reasoning preset: free text, then JSON, the longest output of the presets.
    await page.locator('#preset').selectOption('reasoning');
    await page.getByRole('button', { name: 'Presentation mode (P)' }).click();
    await expect(page.evaluate(() => document.documentElement.classList.contains('presentation'))).resolves.toBe(true);
    await runToEnd(page);
    await chartsCaughtUp(page);
    await chartsFitTheirCards(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENSHOTS}/presentation-1280x720.png` });
    const viewport = { width: 1280, height: 720 };
    const runBar = await box(page.getByRole('region', { name: 'Run', exact: true }));
    for (const name of ['Output', 'Counters']) {
      const region = await box(page.getByRole('region', { name, exact: true }));
      expect(inside(region, viewport.width, viewport.height), `${name} ${JSON.stringify(region)}`).toBe(true);
      expect(overlaps(region, runBar), `${name} under the run bar`).toBe(false);
    }
    expect(inside(runBar, viewport.width, viewport.height)).toBe(true);
    expect(inside(await box(page.getByTestId('status-line')), viewport.width, viewport.height)).toBe(true);
    await expect(statusLineClipped(page)).resolves.toBe(false);
    const inView: string[] = [];
    for (const chart of CHARTS) {
      if (inside(await box(page.locator(`[data-chart="${chart}"]`)), viewport.width, viewport.height))
        inView.push(chart);
    }
    expect(inView).toContain('histogram');
    expect(
      inView.some((chart) => LINE_CHARTS.includes(chart)),
      inView.join(),
    ).toBe(true);
    // Large type: the output, the counters' labels and the chart titles are at least 18 px.
    for (const selector of ['.tokens', '.counter-grid dt', '.chart-title', '.verdict', '.slice']) {
      const size = await page
        .locator(selector)
        .first()
        .evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
      expect(size, selector).toBeGreaterThanOrEqual(18);
    }
  });

  it("in presentation mode, every text of the inspector (tree, grid, lists), the tables, the status line and the charts' axis titles and legends is at least 18 px", async () => {
    const small = await page.evaluate(
      (selectors) => {
        const found: string[] = [];
        for (const selector of selectors) {
          for (const root of document.querySelectorAll(selector)) {
            for (const element of [root, ...root.querySelectorAll('*')]) {
              const text = [...element.childNodes]
                .filter((node) => node.nodeType === Node.TEXT_NODE)
                .map((node) => node.textContent ?? '')
                .join('')
                .trim();
              if (
                text === '' ||
                element.getClientRects().length === 0 ||
                element.closest('details:not([open]) > :not(summary)')
              )
                continue;
              // SVG text is drawn at its font size times the drawing's scale.
              const svg = element instanceof SVGElement ? element.ownerSVGElement : null;
              const viewBox = svg?.viewBox.baseVal;
              const scale = svg && viewBox && viewBox.width > 0 ? svg.getBoundingClientRect().width / viewBox.width : 1;
              const size = parseFloat(getComputedStyle(element).fontSize) * scale;
              if (size < 17.95)
                found.push(
                  `${selector}: ${element.tagName.toLowerCase()}.${element.getAttribute('class') ?? ''} "${text.slice(0, 30)}" ${size.toFixed(1)} px`,
                );
            }
          }
        }
        return found;
      },
      ['section.inspector', 'table', '.status-line', '.recharts-label', '.chart-legend'],
    );
    expect(small).toEqual([]);
  });

  it('the sticky run bar never covers a chart scrolled into view', async () => {
    const caption = page.locator('[data-chart="per-position"] figcaption');
    await caption.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    const runBar = await box(page.getByRole('region', { name: 'Run', exact: true }));
    expect((await box(caption)).y).toBeGreaterThanOrEqual(runBar.y + runBar.height);
    // Back to the top, the charts' own region (one row high at 1280 × 720) included.
    await page.locator('.charts .chart-grid').evaluate((element) => element.scrollTo(0, 0));
    await page.evaluate(() => window.scrollTo(0, 0));
  });

  it('charts round their ticks to 3 significant figures and title both axes', async () => {
    const ticks = await page.locator('.chart .recharts-cartesian-axis-tick-value').allTextContents();
    expect(ticks.length).toBeGreaterThan(20);
    for (const tick of ticks) expect(significantDigits(tick), tick).toBeLessThanOrEqual(3);
    for (const chart of CHARTS) {
      await expect(page.locator(`[data-chart="${chart}"] .recharts-label`).count(), chart).resolves.toBe(2);
    }
    // A tooltip on the ratios chart shows rounded ratios, not raw floats.
    const plot = await box(page.locator('[data-chart="ratios"] .chart-plot'));
    await page.mouse.move(plot.x + plot.width * 0.6, plot.y + plot.height * 0.4);
    const tooltip = page.locator('[data-chart="ratios"] .recharts-tooltip-item-value');
    await tooltip.first().waitFor();
    for (const value of await tooltip.allTextContents()) {
      expect(value).toMatch(/^\d(\.\d+)?$/);
      expect(significantDigits(value), value).toBeLessThanOrEqual(3);
    }
  });

  it('at 1920 × 1080 the whole dashboard fits', async () => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    await chartsFitTheirCards(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENSHOTS}/presentation-1920x1080.png` });
    for (const name of ['Output', 'Counters', 'Charts']) {
      const region = await box(page.getByRole('region', { name, exact: true }));
      expect(inside(region, 1920, 1080), `${name} ${JSON.stringify(region)}`).toBe(true);
    }
    await expect(statusLineClipped(page)).resolves.toBe(false);
    await page.setViewportSize({ width: 1280, height: 720 });
    await chartsFitTheirCards(page);
  });

  it('at 1024 × 768 the reasoning run’s output and counters, the status line and the first chart’s x axis are in view', async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    await chartsFitTheirCards(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENSHOTS}/presentation-1024x768.png` });
    for (const name of ['Output', 'Counters']) {
      const region = await box(page.getByRole('region', { name, exact: true }));
      expect(inside(region, 1024, 768), `${name} ${JSON.stringify(region)}`).toBe(true);
    }
    for (const selector of ['[data-testid="status-line"]', '.chart .recharts-xAxis']) {
      const found = await box(page.locator(selector).first());
      expect(inside(found, 1024, 768), `${selector} ${JSON.stringify(found)}`).toBe(true);
    }
    await expect(statusLineClipped(page)).resolves.toBe(false);
    await page.setViewportSize({ width: 1280, height: 720 });
    await chartsFitTheirCards(page);
  });

  it.each(CHARTS)('exports the %s chart as an SVG of the chart with its title, and as a PNG at 2×', async (chart) => {
    const figure = page.locator(`[data-chart="${chart}"]`);
    const title = (await figure.locator('.chart-title').textContent()) ?? '';
    const svg = await downloadOf(page, () => figure.getByRole('button', { name: /export SVG/ }).click());
    expect(svg.name).toBe(`speclab-${chart}.svg`);
    const text = svg.bytes.toString('utf8');
    expect(svg.bytes.length).toBeGreaterThan(3 * 1024);
    expect(text).toContain(title);
    // The chart itself: its grid, axes, ticks and marks, not one legend icon.
    expect(text.match(/<[a-z]/g)?.length ?? 0).toBeGreaterThan(60);
    for (const axisTitle of await figure.locator('.recharts-label').allTextContents())
      expect(text).toContain(axisTitle);
    for (const legendEntry of await figure.locator('.chart-legend li').allTextContents())
      expect(text).toContain(legendEntry);
    const png = await downloadOf(page, () => figure.getByRole('button', { name: /export PNG/ }).click());
    const onScreen = await box(figure.locator('svg.recharts-surface').first());
    const size = pngSize(png.bytes);
    expect(size.width).toBeGreaterThanOrEqual(Math.floor(2 * onScreen.width));
    expect(size.height).toBeGreaterThanOrEqual(Math.floor(2 * onScreen.height));
    writeFileSync(`${SCREENSHOTS}/export-${chart}.png`, png.bytes);
    writeFileSync(`${SCREENSHOTS}/export-${chart}.svg`, svg.bytes);
  });

  it('exports the whole dashboard as one 1920 × 1080 PNG, from the ordinary layout too', async () => {
    await page.getByRole('button', { name: 'Presentation mode (P)' }).click();
    await expect(page.evaluate(() => document.documentElement.classList.contains('presentation'))).resolves.toBe(false);
    const snapshot = await downloadOf(page, () => page.getByTestId('snapshot').click());
    expect(snapshot.name).toBe('speclab-dashboard-1920x1080.png');
    expect(pngSize(snapshot.bytes)).toEqual({ width: 1920, height: 1080 });
    expect(new Set(snapshot.bytes.subarray(64)).size).toBeGreaterThan(200);
    writeFileSync(`${SCREENSHOTS}/snapshot-1920x1080.png`, snapshot.bytes);
    // The page is back to its own layout.
    await expect(page.locator('.dashboard.snapshot').count()).resolves.toBe(0);
    await expect(page.evaluate(() => document.documentElement.classList.contains('presentation'))).resolves.toBe(false);
  });

  it('Share says that the link was copied, and the clipboard holds it', async () => {
    await page.getByTestId('share').click();
    await page.getByTestId('share-feedback').filter({ hasText: 'Link copied' }).waitFor();
    expect(page.url()).toContain('#run?');
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(page.url());
  });

  it('in presentation mode, the audience QR code holds the share link (present=0), drawn as SVG with its finder patterns; axe finds no serious or critical problem in the dark and the light theme', async () => {
    const presenting = () => page.evaluate(() => document.documentElement.classList.contains('presentation'));
    const wasPresenting = await presenting();
    if (!wasPresenting) await page.getByRole('button', { name: 'Presentation mode (P)' }).click();
    await page.getByTestId('audience-qr-toggle').click();
    const qr = page.getByTestId('audience-qr');
    // The share link just copied, made outside presentation mode: present=0, as the audience's link says.
    expect(page.url()).toContain('present=0');
    await expect(qr.getAttribute('data-link')).resolves.toBe(page.url());
    const modules = Number(await qr.locator('svg').getAttribute('data-modules'));
    // Versions 1 to 40: 21 to 177 modules a side, in steps of 4.
    expect(modules >= 21 && modules <= 177 && (modules - 21) % 4 === 0, String(modules)).toBe(true);
    const path = (await qr.locator('path').getAttribute('d')) ?? '';
    const dark = (row: number, col: number) => path.includes(`M${col + 4} ${row + 4}h1v1h-1z`);
    // Each finder pattern: a dark 7 × 7 ring, a light ring inside it, a dark 3 × 3 centre.
    for (const [top, left] of [
      [0, 0],
      [0, modules - 7],
      [modules - 7, 0],
    ] as const) {
      expect(
        [dark(top, left), dark(top + 6, left + 6), dark(top + 1, left + 1), dark(top + 3, left + 3)],
        `finder at ${top}, ${left}`,
      ).toEqual([true, true, false, true]);
    }
    await expect(axeProblems(page)).resolves.toEqual([]);
    // The light projector theme: axe's contrast rules hold there too, and the share link names it.
    await page.getByTestId('theme-toggle').click();
    await expect(page.evaluate(() => document.documentElement.classList.contains('light'))).resolves.toBe(true);
    await expect(qr.getAttribute('data-link')).resolves.toBe(`${page.url()}&theme=light`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENSHOTS}/presentation-light-qr-1280x720.png` });
    await expect(axeProblems(page)).resolves.toEqual([]);
    await page.getByTestId('theme-toggle').click();
    await page.getByTestId('audience-qr-toggle').click();
    await qr.waitFor({ state: 'detached' });
    if (!wasPresenting) await page.getByRole('button', { name: 'Presentation mode (P)' }).click();
    await expect(presenting()).resolves.toBe(wasPresenting);
  });

  it('with K > 1, shows the invalidated tokens of every draft, unchosen ones marked, and the inspector agrees', async () => {
    await page.locator('#preset').selectOption('event');
    await page.locator('#K').fill('4');
    await page.locator('#temperature').fill('1.5');
    await page.locator('#temperature').press('Tab');
    await runToEnd(page);
    await page.getByLabel('show invalidated draft tokens').check();
    const invalidated = Number(await page.locator('[data-counter="I"]').textContent());
    expect(invalidated).toBeGreaterThan(0);
    const stream = page.getByTestId('token-stream');
    await page.waitForFunction(
      (count) => document.querySelectorAll('[data-testid="token-stream"] .token.invalid').length === count,
      invalidated,
    );
    const unchosen = stream.locator('.invalid-draft.unchosen');
    expect(await unchosen.count()).toBeGreaterThan(0);
    await expect(unchosen.first().locator('.invalid-label').textContent()).resolves.toMatch(/^draft \d+, not chosen:$/);
    // The inspector marks the same tokens invalid in the same drafts of that step.
    const group = stream.locator('.step-group', { has: page.locator('.invalid-draft.unchosen') }).first();
    const stepIndex = Number(await group.getAttribute('data-step'));
    await group.locator('.token:not(.invalid)').first().click();
    await page
      .getByTestId('inspector')
      .filter({ hasText: `Step ${stepIndex + 1} of` })
      .waitFor();
    const rows = page.locator('.draft-grid tbody tr');
    await expect(rows.count()).resolves.toBe(4);
    for (let k = 0; k < 4; k++) {
      const shown = await group.locator(`.invalid-draft[data-draft="${k}"] .token.invalid`).count();
      await expect(rows.nth(k).locator('.cell.invalid').count(), `draft ${k + 1}`).resolves.toBe(shown);
    }
  });

  it('K and L changed during a run apply to the next run, and the counters keep the run’s heading', async () => {
    await page.locator('#K').fill('3');
    await page.locator('#temperature').fill('1');
    await page.locator('#temperature').press('Tab');
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor();
    await expect(page.getByTestId('counter-slice').textContent()).resolves.toContain('K = 3 · L = 4');
    await page.locator('#K').fill('2');
    await page.locator('#L').fill('6');
    await page.locator('#L').press('Tab');
    const notice = page.getByTestId('next-run-notice');
    await expect(notice.textContent()).resolves.toMatch(
      /^Changed K, L: applies to the next run\. This run continues with K = 3, L = 4, T = 1\.$/,
    );
    await expect(page.getByTestId('counter-slice').textContent()).resolves.toContain('K = 3 · L = 4');
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.locator('[data-counter="steps"]').filter({ hasText: '2' }).waitFor();
    await expect(page.getByTestId('counter-slice').textContent()).resolves.toContain('K = 3 · L = 4');
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect(notice.count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor();
    await expect(page.getByTestId('counter-slice').textContent()).resolves.toContain('K = 2 · L = 6');
    await page.getByRole('button', { name: 'Reset' }).click();
  });

  it('raised no console or page errors', () => {
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
