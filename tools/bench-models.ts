/**
 * npm run bench:models -- [--json FILE]
 * Per-forward times of the bundled draft and target (batch 1 and K = 3, sequence 1 and L + 1 = 5) and the
 * pair's load time: in Node on the wasm EP, and in headless Chromium on WebGPU and wasm.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer } from 'vite';
import { launchChromium } from '../test/support/browser';
import { formatModelsReport, runModelsBench, type ModelsBenchReport } from './bench/modelsBench';
import { BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, directoryReader, ort } from './bundled';

const { values } = parseArgs({ options: { json: { type: 'string' } } });
const results: Record<string, ModelsBenchReport[]> = {};

results.node = [await runModelsBench(ort, { draft: directoryReader(BUNDLED_DRAFT_DIR), target: directoryReader(BUNDLED_TARGET_DIR) }, 'wasm')];
console.log(formatModelsReport('Node', results.node[0] as ModelsBenchReport));

const server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
await server.listen();
try {
  const browser = await launchChromium();
  const page = await browser.newPage();
  await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/models.html`);
  const report = (await page.evaluate(() => window.speclabModelsBench)) as ModelsBenchReport[] | { error: string };
  await browser.close();
  if ('error' in report) throw new Error(`the Chromium run failed: ${report.error}`);
  results.chromium = report;
  for (const entry of report) console.log(formatModelsReport('Chromium', entry));
} finally {
  await server.close();
}
if (values.json) {
  mkdirSync(dirname(values.json), { recursive: true });
  writeFileSync(values.json, JSON.stringify(results, null, 2));
}
