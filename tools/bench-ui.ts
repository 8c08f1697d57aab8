/**
 * npm run bench:ui -- [--repeats 6] [--warm-up 2] [--screenshot FILE]
 * Generation speed with the app's UI open against the engine's worker alone, in one headless Chromium,
 * alternating the two so that drift hits both alike. Both pages are production builds served by
 * `vite preview`, as users get them. Goal: the UI keeps ≥ 90% of the headless tokens/s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { presetParams } from '../src/contract/runParams';
import { SCHEMA_PRESETS, type SchemaPreset } from '../src/contract/presets';
import { parseOrExit } from './cli/args';
import { COMMANDS } from './cli/commands';

const { values } = parseOrExit(COMMANDS['bench:ui'], process.argv.slice(2));
const { build, preview } = await import('vite');
const { launchChromium } = await import('../test/support/browser');
const repeats = Number(values.repeats);
const warmUpRounds = Number(values['warm-up']);
const preset = SCHEMA_PRESETS[2] as SchemaPreset;
const params = presetParams(preset, { schemaText: JSON.stringify(preset.schema, null, 2) });

const outDir = mkdtempSync(join(tmpdir(), 'speclab-bench-ui-'));
await build({ logLevel: 'warn', build: { outDir, emptyOutDir: true, rolldownOptions: { input: { app: 'index.html', engine: 'tools/bench/engine.html' } } } });
const server = await preview({ logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
const base = server.resolvedUrls?.local[0] as string;
const browser = await launchChromium();
try {
  const ui = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await ui.goto(`${base}`);
  const headless = await browser.newPage();
  await headless.goto(`${base}tools/bench/engine.html`);
  await ui.getByTestId('provider').waitFor({ timeout: 120_000 });
  await ui.locator('#preset').selectOption(preset.id);
  const headlessRates: number[] = [];
  const uiRates: number[] = [];
  // --warm-up rounds (two by default) warm both up (JIT tiers, allocators) and are not counted: both pages
  // were still speeding up over the first two rounds when a single warm-up round was used.
  for (let i = -warmUpRounds; i < repeats; i++) {
    // Alternate which goes first, so that neither always runs while the other page is still settling.
    const runHeadless = () => headless.evaluate(([p]) => window.speclabEngineBench(p, 1), [params] as const);
    const runUi = async () => {
      // Waits on a MutationObserver: Playwright's own waits poll every frame, which would take CPU from the
      // engine on a two-core machine and make the UI look slower than it is.
      // (A string, so that tsx's function-name helpers do not leak into the page.)
      // The watch starts before the click, and ends at the first 'done' after a 'running'.
      const finished = ui.evaluate(`new Promise((resolve) => {
        const status = document.querySelector('[data-testid="run-status"]');
        let started = false;
        const observer = new MutationObserver(() => {
          if (status.textContent === 'running') started = true;
          if (started && status.textContent === 'done') { observer.disconnect(); resolve(); }
        });
        observer.observe(status, { childList: true, characterData: true, subtree: true });
      })`);
      await ui.getByRole('button', { name: 'Run', exact: true }).click();
      await finished;
      const rate = Number(await ui.getByTestId('verdict').getAttribute('data-tokens-per-second'));
      // The charts of a finished run render after it (deferred); let them finish before the next timing.
      await ui.evaluate(`new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 5000 }))`);
      return rate;
    };
    let headlessRate: number[];
    let uiRate: number;
    if (i % 2 === 0) {
      headlessRate = await runHeadless();
      uiRate = await runUi();
    } else {
      uiRate = await runUi();
      headlessRate = await runHeadless();
    }
    if (i < 0) continue;
    headlessRates.push(...headlessRate);
    uiRates.push(uiRate);
  }
  await ui.screenshot({ path: values.screenshot, fullPage: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const [h, u] = [median(headlessRates), median(uiRates)];
  console.log(`headless engine: ${headlessRates.map((r) => r.toFixed(1)).join(', ')} tokens/s (median ${h.toFixed(1)})`);
  console.log(`with the UI:     ${uiRates.map((r) => r.toFixed(1)).join(', ')} tokens/s (median ${u.toFixed(1)})`);
  console.log(`UI / headless = ${(u / h).toFixed(3)} (goal ≥ 0.90); screenshot ${values.screenshot}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(outDir, { recursive: true, force: true });
}
