/**
 * npm run bench:gpu -- [--quick] [--seeds 1] [--rounds 2] [--presets a,b] [--grid 3x4] [--repeats 10] [--max-tokens 96] [--warm-up 1]
 *                       [--no-forward-table] [--no-cost-ratio] [--out bench-results/gpu] [--chromium /usr/bin/chromium]
 * The decode bench in headless Chromium with the bundled pair as a GPU machine gets it by default: the models
 * on onnxruntime-web's WebGPU EP (float32 target) and the WGSL verifier reading their logits in place. Prints
 * the adapter, per-forward times (draft; target at 1, 5 and 13 positions; a readback), each method's per-phase
 * times and speedup over ar, as markdown, and writes <out>.md and <out>.json; --no-forward-table skips the
 * per-forward times and the readback, --no-cost-ratio leaves c (and so the ideal speedup) unmeasured, --warm-up 0
 * times first calls with their compiles, and the report says each. On a software adapter
 * (SwiftShader) the tables say "software adapter: CPU figures". docs/performance.md: "Measuring on a GPU".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS } from '../../test/support/browser';
import { GRID, SPECULATIVE, decodeRowJson } from '../bench/decodeBench';
import { snakeKeys } from './csv';
import { adapterLabel, gpuMarkdown } from '../bench/gpuBench';
import type { MethodId } from '../../src/core/verify';
import { gridOption, limitedOption, positiveInteger, presetOption, runCommand, type Values } from './args';
import { COMMANDS } from './commands';

/** Chromium on a GPU machine without a display: WebGPU on Vulkan. On a machine without one, SwiftShader answers. */
export const GPU_CHROMIUM_ARGS = [...CHROMIUM_ARGS, '--enable-features=Vulkan', '--ignore-gpu-blocklist'];

export function parse(values: Values<(typeof COMMANDS)['bench:gpu']>) {
  const seeds = positiveInteger('seeds', values.seeds);
  const rounds = positiveInteger('rounds', values.rounds);
  const repeats = positiveInteger('repeats', values.repeats);
  const presets = values.presets?.split(',').map((id) => presetOption(id.trim()).id);
  const maxTokens = limitedOption('maxTokens', 'max-tokens', values['max-tokens']);
  const warmUpRuns = Number(values['warm-up']);
  const quick = values.quick;
  const methods: readonly MethodId[] = quick ? ['spectr-gbv'] : SPECULATIVE;
  return {
    out: values.out,
    chromium: values.chromium,
    seeds: quick ? 1 : seeds,
    rounds: quick ? 1 : rounds,
    repeats,
    maxTokens,
    warmUpRuns,
    forwardTable: !values['no-forward-table'],
    costRatio: !values['no-cost-ratio'],
    selection: {
      methods,
      grid: values.grid === undefined ? (quick ? [{ K: 3, L: 4 }] : GRID) : gridOption(values.grid),
      rounds: quick ? 1 : rounds,
      maxTokens,
      warmUpRuns,
      ...(presets === undefined ? {} : { presets }),
    },
  };
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS['bench:gpu'], argv, async ({ values }) => {
    const options = parse(values);
    const server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
    await server.listen();
    const browser = await chromium.launch({ executablePath: options.chromium, args: GPU_CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/gpu.html`);
      const report = await page.evaluate(
        ([seeds, selection, repeats, forwardTable, costRatio]) =>
          window.speclabGpuBench(seeds, selection, repeats, forwardTable, costRatio),
        [options.seeds, options.selection, options.repeats, options.forwardTable, options.costRatio] as const,
      );
      if ('error' in report) {
        console.error(`bench:gpu: the Chromium run failed: ${report.error}`);
        return 1;
      }
      console.log(`Adapter: ${adapterLabel(report)}\n`);
      const markdown = gpuMarkdown(report, options.seeds, options.rounds, options.maxTokens, options.warmUpRuns);
      console.log(markdown);
      mkdirSync(dirname(options.out), { recursive: true });
      writeFileSync(`${options.out}.md`, `${markdown}\n`);
      writeFileSync(
        `${options.out}.json`,
        JSON.stringify(
          snakeKeys({
            schema_version: 1,
            seeds: options.seeds,
            rounds: options.rounds,
            max_tokens: options.maxTokens,
            warm_up_runs: options.warmUpRuns,
            ...report,
            rows: report.rows.map(decodeRowJson),
          }),
          null,
          2,
        ),
      );
      console.log(`\nwrote ${options.out}.md and ${options.out}.json`);
      return 0;
    } finally {
      await browser.close();
      await server.close();
    }
  });
}
