/**
 * npm run bench:ui -- [--repeats 6] [--warm-up 2] [--preset order] [--max-tokens 96] [--dist DIR] [--screenshot FILE | --no-screenshot]
 * Generation speed with the app's UI open against the engine's worker alone, in one headless Chromium,
 * alternating the two so that drift hits both alike. Both run the same production build served by
 * `vite preview`, as users get it (built here, or --dist): the UI page is the app, and the other page is an
 * empty page of the same origin, with the app's headers, that starts the app's own worker bundle and sends
 * it the messages the app sends. Goal: the UI keeps ≥ 90% of the headless tokens/s.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';
import { spreadOf } from '../../src/core/fairTiming';
import type { Page } from 'playwright-core';
import type { ToWorker } from '../../src/contract/protocol';
import { presetParams, type RunParams } from '../../src/contract/runParams';
import { distOption, limitedOption, positiveInteger, presetOption, runCommand } from './args';
import { COMMANDS } from './commands';

/** The engine's worker bundle in a production build (the one file the app's `new Worker(…worker.ts)` became). */
function workerBundle(outDir: string): string {
  const found = readdirSync(join(outDir, 'assets')).filter((file) => /^worker-[\w-]+\.js$/.test(file));
  if (found.length !== 1) throw new Error(`expected one assets/worker-*.js in ${outDir}, found ${found.length}`);
  return `assets/${found[0]}`;
}

/**
 * The headless page's script: the app's worker, loaded with the app's pair, and `speclabEngineRun()`, which
 * runs `params` once and gives its tokens/s. (A string, so that tsx's function-name helpers do not leak into the page.)
 */
function engineScript(worker: string, params: RunParams): string {
  const load: ToWorker = { type: 'load', source: BUNDLED_PAIR, provider: 'auto', verifier: 'auto' };
  const run: Omit<Extract<ToWorker, { type: 'run' }>, 'runId'> = { type: 'run', params, paused: false, stepDelayMs: 0 };
  return `(() => {
    const worker = new Worker(${JSON.stringify(`/${worker}`)}, { type: 'module', name: 'speclab-engine' });
    const ready = new Promise((resolve, reject) => worker.addEventListener('message', (event) => {
      if (event.data.type === 'ready') resolve();
      if (event.data.type === 'load-error') reject(new Error(event.data.message));
    }));
    worker.postMessage(${JSON.stringify(load)});
    let runs = 0;
    window.speclabEngineRun = async () => {
      await ready;
      const runId = ++runs;
      return new Promise((resolve, reject) => {
        const listen = (event) => {
          const message = event.data;
          if (message.type === 'done' && message.runId === runId) resolve(message.report.tokensPerSecond);
          else if (message.type === 'run-error' && message.runId === runId) reject(new Error(message.message));
          else return;
          worker.removeEventListener('message', listen);
        };
        worker.addEventListener('message', listen);
        worker.postMessage({ ...${JSON.stringify(run)}, runId });
      });
    };
  })()`;
}

/** Throws unless the app's last run asked its worker for exactly `params`, naming the fields that differ. */
async function sameRun(ui: Page, params: RunParams): Promise<void> {
  const asked = (await ui.evaluate('window.speclabRunsAsked.at(-1)')) as string | undefined;
  if (asked === undefined) throw new Error('the app ran without asking its worker for a run');
  const app = JSON.parse(asked) as Record<string, unknown>;
  const ours = params as unknown as Record<string, unknown>;
  const differ = [...new Set([...Object.keys(app), ...Object.keys(ours)])].filter(
    (key) => JSON.stringify(app[key]) !== JSON.stringify(ours[key]),
  );
  if (differ.length > 0)
    throw new Error(
      `the app's run and the engine page's differ in ${differ.map((key) => `${key} (${JSON.stringify(app[key])} against ${JSON.stringify(ours[key])})`).join(', ')}: their speeds would compare different decodes`,
    );
}

export function main(argv: readonly string[]): Promise<number> {
  return runCommand(COMMANDS['bench:ui'], argv, async ({ values }) => {
    const repeats = positiveInteger('repeats', values.repeats);
    const warmUpRounds = Number(values['warm-up']);
    const preset = presetOption(values.preset);
    const maxTokens = limitedOption('maxTokens', 'max-tokens', values['max-tokens']);
    const dist = values.dist === undefined ? null : distOption(values.dist);
    // What the app's form holds after choosing the preset (its lecture's seed and temperature), and the drafter
    // the bench selects there: the two pages must run one decode, or their speeds compare different outputs.
    const params = presetParams(preset, {
      maxTokens,
      seed: preset.lecture.seed,
      temperature: preset.lecture.temperature,
      drafter: 'model',
    });
    const { build, preview } = await import('vite');
    const { launchChromium } = await import('../../test/support/browser');

    const outDir = dist ?? mkdtempSync(join(tmpdir(), 'speclab-bench-ui-'));
    if (dist === null) await build({ logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    const server = await preview({ logLevel: 'warn', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    const base = server.resolvedUrls?.local[0] as string;
    const browser = await launchChromium();
    try {
      const ui = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      // Keeps the parameters of each run the app asks its worker for, to check them against the headless page's.
      await ui.addInitScript(`(() => {
        const post = Worker.prototype.postMessage;
        window.speclabRunsAsked = [];
        Worker.prototype.postMessage = function (message, ...rest) {
          if (message && message.type === 'run') window.speclabRunsAsked.push(JSON.stringify(message.params));
          return post.call(this, message, ...rest);
        };
      })()`);
      await ui.goto(base);
      const headless = await browser.newPage();
      // An empty document of the app's origin, with the headers the app's page gets (cross-origin isolation, CSP).
      const enginePage = `${base}engine-alone.html`;
      await headless.route(enginePage, async (route) => {
        const app = await route.fetch({ url: base });
        await route.fulfill({ response: app, body: '<!doctype html><title>SpecLab engine alone</title>' });
      });
      await headless.goto(enginePage);
      await headless.evaluate(engineScript(workerBundle(outDir), params));
      await ui.getByTestId('provider').waitFor({ timeout: 120_000 });
      await ui.locator('#preset').selectOption(preset.id);
      // The app drafts with the schema's forced text too by default; both pages run the same parameters.
      await ui.locator('#drafter').selectOption(params.drafter as string);
      const maxTokensField = ui.locator('#max-tokens');
      await maxTokensField.fill(String(maxTokens));
      await maxTokensField.blur();
      const headlessRates: number[] = [];
      const uiRates: number[] = [];
      // --warm-up rounds (two by default) warm both up (JIT tiers, allocators) and are not counted: both pages
      // were still speeding up over the first two rounds when a single warm-up round was used.
      for (let i = -warmUpRounds; i < repeats; i++) {
        // Alternate which goes first, so that neither always runs while the other page is still settling.
        const runHeadless = () => headless.evaluate('window.speclabEngineRun()') as Promise<number>;
        const runUi = async () => {
          // Waits on a MutationObserver: Playwright's own waits poll every frame, which would take CPU from the
          // engine on a two-core machine and make the UI look slower than it is.
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
        let headlessRate: number;
        let uiRate: number;
        if (i % 2 === 0) {
          headlessRate = await runHeadless();
          uiRate = await runUi();
        } else {
          uiRate = await runUi();
          headlessRate = await runHeadless();
        }
        if (i === -warmUpRounds) await sameRun(ui, params);
        if (i < 0) continue;
        headlessRates.push(headlessRate);
        uiRates.push(uiRate);
      }
      if (!values['no-screenshot']) await ui.screenshot({ path: values.screenshot, fullPage: true });
      const [h, u] = [spreadOf(headlessRates).median, spreadOf(uiRates).median];
      // Each round's two runs are neighbours in time: their ratio leaves out the drift both pages share over rounds.
      const ratio = spreadOf(uiRates.map((rate, round) => rate / (headlessRates[round] as number)));
      console.log(
        `${preset.id}, up to ${maxTokens} tokens, ${repeats} timed round(s) after ${warmUpRounds} warm-up round(s)`,
      );
      console.log(
        `headless engine: ${headlessRates.map((r) => r.toFixed(1)).join(', ')} tokens/s (median ${h.toFixed(1)})`,
      );
      console.log(`with the UI:     ${uiRates.map((r) => r.toFixed(1)).join(', ')} tokens/s (median ${u.toFixed(1)})`);
      console.log(
        `UI / headless, round by round: median ${ratio.median.toFixed(3)} [${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)}] (goal ≥ 0.90)${values['no-screenshot'] ? '' : `; screenshot ${values.screenshot}`}`,
      );
      return 0;
    } finally {
      await browser.close();
      await server.close();
      if (dist === null) rmSync(outDir, { recursive: true, force: true });
    }
  });
}
