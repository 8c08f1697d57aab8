/**
 * The replay and the audience QR as a room sees them, in the built app at three projector sizes:
 * the replay's tree takes a third of the screen or more with labels of 18 px or more and a current-node mark,
 * the grid beside it; the QR warns that a loopback address opens on no phone. Screenshots: room-*.png.
 */
import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PROJECTORS, suiteBuiltApp } from '../support/browser';
import { svgTextProblems } from '../support/svgTexts';

const SCREENSHOTS = 'test-results/screenshots';

/** The replay's tree as drawn: its box, its labels' size on screen (font size × the SVG's scale), the current node. */
async function treeOnScreen(page: Page) {
  return page.evaluate(() => {
    const svg = document.querySelector('[data-testid="draft-tree"] svg') as SVGSVGElement;
    // The drawn tree: the union of its nodes' boxes (the SVG element may be wider than what it draws).
    const nodes = [...svg.querySelectorAll('.tree-node rect')].map((rect) => rect.getBoundingClientRect());
    const left = Math.min(...nodes.map((node) => node.left));
    const top = Math.min(...nodes.map((node) => node.top));
    const box = {
      left,
      top,
      width: Math.max(...nodes.map((node) => node.right)) - left,
      height: Math.max(...nodes.map((node) => node.bottom)) - top,
    };
    const scale = svg.getScreenCTM()?.a ?? 0;
    const labels = [...svg.querySelectorAll('text')].map(
      (text) => Number.parseFloat(getComputedStyle(text).fontSize) * scale,
    );
    const current = svg.querySelector('.tree-node.current rect');
    const mark = current && {
      stroke: getComputedStyle(current).stroke,
      width: Number.parseFloat(getComputedStyle(current).strokeWidth) * scale,
      dashed: getComputedStyle(current).strokeDasharray !== 'none',
    };
    const grid = document
      .querySelector('[data-testid="decision-grid"]')
      ?.closest('.grid-scroll')
      ?.getBoundingClientRect();
    return {
      box: { left: box.left, top: box.top, width: box.width, height: box.height },
      smallestLabel: Math.min(...labels),
      mark,
      grid: grid && { left: grid.left, top: grid.top, width: grid.width, height: grid.height },
      screen: { width: innerWidth, height: innerHeight },
    };
  });
}

describe('the replay and the QR, as a room sees them', () => {
  const suite = suiteBuiltApp(PROJECTORS[1]);
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = suite.page();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  }, 150_000);

  it('the replay’s tree fills a third of the screen or more, labels at 18 px or more, the current node marked, the grid beside it', async () => {
    await page.keyboard.press('p');
    for (const count of [1, 2]) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await page
        .getByTestId('inspector')
        .filter({ hasText: `Step ${count} of ${count}` })
        .waitFor({ timeout: 120_000 });
    }
    const player = page.getByTestId('step-player');
    await player.focus();
    await page.keyboard.press('Home');
    const last = Number((await page.getByTestId('step-caption').textContent())?.match(/^\d+\/(\d+) · /)?.[1]);
    expect(last).toBeGreaterThan(5);
    for (const viewport of PROJECTORS) {
      await page.setViewportSize(viewport);
      await player.focus();
      await page.keyboard.press('Home');
      let marked = 0;
      for (let frame = 1; frame <= last; frame++) {
        await page.locator(`[data-testid="step-player"][data-frame="${frame - 1}"]`).waitFor();
        const tree = await treeOnScreen(page);
        const where = `frame ${frame} at ${viewport.width}x${viewport.height}: ${JSON.stringify(tree)}`;
        // A third of the screen: a third of its width and of its height, or more.
        expect.soft(tree.box.width, where).toBeGreaterThanOrEqual(viewport.width / 3);
        expect.soft(tree.box.height, where).toBeGreaterThanOrEqual(viewport.height / 3);
        expect.soft(tree.smallestLabel, where).toBeGreaterThanOrEqual(18);
        // The grid beside the tree, not under it.
        expect.soft(tree.grid?.left ?? 0, where).toBeGreaterThanOrEqual(tree.box.left + tree.box.width - 1);
        if (tree.mark) {
          marked++;
          expect.soft(tree.mark, where).toMatchObject({ stroke: 'rgb(240, 228, 66)', dashed: false });
          expect.soft(tree.mark.width, where).toBeGreaterThanOrEqual(5);
        }
        if (frame === 12)
          await page.screenshot({ path: `${SCREENSHOTS}/room-replay-${viewport.width}x${viewport.height}.png` });
        await page.keyboard.press('ArrowRight');
      }
      expect(marked, `${viewport.width}x${viewport.height}: frames with a current node`).toBeGreaterThan(3);
    }
    await page.setViewportSize(PROJECTORS[1]);
    await page.keyboard.press('Escape');
    expect(suite.problems).toEqual([]);
  });

  it('a race shows its progress in the run bar and in the charts’ place, keeps the lecture’s run, is cancelled by its own button (its samples counted), and its table and chart fit each projector', async () => {
    // The replay above left its run paused: Run finishes it, and that run is the lecture's.
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page
      .getByTestId('run-status')
      .filter({ hasText: /^done$/ })
      .waitFor({ timeout: 120_000 });
    const lecture = async () => ({
      status: await page.getByTestId('run-status').textContent(),
      output: await page.getByTestId('token-stream').textContent(),
      counters: await page.locator('dd[data-counter]').allTextContents(),
    });
    // The token stream renders from a deferred value: read the run once it has caught up with the store.
    await expect.poll(async () => (await lecture()).output).toMatch(/<\|endoftext\|>$/);
    const before = await lecture();
    expect(before.counters.length).toBeGreaterThan(4);
    const raceButton = page.getByTestId('race-button');
    const progress = page.getByTestId('race-progress');
    const live = page.getByTestId('race-live');
    // Every text the progress shows, recorded as the page renders it: the first state can be short-lived.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { raceProgress: string[] }).raceProgress = seen;
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="race-progress"]')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await raceButton.click();
    await expect(raceButton.textContent()).resolves.toBe('Cancel race');
    await live.getByRole('heading', { name: 'Charts: a race is running' }).waitFor();
    await progress.filter({ hasText: /^race: [1-9]\d* of \d+ samples, ~\d+ s left$/ }).waitFor({ timeout: 180_000 });
    // Before a sample is in, the time it should take at the lecture run's speed; then the time left at its pace.
    const shown = await page.evaluate(() => (window as unknown as { raceProgress: string[] }).raceProgress);
    expect(shown[0]).toMatch(/^race: 0 of (\d+|\?) samples, about \d+ s at the last run’s \d+\.\d tokens\/s$/);
    await expect(live.locator('.race-live-progress').textContent()).resolves.toBe(await progress.textContent());
    // The lecture's run stays on screen while the race runs.
    await expect.poll(lecture).toEqual(before);
    await live.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/room-race-progress-1280x720.png` });
    const done = Number((await progress.textContent())?.match(/^race: (\d+)/)?.[1]);
    await raceButton.click();
    await page.getByRole('heading', { name: /Race: every method.*\(cancelled\)/ }).waitFor({ timeout: 30_000 });
    // Counted: the samples it had finished, out of its schedule.
    const cancelled = (await page.getByTestId('race-cancelled').textContent()) ?? '';
    expect(
      Number(cancelled.match(/^Cancelled after (\d+) of \d+ samples: a race is ranked only whole/)?.[1]),
    ).toBeGreaterThanOrEqual(done);
    await expect(progress.count()).resolves.toBe(0);
    await expect(live.count()).resolves.toBe(0);
    await expect(raceButton.textContent()).resolves.toBe('Race all methods');
    await expect.poll(lecture).toEqual(before);
    await page.getByRole('region', { name: 'Charts' }).waitFor();

    // A race to its end: the lecture's run still there after it. The method, its tokens/s, speedup and verdict are
    // in view at every size; where the 12 columns are wider than the screen, a cue says the table scrolls, and
    // scrolled to its end the last column is in view beside the method's name. The bar labels fit.
    await page.locator('#race-repeats').selectOption('1');
    await page.locator('#race-budget').selectOption('50');
    await raceButton.click();
    await page.getByTestId('race-results').waitFor({ timeout: 300_000 });
    await expect.poll(lecture).toEqual(before);
    const results = page.getByTestId('race-results');
    const headersInView = () =>
      results.evaluate((element) =>
        [...element.querySelectorAll('thead th')].map((th) => {
          const box = th.getBoundingClientRect();
          return box.left >= -0.5 && box.right <= innerWidth + 0.5;
        }),
      );
    for (const viewport of PROJECTORS) {
      await page.setViewportSize(viewport);
      const table = results.locator('table');
      await table.scrollIntoViewIfNeeded();
      const where = `${viewport.width}x${viewport.height}`;
      const inView = await headersInView();
      expect.soft(inView.length, where).toBe(12);
      expect.soft(inView.slice(0, 4), `${where}: method, tokens/s, speedup, vs AR`).toEqual([true, true, true, true]);
      const cue = page.getByTestId('race-scroll-cue');
      if (inView.includes(false)) {
        await expect.poll(() => cue.textContent(), { message: where }).toMatch(/^More columns to the right: scroll/);
        await results.locator('.table-scroll').evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
        await expect.poll(headersInView).toEqual([true, ...Array(10).fill(expect.any(Boolean)), true]);
        await expect.poll(() => cue.textContent(), { message: where }).toMatch(/^← More columns to the left/);
        await page.screenshot({ path: `${SCREENSHOTS}/room-race-table-scrolled-${where}.png` });
        await results.locator('.table-scroll').evaluate((element) => element.scrollTo({ left: 0 }));
      } else await expect.soft(cue.count(), where).resolves.toBe(0);
      await page.screenshot({ path: `${SCREENSHOTS}/room-race-table-${where}.png` });
      await results.locator('[data-chart="race"]').scrollIntoViewIfNeeded();
      const ticks = await results.evaluate((element) => {
        const labels = [...element.querySelectorAll('.recharts-xAxis-tick-labels text')];
        return {
          count: labels.length,
          smallest: Math.min(...labels.map((text) => Number.parseFloat(getComputedStyle(text).fontSize))),
        };
      });
      expect.soft(ticks.count, `${where}: ${JSON.stringify(ticks)}`).toBe(7);
      expect.soft(ticks.smallest, `${where}: ${JSON.stringify(ticks)}`).toBeGreaterThanOrEqual(14);
      // No label over another (method names, ticks, axis titles) and none cut by its SVG.
      await expect.soft(page.evaluate(svgTextProblems), where).resolves.toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/room-race-chart-${where}.png` });
    }
    await page.setViewportSize(PROJECTORS[1]);
    expect(suite.problems).toEqual([]);
  });

  it('the audience QR on a loopback page says phones cannot open it and how to fix that; with a published LAN address it holds that, with the share link’s presentation flag', async () => {
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    const toggle = page.getByTestId('audience-qr-toggle');
    const qr = page.getByTestId('audience-qr');
    const warning = page.getByTestId('audience-qr-warning');
    for (const viewport of PROJECTORS) {
      await page.setViewportSize(viewport);
      await toggle.click();
      // The preview serves the built app on 127.0.0.1: no phone in the room can open that.
      expect(new URL(page.url()).hostname).toBe('127.0.0.1');
      await expect(warning.textContent()).resolves.toMatch(
        /^Phones cannot open this code: 127\.0\.0\.1:\d+ is this computer only\. Start the dev server with npm start -- --host/,
      );
      const box = await warning.boundingBox();
      expect(
        box && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width,
        JSON.stringify(box),
      ).toBe(true);
      await page.screenshot({ path: `${SCREENSHOTS}/room-qr-loopback-${viewport.width}x${viewport.height}.png` });
      await toggle.click();
    }
    await page.setViewportSize(PROJECTORS[1]);
    // What the dev server under --host publishes (tools/audienceOriginPlugin.ts): the code holds that address.
    await page.evaluate(() => {
      const meta = document.createElement('meta');
      meta.name = 'speclab-audience-origin';
      meta.content = 'http://192.168.1.20:5173/';
      document.head.append(meta);
    });
    await toggle.click();
    const link = (await qr.getAttribute('data-link')) ?? '';
    expect(link).toMatch(/^http:\/\/192\.168\.1\.20:5173\/#run\?.*present=0/);
    await expect(warning.textContent()).resolves.toMatch(
      /opens on this computer only; the code holds http:\/\/192\.168\.1\.20:5173\//,
    );
    await expect(page.getByTestId('audience-qr-host').textContent()).resolves.toBe('192.168.1.20:5173');
    await page.screenshot({ path: `${SCREENSHOTS}/room-qr-lan-1280x720.png` });
    // Share, while presenting, copies the very link the code holds: the same presentation flag.
    await page.getByTestId('share').click();
    await page.getByTestId('share-feedback').filter({ hasText: 'audience' }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(link);
    await toggle.click();
    expect(suite.problems).toEqual([]);
  });
});
