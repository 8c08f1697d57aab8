/**
 * A chart's axis sized to what it shows: the race's tokens/s axis on a machine far faster than this one (the
 * engine's own race over runs of 12,000 tokens/s and up, test/browser/panelBoundaryPage.tsx), in presentation
 * mode at the three projector sizes. No tick label may sit under the axis title or outside its SVG, as
 * "1,050" did under "tokens/s" at 1920 × 1080 when this machine first raced past 1,000 tokens/s. And each
 * whisker is drawn where its values are in the frame a screenshot takes, not partway through an animation.
 */
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECTORS, recordProblems, suiteDevPages } from '../support/browser';
import { svgTextProblems } from '../support/svgTexts';

const SCREENSHOTS = 'test-results/screenshots';

describe('chart labels at any speed', () => {
  const pages = suiteDevPages();

  it("the race chart's tokens/s axis fits ticks of five digits beside its title, in presentation mode at 1024 × 768, 1280 × 720 and 1920 × 1080", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const page = await pages.open('test/browser/panelBoundary.html');
    const problems = recordProblems(page);
    await page.evaluate(() => window.speclabPanelTest.ready());
    await page.getByRole('button', { name: 'Presentation mode (P)' }).click();
    await page.getByRole('button', { name: 'Race all methods' }).click();
    await page.evaluate(() => window.speclabPanelTest.finishRace(12_000));
    const chart = page.locator('[data-chart="race"]');
    await chart.locator('.recharts-bar-rectangle').first().waitFor();
    const texts = chart.locator('svg text');
    for (const size of PROJECTORS) {
      await page.setViewportSize(size);
      await chart.scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const where = `${size.width} × ${size.height}`;
      // The largest tick has five digits: the case the axis was too narrow for.
      const labels = await texts.allTextContents();
      expect(
        labels.some((label) => /^\d{2},\d{3}$/.test(label)),
        `${where}: ticks ${labels.join(' ')}`,
      ).toBe(true);
      await expect(page.evaluate(svgTextProblems), where).resolves.toEqual([]);
      // Every round of a method takes the same time here (min = max = median): its whisker is a line at its bar's top.
      const whiskerOffsets = await chart.evaluate((element) => {
        const bars = [...element.querySelectorAll('.recharts-bar-rectangle')];
        const whiskers = [...element.querySelectorAll('.recharts-errorBar')];
        if (bars.length === 0 || bars.length !== whiskers.length)
          return [`${bars.length} bars and ${whiskers.length} whiskers`];
        return whiskers.map((whisker, i) => {
          const tops = [...whisker.querySelectorAll('line')].map((line) => line.getBoundingClientRect().top);
          const barTop = (bars[i] as Element).getBoundingClientRect().top;
          return Math.max(...tops.map((top) => Math.abs(top - barTop)));
        });
      });
      expect(
        whiskerOffsets.every((offset) => typeof offset === 'number' && offset <= 1),
        `${where}: px between each whisker and its bar's top: ${whiskerOffsets.join(', ')}`,
      ).toBe(true);
      await chart.screenshot({ path: `${SCREENSHOTS}/race-chart-fast-${size.width}x${size.height}.png` });
    }
    expect(problems).toEqual([]);
  });

  it("the run's charts fit counts of five digits beside their axis titles, every y tick labelled, in presentation mode at 1024 × 768, 1280 × 720 and 1920 × 1080", async () => {
    const page = await pages.open('test/browser/panelBoundary.html');
    const problems = recordProblems(page);
    await page.evaluate(() => window.speclabPanelTest.ready());
    await page.getByRole('button', { name: 'Presentation mode (P)' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    // The run's message leaves once the page has drawn the run's start (src/store/effects.ts).
    await page.waitForFunction(() => window.speclabPanelTest.sent.some((message) => message.type === 'run'));
    // 1,000 steps of 11 proposed draft tokens: R reaches 11,000, as K = 8, L = 8 runs of 512 tokens do and more.
    await page.evaluate(() => window.speclabPanelTest.finishRun(1000));
    const charts = page.locator('[data-chart]');
    await charts.first().locator('.recharts-line, .recharts-bar-rectangle').first().waitFor();
    for (const size of PROJECTORS) {
      await page.setViewportSize(size);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const where = `${size.width} × ${size.height}`;
      const labels = await page.locator('[data-chart] svg text').allTextContents();
      expect(
        labels.some((label) => /^\d{2},\d{3}$/.test(label)),
        `${where}: ticks ${labels.join(' ')}`,
      ).toBe(true);
      await expect(page.evaluate(svgTextProblems), where).resolves.toEqual([]);
      // Every y tick labelled: a dropped one (0, 0.25, 0.5, 1) makes an axis read as uneven.
      const unevenAxes = await page.evaluate(() =>
        [...document.querySelectorAll('[data-chart]')].flatMap((chart) => {
          const values = [...chart.querySelectorAll('.recharts-yAxis-tick-labels text')].map((text) =>
            Number((text.textContent ?? '').replaceAll(',', '')),
          );
          const steps = values.slice(1).map((value, i) => value - (values[i] as number));
          const even = steps.every((step) => Math.abs(step - (steps[0] as number)) < 1e-9);
          return values.length >= 2 && even ? [] : [`${chart.getAttribute('data-chart')}: ${values.join(', ')}`];
        }),
      );
      expect(unevenAxes, where).toEqual([]);
      const counters = page.locator('[data-chart="counters"]');
      await counters.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SCREENSHOTS}/counters-chart-large-${size.width}x${size.height}.png` });
    }
    expect(problems).toEqual([]);
  });
});
