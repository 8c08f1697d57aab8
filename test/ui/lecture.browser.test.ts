/**
 * A lecture that goes right, in the built app: the replay asks before it answers, Space presses a
 * focused button, presentation mode fits three projectors with no serious or critical axe violation, and tokens/s
 * after Step, a pause and Resume reads as a straight run's.
 * Screenshots go to test-results/screenshots (lecture-*.png).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeProblems } from '../support/axe';
import { PROJECTORS, suiteBuiltApp } from '../support/browser';
import { median } from '../../src/core/bootstrap';

const SCREENSHOTS = 'test-results/screenshots';

/** How long the test leaves a stepped run paused: the run's engine time must not count it. A stepped run takes
 * about 0.1 s of engine time here, so a pause counted in would cut its tokens/s to a quarter or less. */
const PAUSE_MS = 300;
/** The presenter's pause in the stepped runs of the tokens/s comparison. */
const PRESENTER_PAUSE_MS = 1000;
/** What a room must read, at 18 px or more in presentation mode. */
const LARGE_TYPE = [
  '.tokens',
  '.legend',
  '.verdict',
  '.slice',
  '.counter-grid dt',
  '.counter-grid dd',
  '.chart-title',
  '.chart-legend li',
  '.chart .recharts-cartesian-axis-tick-value',
];

/** The run is over and the deferred views have caught up with it: a token group per step, the charts at its last step. */
async function runSettled(page: Page) {
  await page
    .getByTestId('run-status')
    .filter({ hasText: /^(done|error)$/ })
    .waitFor({ timeout: 180_000 });
  await expect(page.getByTestId('run-status').textContent()).resolves.toBe('done');
  await page.waitForFunction(() => {
    const steps = document.querySelector('[data-counter="steps"]')?.textContent;
    return (
      document.querySelectorAll('[data-testid="token-stream"] .step-group').length === Number(steps) &&
      document.querySelector(`[data-chart="ratios"][data-points="${steps}"]`) !== null
    );
  });
}

/** What the dashboard shows of the run: the counters, the histogram's bars and the output. */
async function dashboard(page: Page) {
  return {
    counters: await page.getByTestId('counters').textContent(),
    histogram: await page
      .locator('figure[data-chart="histogram"] .recharts-bar-rectangle path')
      .evaluateAll((bars) => bars.map((bar) => bar.getAttribute('d'))),
    output: await page.getByTestId('token-stream').textContent(),
  };
}

async function step(page: Page, count: number) {
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page
    .getByTestId('inspector')
    .filter({ hasText: `Step ${count} of ${count}` })
    .waitFor({ timeout: 120_000 });
}

describe('a lecture, in the built app', () => {
  const suite = suiteBuiltApp(PROJECTORS[0]);
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = suite.page();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  }, 150_000);

  it('at rest, before any run, axe finds no serious or critical violation', async () => {
    expect(await axeProblems(page)).toEqual([]);
  });

  it('the replay shows no outcome before its phase, on the whole screen, and asks each test before it answers', async () => {
    await page.locator('#method').selectOption('spectr-gbv');
    await page.locator('#K').fill('3');
    await page.locator('#K').press('Tab');
    // A step with a rejection has more to hide than one that accepted everything; the dashboard as it stood
    // before that step is what the replay must show until its emission.
    let before = await dashboard(page);
    await step(page, 1);
    for (
      let n = 2;
      n <= 8 && (await page.locator('[data-testid="decision-grid"] td[data-status="rejected"]').count()) === 0;
      n++
    ) {
      before = await dashboard(page);
      await step(page, n);
    }
    const after = await dashboard(page);
    expect(after).not.toEqual(before);
    const player = page.getByTestId('step-player');
    await player.focus();
    await page.keyboard.press('Home');
    await expect(player.getAttribute('data-phase')).resolves.toBe('drafting');
    // Frame 1: the counters, the histogram and the output are the run's before this step.
    await expect.poll(() => dashboard(page)).toEqual(before);
    await expect(page.getByTestId('decision-grid').textContent()).resolves.not.toMatch(/chosen/);
    for (const hidden of ['step-outcome', 'final-law', 'final-line', 'first-position-optimum'])
      await expect(page.getByTestId(hidden).count(), hidden).resolves.toBe(0);
    await player.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: `${SCREENSHOTS}/lecture-replay-drafting.png` });
    // Space on the focused player steps the replay, as → does, and leaves the run paused.
    await page.keyboard.press(' ');
    await expect(player.getAttribute('data-phase')).resolves.toBe('grammar');
    await expect(page.getByTestId('run-status').textContent()).resolves.toBe('paused');
    // On to the first frame that asks a test: u and its threshold, no verdict, its cell still pending.
    const caption = page.getByTestId('step-caption');
    for (let i = 0; i < 40 && !/: (accept|keep the block up to here)\?/.test((await caption.textContent()) ?? ''); i++)
      await page.keyboard.press('ArrowRight');
    await expect(caption.textContent()).resolves.toMatch(/Verification \d+ of \d+ — .*u = \d\.\d+; threshold .*\?/);
    await expect(caption.textContent()).resolves.not.toMatch(/→/);
    const asked = page.locator('[data-testid="decision-grid"] td.current');
    await expect(asked.getAttribute('data-status')).resolves.toBe('pending');
    // The tree gives nothing away either: no node shows an outcome the frames have not reached.
    await expect(
      page
        .locator(
          '[data-testid="draft-tree"] .tree-node.status-accepted, [data-testid="draft-tree"] .tree-node.status-not-examined, [data-testid="draft-tree"] .tree-node.status-not-kept',
        )
        .count(),
    ).resolves.toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}/lecture-replay-question.png` });
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('step-caption').textContent()).resolves.toMatch(/→/);
    await expect(asked.getAttribute('data-status')).resolves.not.toBe('pending');
    await expect(page.getByTestId('step-outcome').count()).resolves.toBe(0);
    await page.keyboard.press('End');
    await expect(player.getAttribute('data-phase')).resolves.toBe('emission');
    // The emission frame takes the step in.
    await expect.poll(() => dashboard(page)).toEqual(after);
    await page.getByTestId('step-outcome').waitFor();
    await expect(page.getByTestId('decision-grid').textContent()).resolves.toMatch(/\(chosen\)/);
    await page.screenshot({ path: `${SCREENSHOTS}/lecture-replay-emission.png` });
    // Inspector open, replay at its end: nothing serious for a screen reader or a low-contrast projector.
    expect(await axeProblems(page)).toEqual([]);
    // On every frame, at each projector size, the caption, the tree's current node and the grid's current cell
    // are inside the viewport together (the compact replay layout).
    const last = (await page.getByTestId('step-caption').textContent())?.match(/^(\d+)\/(\d+) · /)?.[2];
    expect(last).toBeDefined();
    for (const viewport of PROJECTORS) {
      await page.setViewportSize(viewport);
      await player.focus();
      await page.keyboard.press('Home');
      let both = 0;
      for (let frame = 1; frame <= Number(last); frame++) {
        await page.locator(`[data-testid="step-player"][data-frame="${frame - 1}"]`).waitFor();
        const boxes = await page.evaluate(() =>
          [
            '[data-testid="step-caption"]',
            '[data-testid="draft-tree"] .tree-node.current',
            '[data-testid="decision-grid"] td.current',
          ].map((selector) => {
            const box = document.querySelector(selector)?.getBoundingClientRect();
            return box
              ? {
                  selector,
                  inside:
                    box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight + 0.5 && box.right <= innerWidth + 0.5,
                  box: box.toJSON() as DOMRect,
                }
              : null;
          }),
        );
        const [caption, node, cell] = boxes;
        expect(caption, `frame ${frame}: a caption`).not.toBeNull();
        for (const shown of boxes)
          if (shown)
            expect(
              shown.inside,
              `frame ${frame} at ${viewport.width}x${viewport.height}: ${shown.selector} ${JSON.stringify(shown.box)}`,
            ).toBe(true);
        if (node && cell) both++;
        await page.keyboard.press('ArrowRight');
      }
      expect(both, `${viewport.width}x${viewport.height}: frames with a current node and cell`).toBeGreaterThan(0);
    }
    await page.setViewportSize(PROJECTORS[0]);
    await page.keyboard.press('End');
  });

  it('the step exports as a GIF and as a WebM video at 1280 × 720: the compact layout without controls or scrollbars, the tree drawn with its text in every frame checked', async () => {
    const player = page.getByTestId('step-player');
    // Where the export layout puts the tree, and that it has no controls and no scrollbar, on its first frame.
    await player.focus();
    await page.keyboard.press('Home');
    const layout = await page.evaluate((exporting) => {
      document.documentElement.classList.add(exporting);
      const panel = document.querySelector('[data-testid="explained-step"]') as HTMLElement;
      const origin = panel.getBoundingClientRect();
      const svg = document.querySelector('[data-testid="draft-tree"] svg') as SVGSVGElement;
      const tree = svg.getBoundingClientRect();
      // What a frame draws of the tree: its nodes' box, and its labels' size (font size × the SVG's scale).
      const nodes = [...svg.querySelectorAll('.tree-node rect')].map((rect) => rect.getBoundingClientRect());
      const drawn = {
        width: Math.max(...nodes.map((node) => node.right)) - Math.min(...nodes.map((node) => node.left)),
        height: Math.max(...nodes.map((node) => node.bottom)) - Math.min(...nodes.map((node) => node.top)),
      };
      const label = Math.min(
        ...[...svg.querySelectorAll('text')].map(
          (text) => Number.parseFloat(getComputedStyle(text).fontSize) * (svg.getScreenCTM()?.a ?? 0),
        ),
      );
      const controls = [
        ...panel.querySelectorAll('.player-controls, [data-testid="export-step"], [data-testid="export-video"]'),
      ].filter((element) => (element as HTMLElement).offsetParent !== null).length;
      const scrollbars = [panel, ...panel.querySelectorAll<HTMLElement>('*')].filter(
        (element) =>
          element.offsetWidth - element.clientWidth - element.clientLeft * 2 > 0.5 &&
          getComputedStyle(element).overflowY !== 'visible',
      ).length;
      document.documentElement.classList.remove(exporting);
      return {
        size: [origin.width, origin.height],
        tree: { x: tree.x - origin.x, y: tree.y - origin.y, width: tree.width, height: tree.height },
        drawn,
        label,
        controls,
        scrollbars,
      };
    }, 'exporting-replay');
    expect(layout).toMatchObject({ size: [1280, 720], controls: 0, scrollbars: 0 });
    // A room reads the exported tree: a third of the frame's width and height or more, labels at 18 px or more.
    expect(layout.drawn.width, JSON.stringify(layout)).toBeGreaterThanOrEqual(1280 / 3);
    expect(layout.drawn.height, JSON.stringify(layout)).toBeGreaterThanOrEqual(720 / 3);
    expect(layout.label, JSON.stringify(layout)).toBeGreaterThanOrEqual(18);
    await page.keyboard.press('Escape');
    // Each frame decoded in the page (ImageDecoder for the GIF, a <video> seeked to each phase for the WebM): the
    // pixels inside the tree's box that stand out from the background, and one frame as a PNG for the docs.
    // Nodes with their fill, outline and label stand out in far more pixels than this; a stray mark in far fewer.
    const TREE_PIXELS = 2000;
    const frames = async (format: 'gif' | 'webm') => {
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 120_000 }),
        page.getByTestId(format === 'gif' ? 'export-step' : 'export-video').click(),
      ]);
      const bytes = readFileSync(await download.path());
      // The app's CSP allows no blob: media, so the video plays in a blank page of its own.
      const browser = page.context().browser();
      if (!browser) throw new Error('no browser');
      const decoderPage = format === 'gif' ? page : await browser.newPage();
      const decoded = await decoderPage.evaluate(
        async ({ data, format, box, enough }) => {
          const canvas = new OffscreenCanvas(1280, 720);
          const context = canvas.getContext('2d', { willReadFrequently: true }) as OffscreenCanvasRenderingContext2D;
          // The pixels inside the tree's box that stand out from the background, and the extent they span.
          const standsOut = () => {
            const pixels = context.getImageData(box.x, box.y, box.width, box.height).data;
            let count = 0;
            const span = { left: box.width, right: -1, top: box.height, bottom: -1 };
            // Background #111418: a black box or black text is within 24 of it in every channel.
            for (let i = 0; i < pixels.length; i += 4)
              if (
                Math.max(
                  Math.abs((pixels[i] ?? 0) - 0x11),
                  Math.abs((pixels[i + 1] ?? 0) - 0x14),
                  Math.abs((pixels[i + 2] ?? 0) - 0x18),
                ) > 48
              ) {
                count++;
                const x = (i / 4) % box.width;
                const y = Math.floor(i / 4 / box.width);
                span.left = Math.min(span.left, x);
                span.right = Math.max(span.right, x);
                span.top = Math.min(span.top, y);
                span.bottom = Math.max(span.bottom, y);
              }
            return { count, width: span.right - span.left + 1, height: span.bottom - span.top + 1 };
          };
          const blob = new Blob([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], {
            type: format === 'gif' ? 'image/gif' : 'video/webm',
          });
          const counts: { count: number; width: number; height: number }[] = [];
          let sample = '';
          const keep = async () => {
            const png = await canvas.convertToBlob({ type: 'image/png' });
            const raw = new Uint8Array(await png.arrayBuffer());
            sample = btoa(Array.from(raw, (byte) => String.fromCharCode(byte)).join(''));
          };
          if (format === 'gif') {
            const decoder = new ImageDecoder({ data: blob.stream(), type: 'image/gif' });
            // A streamed GIF's frame count grows as its bytes arrive: read it once the whole file is in.
            await decoder.tracks.ready;
            await decoder.completed;
            const total = decoder.tracks.selectedTrack?.frameCount ?? 0;
            for (let index = 0; index < total; index += 3) {
              const { image } = await decoder.decode({ frameIndex: index });
              context.drawImage(image, 0, 0);
              image.close();
              counts.push(standsOut());
              if (index === 3 * Math.floor(total / 6)) await keep();
            }
            return { frames: total, counts, sample, width: 1280 };
          }
          const video = document.createElement('video');
          video.muted = true;
          video.src = URL.createObjectURL(blob);
          await new Promise((resolve, reject) => {
            video.onloadeddata = resolve;
            video.onerror = () => reject(new Error('the video does not load'));
          });
          const seek = (time: number) =>
            new Promise((resolve) => {
              video.onseeked = resolve;
              video.currentTime = time;
            });
          // A WebM made in the browser may not state its duration: seeking far past the end finds it.
          if (!Number.isFinite(video.duration)) await seek(1e6);
          const duration = video.duration;
          for (const time of [0.75, duration / 2, duration - 0.75]) {
            await seek(time);
            // Chromium may fire "seeked" before the sought frame can be drawn (CI once read frame 0 blank, where
            // the GIF's frame 0 of the same step was full): draw again for up to 3 s; a blank frame stays blank.
            let drawn = { count: 0, width: 0, height: 0 };
            for (let attempt = 0; attempt < 30 && drawn.count <= enough; attempt++) {
              if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
              context.clearRect(0, 0, 1280, 720);
              context.drawImage(video, 0, 0);
              drawn = standsOut();
            }
            counts.push(drawn);
            if (time === duration / 2) await keep();
          }
          return { frames: Math.round(duration / 1.5), counts, sample, width: video.videoWidth };
        },
        {
          data: bytes.toString('base64'),
          format,
          enough: TREE_PIXELS,
          box: {
            x: Math.floor(layout.tree.x),
            y: Math.floor(layout.tree.y),
            width: Math.ceil(layout.tree.width),
            height: Math.ceil(layout.tree.height),
          },
        },
      );
      if (decoderPage !== page) await decoderPage.close();
      return decoded;
    };
    for (const format of ['gif', 'webm'] as const) {
      const decoded = await frames(format);
      writeFileSync(`${SCREENSHOTS}/replay-${format}-frame-1280x720.png`, Buffer.from(decoded.sample, 'base64'));
      expect(decoded.width, format).toBe(1280);
      expect(decoded.frames, format).toBeGreaterThanOrEqual(10);
      // Nodes with their fill, outline and label: far more than a few stray pixels in every frame, over a third
      // of the frame's width and height (the tree drawn as the page lays it out for the export, not shrunk).
      for (const [i, drawn] of decoded.counts.entries()) {
        expect(drawn.count, `${format} frame ${i}`).toBeGreaterThan(TREE_PIXELS);
        expect(drawn.width, `${format} frame ${i}`).toBeGreaterThanOrEqual(1280 / 3);
        expect(drawn.height, `${format} frame ${i}`).toBeGreaterThanOrEqual(720 / 3);
      }
    }
    expect(suite.problems).toEqual([]);
  }, 240_000);

  it('Space on a focused button presses it instead of resuming the run', async () => {
    await expect(page.getByTestId('run-status').textContent()).resolves.toBe('paused');
    await page.getByRole('button', { name: 'Reset' }).focus();
    await page.keyboard.press(' ');
    await expect(page.locator('[data-counter="steps"]').textContent()).resolves.toBe('0');
    await expect(page.getByTestId('run-status').textContent()).resolves.not.toBe('running');
  });

  it('“How it works” reads without serious or critical axe violations, and its “?” buttons have distinct names', async () => {
    await step(page, 1);
    const names = await page
      .locator('.counters .help-q')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label')));
    expect(names.length).toBeGreaterThan(1);
    expect(new Set(names).size).toBe(names.length);
    await page.getByRole('button', { name: 'How it works', exact: true }).click();
    await page.getByTestId('how-it-works').waitFor();
    const problems = await axeProblems(page);
    await page.getByTestId('how-it-works').getByRole('button', { name: 'Close' }).click();
    expect(problems).toEqual([]);
  });

  it('tokens/s leaves the presenter’s pause out: a run resumed after a pause reports the pause outside its engine time', async () => {
    // The run stepped once above is still paused; it waits a known time more before Run resumes it.
    await expect(page.getByTestId('run-status').textContent()).resolves.toBe('paused');
    await page.waitForTimeout(PAUSE_MS);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await runSettled(page);
    const verdict = page.getByTestId('verdict');
    const figure = async (name: string) => Number(await verdict.getAttribute(name));
    const wallMs = await figure('data-wall-ms');
    const generationMs = await figure('data-generation-ms');
    const tokensPerSecond = await figure('data-tokens-per-second');
    expect(wallMs - generationMs).toBeGreaterThanOrEqual(PAUSE_MS);
    const tokens = await page.locator('[data-testid="token-stream"] .token').count();
    expect(tokensPerSecond).toBeCloseTo(tokens / (generationMs / 1000), 6);
    // The figure a class reads is that one, to its one decimal.
    const shown = /([\d.]+) tokens\/s/.exec((await verdict.textContent()) ?? '');
    expect(shown, 'the verdict shows tokens/s').not.toBeNull();
    expect(Math.abs(Number(shown?.[1]) - tokens / (generationMs / 1000))).toBeLessThanOrEqual(0.051);
  });

  it('presentation mode at 1024 × 768, 1280 × 720 and 1920 × 1080: output, counters, the status line in full and the first chart with its x axis in view, large type, nothing cut off', async ({
    annotate,
  }) => {
    await page.keyboard.press('p');
    for (const viewport of PROJECTORS) {
      await page.setViewportSize(viewport);
      await page.evaluate(() => window.scrollTo(0, 0));
      // No hover card left over from a click covers the dashboard.
      await page.mouse.move(viewport.width - 2, viewport.height - 2);
      const name = `${viewport.width}x${viewport.height}`;
      await page.screenshot({ path: `${SCREENSHOTS}/lecture-presentation-${name}.png` });
      // With the page at the top: the output, the counters, the status line and the first chart, its x axis
      // (tick labels and, inside the card, its title) included, are on screen whole.
      for (const selector of [
        '.stream',
        '.counters',
        '[data-testid="status-line"]',
        '.chart',
        '.chart .recharts-xAxis',
      ]) {
        const b = await page.locator(selector).first().boundingBox();
        expect(b, `${selector} at ${name}`).not.toBeNull();
        if (!b) continue;
        expect(
          b.x >= 0 && b.y >= 0 && b.x + b.width <= viewport.width + 0.5 && b.y + b.height <= viewport.height + 0.5,
          `${selector} at ${name}: ${JSON.stringify(b)}`,
        ).toBe(true);
      }
      // Nothing is cut off at the sides of the charts either.
      const charts = await page.locator('.charts').boundingBox();
      expect(
        charts && charts.x + charts.width <= viewport.width + 0.5,
        `.charts at ${name}: ${JSON.stringify(charts)}`,
      ).toBe(true);
      // The status line is never cut to "M.. V.." or "…": it wraps on a row of its own.
      const clipped = await page
        .getByTestId('status-line')
        .evaluate((element) =>
          [element, ...element.querySelectorAll('summary, summary > span')].some(
            (part) => part.scrollWidth > part.clientWidth + 1,
          ),
        );
      expect(clipped, `status line clipped at ${name}`).toBe(false);
      // No chart is cut in half by the foot of the screen or of the charts' own scrolling region: each is in view
      // whole or not at all. Where two rows do not fit (under 1600 px wide), the region scrolls, and says so.
      const grid = page.locator('.charts .chart-grid');
      const region = await grid.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return {
          top: Math.max(box.top, 0),
          bottom: Math.min(box.bottom, innerHeight),
          scrolls: element.scrollHeight > element.clientHeight + 1,
        };
      });
      const shown: string[] = [];
      for (const chart of await grid.locator('.chart').all()) {
        const b = await chart.boundingBox();
        if (!b) throw new Error('a chart has no box');
        const visible = Math.max(0, Math.min(b.y + b.height, region.bottom) - Math.max(b.y, region.top));
        expect(
          visible === 0 || visible >= b.height - 1,
          `${await chart.getAttribute('data-chart')} at ${name}: ${visible} of ${b.height} px in view`,
        ).toBe(true);
        if (visible > 0) shown.push((await chart.getAttribute('data-chart')) ?? '');
      }
      expect(region.scrolls, `charts scroll at ${name}`).toBe(viewport.width < 1600);
      await expect(page.locator('.chart-scroll-hint').isVisible()).resolves.toBe(region.scrolls);
      if (!region.scrolls) expect(shown).toHaveLength(5);
      const bottoms = await page.evaluate(() =>
        ['.stream', '.counters', '.charts', '[data-testid="status-line"]'].map(
          (selector) =>
            `${selector} ${Math.round(innerHeight - (document.querySelector(selector)?.getBoundingClientRect().bottom ?? NaN))} px`,
        ),
      );
      await annotate(`${name}: ${shown.join(', ')} in view; margin to the foot: ${bottoms.join(', ')}`);
      for (const selector of LARGE_TYPE) {
        const size = await page
          .locator(selector)
          .first()
          .evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
        expect(size, `${selector} at ${name}`).toBeGreaterThanOrEqual(18);
      }
      expect(await axeProblems(page), name).toEqual([]);
    }
    await page.keyboard.press('p');
    expect(suite.problems).toEqual([]);
  });

  it('Step ×3, a pause and Resume does a straight run’s work on the same seed: same output, same target forwards', async () => {
    // A long output (62 tokens in 23 steps): a run of ~20 tokens takes ~0.1 s of engine time, mostly noise.
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.locator('#preset').selectOption('order');
    await page
      .locator('#prompt')
      .fill(
        'Text: Order B-42: three X-100 cables, two H-20 hubs, one K-7 keyboard and four M-3 mice, 88.00 in all.\nJSON: ',
      );
    const finished = async () => {
      await page
        .getByTestId('run-status')
        .filter({ hasText: /^(done|error)$/ })
        .waitFor({ timeout: 60_000 });
      await expect(page.getByTestId('run-status').textContent()).resolves.toBe('done');
      return {
        tokensPerSecond: Number(await page.getByTestId('verdict').getAttribute('data-tokens-per-second')),
        text: await page.getByTestId('token-stream').getAttribute('data-text'),
        steps: await page.locator('[data-counter="steps"]').textContent(),
      };
    };
    const straight = async () => {
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      return finished();
    };
    const stepped = async () => {
      for (let n = 1; n <= 3; n++) await step(page, n);
      await page.waitForTimeout(PRESENTER_PAUSE_MS);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      return finished();
    };
    // Untimed: compiles the schema and runs the new prompt once.
    const warmUp = await straight();
    // Runs still speed up over the first few after a load (V8 tiers its code up), and another test file may share
    // the two cores for a while: so the runs go in adjacent pairs, in the order ABBA, and the figure logged is the
    // median of the pairs' ratios.
    const order = ['straight', 'stepped', 'stepped', 'straight'] as const;
    const runs: { kind: (typeof order)[number]; tokensPerSecond: number; text: string | null; steps: string | null }[] =
      [];
    for (const kind of order) runs.push({ kind, ...(await (kind === 'straight' ? straight() : stepped())) });
    const pairRatios = [0, 2].map((i) => {
      const pair = [runs[i], runs[i + 1]];
      const speed = (kind: string) => pair.find((run) => run?.kind === kind)?.tokensPerSecond ?? Number.NaN;
      return speed('stepped') / speed('straight');
    });
    const ratio = median(pairRatios);
    const figures = (kind: string) =>
      runs
        .filter((run) => run.kind === kind)
        .map((run) => run.tokensPerSecond.toFixed(1))
        .join(', ');
    console.log(
      `tokens/s: straight ${figures('straight')}; Step ×3, ${PRESENTER_PAUSE_MS} ms pause, Resume ${figures('stepped')}; pair ratios ${pairRatios.map((r) => r.toFixed(2)).join(', ')}, median ${ratio.toFixed(2)}`,
    );
    // The speed is logged, not asserted: with another test file on the two cores, single pairs ranged 0.61–2.05
    // (0.94–1.47 on a quiet machine). What a resume could get wrong is held exactly: the same tokens from the same
    // number of target forwards (no re-run prefix), and the pause outside the engine time (the test above).
    for (const run of runs)
      expect([run.text, run.steps, run.tokensPerSecond > 0]).toEqual([warmUp.text, warmUp.steps, true]);
    expect(Number(warmUp.steps)).toBeGreaterThan(0);
    expect(suite.problems).toEqual([]);
  }, 60_000);
});
