/**
 * npm run bench:gpu -- [--quick] [--seeds 1] [--rounds 2] [--out bench-results/gpu] [--chromium /usr/bin/chromium]
 * The decode bench in headless Chromium with the bundled pair as a GPU machine gets it by default: the models
 * on onnxruntime-web's WebGPU EP (float32 target) and the WGSL verifier reading their logits in place. Prints
 * the adapter, per-forward times (draft; target at 1, 5 and 13 positions; a readback), each method's per-phase
 * times and speedup over ar, as markdown, and writes <out>.md and <out>.json. On a software adapter
 * (SwiftShader) the tables say "software adapter: CPU figures". docs/performance.md: "Measuring on a GPU".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser';
import { GRID, SPECULATIVE } from '../bench/decodeBench';
import { adapterLabel, gpuMarkdown } from '../bench/gpuBench';
import type { MethodId } from '../../src/core/verify';
import { UsageError, parsingArguments, positiveInteger, withUsageErrors } from './options';

export const USAGE = `usage: npm run bench:gpu -- [--quick] [--seeds N] [--rounds N] [--out PATH] [--chromium PATH]
  --quick      one seed, one round, spectr-gbv at K = 3, L = 4 only (about 3 minutes on SwiftShader)
  --seeds N    seeds per row (default 1)
  --rounds N   timed rounds per preset (default 2)
  --out PATH   writes PATH.md and PATH.json (default bench-results/gpu)
  --chromium   the Chromium binary (default ${CHROMIUM_PATH})`;

/** Chromium on a GPU machine without a display: WebGPU on Vulkan. On a machine without one, SwiftShader answers. */
export const GPU_CHROMIUM_ARGS = [...CHROMIUM_ARGS, '--enable-features=Vulkan', '--ignore-gpu-blocklist'];

export function parse(argv: string[]) {
  const { values } = parsingArguments(() =>
    parseArgs({
      args: argv,
      options: { help: { type: 'boolean', default: false }, quick: { type: 'boolean', default: false }, seeds: { type: 'string', default: '1' }, rounds: { type: 'string', default: '2' }, out: { type: 'string', default: 'bench-results/gpu' }, chromium: { type: 'string', default: CHROMIUM_PATH } },
    }),
  );
  const seeds = positiveInteger('seeds', values.seeds);
  const rounds = positiveInteger('rounds', values.rounds);
  if (values.out === '') throw new UsageError('--out must name a path');
  const quick = values.quick;
  const methods: readonly MethodId[] = quick ? ['spectr-gbv'] : SPECULATIVE;
  return { help: values.help, out: values.out, chromium: values.chromium, seeds: quick ? 1 : seeds, rounds: quick ? 1 : rounds, selection: { methods, grid: quick ? [{ K: 3, L: 4 }] : GRID, rounds: quick ? 1 : rounds } };
}

export function main(argv: string[]): Promise<number> {
  return withUsageErrors('bench:gpu', async () => {
    const options = parse(argv);
    if (options.help) {
      console.log(USAGE);
      return 0;
    }
    const server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
    await server.listen();
    const browser = await chromium.launch({ executablePath: options.chromium, args: GPU_CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/gpu.html`);
      const report = await page.evaluate(([seeds, selection]) => window.speclabGpuBench(seeds, selection), [options.seeds, options.selection] as const);
      if ('error' in report) {
        console.error(`bench:gpu: the Chromium run failed: ${report.error}`);
        return 1;
      }
      console.log(`Adapter: ${adapterLabel(report)}\n`);
      const markdown = gpuMarkdown(report, options.seeds, options.rounds);
      console.log(markdown);
      mkdirSync(dirname(options.out), { recursive: true });
      writeFileSync(`${options.out}.md`, `${markdown}\n`);
      writeFileSync(`${options.out}.json`, JSON.stringify({ seeds: options.seeds, rounds: options.rounds, ...report }, null, 2));
      console.log(`\nwrote ${options.out}.md and ${options.out}.json`);
      return 0;
    } finally {
      await browser.close();
      await server.close();
    }
  });
}
