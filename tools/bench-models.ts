/**
 * npm run bench:models -- [--node-only | --browser] [--repeats 5] [--json FILE]
 * Per-forward times of the bundled draft and target (batch 1 and K = 3, sequence 1 and L + 1 = 5), medians
 * with their range over --repeats, and the pair's load time: in Node on the wasm EP, and in headless
 * Chromium on WebGPU (the float32 target: the int8 one runs on wasm only) and wasm.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError, checkOrExit, parseOrExit } from './cli/args';
import { COMMANDS } from './cli/commands';
import type { ModelsBenchReport } from './bench/modelsBench';

const spec = COMMANDS['bench:models'];
const { values } = parseOrExit(spec, process.argv.slice(2));
checkOrExit(spec, () => {
  if (values['node-only'] && values.browser) throw new UsageError('give --node-only or --browser, not both');
});
const repeats = Number(values.repeats);
const results: Record<string, ModelsBenchReport[]> = {};

if (!values.browser) {
  const { formatModelsReport, runModelsBench } = await import('./bench/modelsBench');
  const { BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, directoryReader, ort } = await import('./bundled');
  const report = await runModelsBench(ort, { draft: directoryReader(BUNDLED_DRAFT_DIR), target: directoryReader(BUNDLED_TARGET_DIR) }, 'wasm', repeats);
  results.node = [report];
  console.log(formatModelsReport('Node', report));
}

if (!values['node-only']) {
  const { formatModelsReport } = await import('./bench/modelsBench');
  const { createServer } = await import('vite');
  const { launchChromium } = await import('../test/support/browser');
  const server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
  await server.listen();
  try {
    const browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/models.html`);
    const report = await page.evaluate((n) => window.speclabModelsBench(n), repeats);
    await browser.close();
    if ('error' in report) throw new Error(`the Chromium run failed: ${report.error}`);
    results.chromium = report;
    for (const entry of report) console.log(formatModelsReport('Chromium', entry));
  } finally {
    await server.close();
  }
}
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, JSON.stringify({ schema_version: 1, ...results }, null, 2));
}
