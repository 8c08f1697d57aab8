/**
 * npm run bench:verify -- [--node] [--chromium] [--grid '[{"V":512,"K":4,"L":4}]'] [--json FILE]
 * Times the GPU verifier against the CPU reference for V ∈ {512, 50257, 151936}, K, L ∈ {1, 4, 8} and
 * every method, in headless Chromium and in Node (Dawn), and prints a table plus JSON. Without a GPU both
 * run on SwiftShader, so every figure is a CPU figure: compare ratios within one run, not across machines.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createServer } from 'vite';
import { launchChromium } from '../test/support/browser';
import { TABLE_HEADER, formatRow, type BenchConfig, type BenchRow } from './bench/format';

const { values } = parseArgs({
  options: {
    node: { type: 'boolean', default: false },
    chromium: { type: 'boolean', default: false },
    grid: { type: 'string' },
    json: { type: 'string' },
  },
});
const both = !values.node && !values.chromium;
const grid = values.grid ? (JSON.parse(values.grid) as BenchConfig[]) : undefined;

const server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
await server.listen();
const results: Record<string, { adapter: string; rows: BenchRow[] }> = {};
try {
  if (values.node || both) {
    const { GpuDeviceManager } = (await server.ssrLoadModule('/src/gpu/device.ts')) as typeof import('../src/gpu/device');
    const bench = (await server.ssrLoadModule('/tools/bench/verifyBench.ts')) as typeof import('./bench/verifyBench');
    const { nodeGpu } = await import('./nodeGpu');
    const devices = new GpuDeviceManager({ gpu: nodeGpu() });
    const adapter = (await devices.context()).adapterName;
    console.log(`\nNode (Dawn), adapter ${adapter}\n${TABLE_HEADER}`);
    const rows = await bench.runVerifyBench(devices, grid ?? bench.FULL_GRID, (line) => console.log(line));
    results.node = { adapter, rows };
    await devices.dispose();
  }
  if (values.chromium || both) {
    const browser = await launchChromium();
    const page = await browser.newPage();
    const query = grid ? `?grid=${encodeURIComponent(JSON.stringify(grid))}` : '';
    await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/bench.html${query}`);
    const report = (await page.evaluate(() => window.speclabBench)) as { adapter: string; rows: BenchRow[] } | { error: string };
    await browser.close();
    if ('error' in report) throw new Error(`the Chromium run failed: ${report.error}`);
    console.log(`\nChromium, adapter ${report.adapter}\n${TABLE_HEADER}`);
    for (const row of report.rows) console.log(formatRow(row));
    results.chromium = report;
  }
} finally {
  await server.close();
}
const json = JSON.stringify(results, null, 2);
if (values.json) writeFileSync(values.json, json);
else console.log(`\n${json}`);
