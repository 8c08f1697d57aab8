import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { suiteBuiltApp } from '../support/browser';

const SCREENSHOTS = 'test-results/screenshots';
const VIEWPORTS = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
] as const;

/** Sets a number field as a user would: type, then leave the field. */
async function setNumber(page: Page, id: string, value: number) {
  await page.locator(`#${id}`).fill(String(value));
  await page.locator(`#${id}`).press('Tab');
}

/** One verification step with the given method and shape; waits for the (deferred) inspector to show it. */
async function oneStep(page: Page, method: string, K: number, L: number) {
  await page.locator('#method').selectOption(method);
  await setNumber(page, 'K', K);
  await setNumber(page, 'L', L);
  await page.getByRole('button', { name: 'Reset' }).click();
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.getByTestId('run-status').filter({ hasText: 'paused' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('inspector').filter({ hasText: 'Step 1 of 1' }).waitFor({ timeout: 120_000 });
  await page.getByTestId('decision-grid').waitFor();
}

/** Steps on (to step 12 at most) until `done` says the tree shows what the test is after. */
async function stepUntil(page: Page, done: () => Promise<boolean>) {
  for (let steps = 2; steps <= 12 && !(await done()); steps++) {
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page
      .getByTestId('inspector')
      .filter({ hasText: `Step ${steps} of ${steps}` })
      .waitFor({ timeout: 60_000 });
  }
}

/** The grid's tokens, draft by draft, as the page shows them. */
async function gridDrafts(page: Page): Promise<number[][]> {
  const cells = await page
    .locator('[data-testid="decision-grid"] td[data-cell]')
    .evaluateAll((tds) =>
      tds.map((td) => ({ where: td.getAttribute('data-cell') ?? '', token: td.getAttribute('data-token') ?? '' })),
    );
  const drafts: number[][] = [];
  for (const { where, token } of cells) {
    const [k, j] = where.split(',').map(Number) as [number, number];
    (drafts[k] ??= [])[j] = Number(token);
  }
  return drafts;
}

describe('the teaching layer, in the built app', () => {
  const suite = suiteBuiltApp(VIEWPORTS[0]);
  const problems = suite.problems;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = suite.page();
    await page.getByTestId('provider').waitFor({ timeout: 120_000 });
  }, 150_000);

  it('explains one SpecTr-GBV step (K = 3, L = 4): a u line for every examined cell, “not examined” for the others, one tree node per distinct prefix', async () => {
    await oneStep(page, 'spectr-gbv', 3, 4);
    const cells = await page.locator('[data-testid="decision-grid"] td[data-cell]').evaluateAll((tds) =>
      tds.map((td) => ({
        status: td.getAttribute('data-status'),
        examined: td.querySelector('.decision-line')?.getAttribute('data-examined'),
        line: td.querySelector('.decision-line')?.textContent ?? '',
      })),
    );
    expect(cells.length).toBeGreaterThan(0);
    let examined = 0;
    for (const cell of cells) {
      if (cell.examined === 'true') {
        examined++;
        expect(cell.line).toMatch(/u = \d\.\d+ (<|≥) .+ = \d\.\d+/);
      } else expect(cell.line).toMatch(/not examined/);
    }
    expect(examined).toBeGreaterThan(0);
    // The ordered list holds every decision, and the final token's law is named with its formula.
    await expect(page.getByTestId('final-line').textContent()).resolves.toMatch(
      /^Final token: u = \d\.\d{3} → “.*” at position \d+, drawn from (bonus: the target’s next-token distribution|the .*residual)/,
    );

    const drafts = await gridDrafts(page);
    expect(drafts).toHaveLength(3);
    const prefixes = new Set(drafts.flatMap((draft) => draft.map((_, j) => draft.slice(0, j + 1).join(','))));
    const tree = page.getByRole('img', { name: /draft tree/ });
    await expect(tree.locator('[data-node="prefix"]').count()).resolves.toBe(prefixes.size);
    await expect(tree.locator('[data-node="root"]').count()).resolves.toBe(1);
    await expect(tree.locator('[data-node="final"]').count()).resolves.toBe(1);
    expect(problems).toEqual([]);
  });

  it('plays the step through every phase, by button and by keyboard', async () => {
    const player = page.getByTestId('step-player');
    const seen: string[] = [];
    const next = page.getByRole('button', { name: 'Next phase' });
    for (let i = 0; i < 200 && (await next.isEnabled()); i++) {
      await next.click();
      seen.push((await player.getAttribute('data-phase')) ?? '');
    }
    const phases = seen.filter((phase, i) => phase !== seen[i - 1]);
    expect(phases).toEqual(['drafting', 'grammar', 'scoring', 'verification', 'emission']);
    await expect(page.getByTestId('step-caption').textContent()).resolves.toMatch(
      /Emission: .* for one target forward/,
    );
    // The keyboard walks the same frames, and does not run another engine step.
    await player.focus();
    await page.keyboard.press('Home');
    await expect(player.getAttribute('data-phase')).resolves.toBe('drafting');
    await page.keyboard.press('ArrowRight');
    await expect(player.getAttribute('data-phase')).resolves.toBe('grammar');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect(player.getAttribute('data-phase')).resolves.toBe('verification');
    await expect(page.getByTestId('step-caption').textContent()).resolves.toMatch(/Verification 1 of \d+ — /);
    await expect(page.locator('label[for="step-scrub"]').textContent()).resolves.toMatch(/^Step 1 of 1\b/);
    // While the step replays, the counters show the run before it.
    await expect(page.locator('[data-counter="steps"]').textContent()).resolves.toBe('0');
    // Played by itself at the fastest speed, it ends at the emission.
    await page.keyboard.press('Escape');
    await player.getByRole('combobox').selectOption({ label: 'fast (0.6 s)' });
    await player.getByRole('button', { name: 'Play this step' }).click();
    await page.locator('[data-testid="step-player"][data-phase="emission"]').waitFor({ timeout: 60_000 });
  });

  it('saves the tree and the explained grid at 1280×720 and 1920×1080', async () => {
    await page.getByRole('button', { name: 'Show all' }).click();
    // A step with a rejection shows more of the rules than one that accepted everything.
    for (
      let steps = 2;
      steps <= 10 && (await page.locator('[data-testid="decision-grid"] td[data-status="rejected"]').count()) === 0;
      steps++
    ) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await page
        .getByTestId('inspector')
        .filter({ hasText: `Step ${steps} of ${steps}` })
        .waitFor({ timeout: 60_000 });
    }
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      const name = `${viewport.width}x${viewport.height}`;
      await page.getByTestId('step-player').evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: `${SCREENSHOTS}/teaching-inspector-${name}.png` });
      await page.getByTestId('draft-tree').screenshot({ path: `${SCREENSHOTS}/teaching-tree-${name}.png` });
      // The colour legend is readable: no two of its labels overlap.
      const boxes = await page
        .getByRole('list', { name: 'Draft tree colours' })
        .locator('li')
        .evaluateAll((items) =>
          items.map((item) => {
            // The extent of the label's text itself, which may overflow a box too narrow for it.
            const range = document.createRange();
            range.selectNodeContents(item);
            return range.getBoundingClientRect().toJSON() as DOMRect;
          }),
        );
      const overlapping = boxes.flatMap((a, i) =>
        boxes
          .slice(i + 1)
          .filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
          .map(() => i),
      );
      expect(overlapping, `${name}: legend labels overlap`).toEqual([]);
      await page.getByTestId('decision-grid').screenshot({ path: `${SCREENSHOTS}/teaching-grid-${name}.png` });
    }
    // The largest shape the app allows: K = 8 drafts of L = 8 tokens.
    await oneStep(page, 'spectr', 8, 8);
    const tree = page.getByRole('img', { name: /draft tree/ });
    const prefixes = new Set(
      (await gridDrafts(page)).flatMap((draft) => draft.map((_, j) => draft.slice(0, j + 1).join(','))),
    );
    await expect(tree.locator('[data-node="prefix"]').count()).resolves.toBe(prefixes.size);
    // Readable: the labels keep at least 12 px on screen.
    const scale = await tree.evaluate((svg) => svg.getBoundingClientRect().width / Number(svg.getAttribute('width')));
    expect(scale * 14).toBeGreaterThanOrEqual(12);
    await page.getByTestId('draft-tree').screenshot({ path: `${SCREENSHOTS}/teaching-tree-K8-L8-1920x1080.png` });
    await page.setViewportSize(VIEWPORTS[0]);
    await page.getByTestId('draft-tree').screenshot({ path: `${SCREENSHOTS}/teaching-tree-K8-L8-1280x720.png` });
  });

  it('the token stream shows step boundaries and a hover card with the decision', async () => {
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.getByTestId('inspector').filter({ hasText: 'Step 2 of 2' }).waitFor();
    await expect(page.locator('[data-testid="token-stream"] .step-group').count()).resolves.toBe(2);
    const token = page.locator('[data-testid="token-stream"] .token[data-position="0"]').first();
    await token.hover();
    const card = page.getByTestId('token-card');
    await expect(card.textContent()).resolves.toMatch(/origin.*p \(target\)/);
    await expect(card.textContent()).resolves.toMatch(/decision.*u = \d\.\d+/);
    const fontSize = await card.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
    expect(fontSize).toBeGreaterThanOrEqual(16);
    await card.screenshot({ path: `${SCREENSHOTS}/teaching-token-card-1280x720.png` });
    await page.mouse.move(0, 0);
    await card.waitFor({ state: 'detached' });
  });

  it('“How it works” opens from its button and from a “?”, with the worked example; the tour opens and is remembered when closed', async () => {
    await page.getByRole('button', { name: 'How it works', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'How it works' });
    await panel.waitFor();
    await expect(page.getByTestId('worked-example-counters').textContent()).resolves.toMatch(
      /R = 1,000 .* I = 200 .* A = 600.* 80%.* 75%.* 60%/,
    );
    await panel.getByRole('button', { name: 'Close' }).click();
    await panel.waitFor({ state: 'detached' });
    await page
      .getByRole('button', { name: /How it works: Mean acceptance length/ })
      .first()
      .click();
    await expect(panel.locator('section.current h3').textContent()).resolves.toBe('Mean acceptance length');
    await page.screenshot({ path: `${SCREENSHOTS}/teaching-how-it-works-1280x720.png` });
    await panel.getByRole('button', { name: 'Take the tour' }).click();
    const popover = page.locator('.driver-popover');
    await popover.waitFor();
    await expect(popover.textContent()).resolves.toMatch(/Start here/);
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'detached' });
    await page.waitForFunction(() => localStorage.getItem('speclab.tour.dismissed') === '1');
    expect(problems).toEqual([]);
  });

  it('marks the schema’s forced (◆) and the looked-up (↺) draft tokens in the tree, and their part of R, I and A beside the counters', async () => {
    // The order preset's prompt repeats its words ("X-100", "H-20") and its schema forces keys and punctuation.
    await page.locator('#preset').selectOption('order');
    await page.locator('#drafter').selectOption('model+grammar+lookup');
    await oneStep(page, 'spectr-gbv', 3, 4);
    const tree = page.getByTestId('draft-tree');
    const bothMarked = async () =>
      (await tree.locator('[data-source="grammar"]').count()) > 0 &&
      (await tree.locator('[data-source="lookup"]').count()) > 0;
    await stepUntil(page, bothMarked);
    expect(await bothMarked()).toBe(true);
    await expect(tree.locator('[data-source="grammar"] text').first().textContent()).resolves.toMatch(/^◆ /);
    await expect(tree.locator('[data-source="lookup"] text').first().textContent()).resolves.toMatch(/^↺ /);
    await expect(page.getByTestId('source-legend').textContent()).resolves.toMatch(
      /◆ forced by the schema: q = 1, kept with probability p\(x\).*↺ looked up/,
    );
    await tree.screenshot({ path: `${SCREENSHOTS}/teaching-tree-sources-1280x720.png` });

    // Beside R, I and A, the part each free source gave; the draft model gave the rest, so the parts never exceed the whole.
    const counters = page.getByTestId('counters');
    for (const [key, count] of [
      ['R', 'drafted'],
      ['I', 'invalidated'],
      ['A', 'accepted'],
    ] as const) {
      const total = Number(await counters.locator(`[data-counter="${key}"]`).textContent());
      const shares = (await counters.locator(`[data-source-shares="${count}"]`).textContent()) ?? '';
      const match = /^◆ (\d+)↺ (\d+)$/.exec(shares);
      expect(match, `${key}: ${shares}`).not.toBeNull();
      const [, forced, lookedUp] = (match ?? []).map(Number) as [number, number, number];
      expect(forced + lookedUp).toBeLessThanOrEqual(total);
      if (key === 'R') expect(forced * lookedUp).toBeGreaterThan(0);
    }
    await page
      .locator('section.counters')
      .screenshot({ path: `${SCREENSHOTS}/teaching-counters-by-source-1280x720.png` });
    expect(problems).toEqual([]);
  });

  it('marks the tokens copied from the prompt (▣) in the tree, with their legend entry, and each source’s A/D beside the counters', async () => {
    // The order preset's prompt holds its values: "Order A-17" is what order_id points to.
    await page.locator('#preset').selectOption('order');
    await page.locator('#drafter').selectOption('model+grammar+copy');
    await oneStep(page, 'spectr-gbv', 3, 4);
    const tree = page.getByTestId('draft-tree');
    await stepUntil(page, async () => (await tree.locator('[data-source="copy"]').count()) > 0);
    await expect(tree.locator('[data-source="copy"]').count()).resolves.toBeGreaterThan(0);
    await expect(tree.locator('[data-source="copy"] text').first().textContent()).resolves.toMatch(/^▣ /);
    await expect(page.getByTestId('source-legend').textContent()).resolves.toContain(
      '▣ copied from the prompt, re-tokenized in place: q = 1, kept with probability p(x)',
    );
    await tree.screenshot({ path: `${SCREENSHOTS}/teaching-tree-copy-1280x720.png` });
    const bySource = (await page.getByTestId('counters').locator('[data-counter="by-source"]').textContent()) ?? '';
    expect(bySource).toMatch(/◆ schema \d+\.\d% · \d\.\d\d a step; ▣ copy \d+\.\d% · \d\.\d\d/);
    await page.locator('section.counters').screenshot({ path: `${SCREENSHOTS}/teaching-counters-copy-1280x720.png` });
    await page.locator('#drafter').selectOption('model+grammar');
    expect(problems).toEqual([]);
  });

  it('marks the draft head’s tokens (▲) in the tree, with their legend entry', async () => {
    await page.locator('#preset').selectOption('order');
    await page.locator('#drafter').selectOption('head+grammar');
    await oneStep(page, 'spectr-gbv', 3, 4);
    const tree = page.getByTestId('draft-tree');
    // The schema forces the order's first keys and punctuation: step until the head drafts somewhere.
    await stepUntil(page, async () => (await tree.locator('[data-source="head"]').count()) > 0);
    await expect(tree.locator('[data-source="head"]').count()).resolves.toBeGreaterThan(0);
    await expect(tree.locator('[data-source="model"]').count()).resolves.toBe(0);
    await expect(tree.locator('[data-source="head"] text').first().textContent()).resolves.toMatch(/^▲ /);
    await expect(page.getByTestId('source-legend').textContent()).resolves.toContain(
      "▲ sampled from the draft head, which reads the target's own features: q is the head's row",
    );
    await tree.screenshot({ path: `${SCREENSHOTS}/teaching-tree-head-1280x720.png` });
    await page.locator('#drafter').selectOption('model+grammar');
    expect(problems).toEqual([]);
  });
});
