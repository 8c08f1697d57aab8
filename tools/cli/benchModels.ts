/**
 * npm run bench:models -- [--node-only | --browser] [--repeats 5] [--pair DRAFT,TARGET] [--json FILE]
 * Per-forward times of the bundled draft and target (batch 1 and K = 3, sequence 1 and L + 1 = 5), medians
 * with their range over --repeats, and the pair's load time: in Node on the wasm EP, and in headless
 * Chromium on WebGPU (the float32 target: the int8 one runs on wasm only) and wasm. With --pair both time
 * that pair instead: Node loads it as every tool loads one (tools/cli/pair.ts), the page as the app loads a
 * Hub pair (tools/cli/pairServer.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError, runCommand } from './args';
import { COMMANDS } from './commands';
import { snakeKeys } from './csv';
import { parsePairOption } from './pair';
import type { ModelsBenchReport } from '../bench/modelsBench';

const spec = COMMANDS['bench:models'];

export function main(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, async ({ values }) => {
    if (values['node-only'] && values.browser) throw new UsageError('give --node-only or --browser, not both');
    const location = values.pair === undefined ? null : parsePairOption(values.pair);
    const repeats = Number(values.repeats);
    const results: Record<string, ModelsBenchReport[]> = {};

    if (!values.browser) {
      const { formatModelsReport, runModelsBench } = await import('../bench/modelsBench');
      const { loadBundledPair } = await import('../bundled');
      const { loadPairOption } = await import('./pair');
      const load = location === null ? loadBundledPair : () => loadPairOption(location);
      const { pairLabel } = await import('./pairServer');
      const report = await runModelsBench(load, 'wasm', repeats, location === null ? undefined : pairLabel(location));
      results.node = [report];
      console.log(formatModelsReport('Node', report));
    }

    if (!values['node-only']) {
      const { formatModelsReport } = await import('../bench/modelsBench');
      const { createServer } = await import('vite');
      const { launchChromium } = await import('../../test/support/browser');
      const { pairForPage } = await import('./pairServer');
      const pair = location === null ? null : pairForPage(location);
      const server = await createServer({
        logLevel: 'warn',
        server: { port: 0, host: '127.0.0.1' },
        plugins: pair === null ? [] : [pair.plugin],
      });
      await server.listen();
      try {
        const browser = await launchChromium();
        const page = await browser.newPage();
        await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/models.html`);
        const result = await page.evaluate(([n, pagePair]) => window.speclabModelsBench(n, pagePair), [
          repeats,
          pair?.page ?? null,
        ] as const);
        await browser.close();
        if ('error' in result) {
          console.error(`bench:models: the Chromium run failed: ${result.error}`);
          return 1;
        }
        results.chromium = result.reports;
        for (const line of result.skipped) console.log(`\nChromium, ${line}`);
        for (const entry of result.reports) console.log(formatModelsReport('Chromium', entry));
      } finally {
        await server.close();
      }
    }
    if (values.json) {
      mkdirSync(dirname(values.json), { recursive: true });
      writeFileSync(values.json, JSON.stringify(snakeKeys({ schema_version: 1, ...results }), null, 2));
    }
    return 0;
  });
}

process.exitCode = await main(process.argv.slice(2));
