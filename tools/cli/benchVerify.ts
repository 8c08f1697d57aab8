/**
 * npm run bench:verify -- [--node] [--chromium] [--grid '[{"V":512,"K":4,"L":4}]'] [--methods a,b] [--json FILE]
 * Times the GPU verifier against the CPU reference for V ∈ {512, 50257, 151936}, K, L ∈ {1, 4, 8} and
 * every method with a WGSL kernel (the others are listed as skipped), in headless Chromium and in Node
 * (Dawn), and prints a table plus JSON. Without a GPU both
 * run on SwiftShader, so every figure is a CPU figure: compare ratios within one run, not across machines.
 */
import { writeFileSync } from 'node:fs';
import { UsageError, checkOrExit, parseOrExit } from './args';
import { COMMANDS } from './commands';
import { terminalSafe } from './terminalSafe';
import { BENCH_VERIFY_LIMITS, LIMITS } from '../../src/contract/limits';
import { snakeKeys } from './csv';
import {
  KERNEL_METHODS,
  SKIPPED_METHODS,
  TABLE_HEADER,
  formatRow,
  type BenchConfig,
  type BenchRow,
} from '../bench/verifyFormat';
import type { MethodId } from '../../src/core/verify';

const { values } = parseOrExit(COMMANDS['bench:verify'], process.argv.slice(2));
const both = !values.node && !values.chromium;
const { grid, methods } = checkOrExit(COMMANDS['bench:verify'], () => {
  let grid: BenchConfig[] | undefined;
  if (values.grid !== undefined) {
    try {
      grid = JSON.parse(values.grid) as BenchConfig[];
    } catch {
      throw new UsageError(`--grid must be JSON such as [{"V":512,"K":4,"L":4}], got ${values.grid}`);
    }
    const within = (x: unknown, min: number, max: number) =>
      Number.isInteger(x) && (x as number) >= min && (x as number) <= max;
    if (!Array.isArray(grid) || grid.length === 0 || grid.length > BENCH_VERIFY_LIMITS.entries)
      throw new UsageError(`--grid must be a list of 1 to ${BENCH_VERIFY_LIMITS.entries} entries {"V":n,"K":n,"L":n}`);
    const bad = grid.find(
      (c) =>
        !(
          within(c?.V, 2, BENCH_VERIFY_LIMITS.vocab) &&
          within(c?.K, LIMITS.K.min, LIMITS.K.max) &&
          within(c?.L, LIMITS.L.min, LIMITS.L.max)
        ),
    );
    if (bad !== undefined) {
      throw new UsageError(
        `--grid: each entry needs V from 2 to ${BENCH_VERIFY_LIMITS.vocab}, K from ${LIMITS.K.min} to ${LIMITS.K.max} and L from ${LIMITS.L.min} to ${LIMITS.L.max} (integers), got ${terminalSafe(JSON.stringify(bad) ?? String(bad), { maxChars: 200 })}`,
      );
    }
  }
  const methods =
    values.methods === undefined
      ? KERNEL_METHODS
      : (values.methods.split(',').map((name) => name.trim()) as MethodId[]);
  const unknown = methods.filter((name) => !KERNEL_METHODS.includes(name));
  if (unknown.length > 0)
    throw new UsageError(
      `--methods: ${unknown.join(', ')} cannot be timed on the GPU; the methods with a WGSL kernel are ${KERNEL_METHODS.join(', ')}`,
    );
  return { grid, methods };
});
const skipped = [
  ...SKIPPED_METHODS,
  ...KERNEL_METHODS.filter((method) => !methods.includes(method)).map((method) => `${method} (not in --methods)`),
];
if (skipped.length > 0) console.log(`skipped: ${skipped.join('; ')}`);

const { createServer } = await import('vite');
const { launchChromium } = await import('../../test/support/browser');
const server = await createServer({ logLevel: 'warn', server: { port: 0, host: '127.0.0.1' } });
await server.listen();
const results: Record<string, { adapter: string; rows: BenchRow[] }> = {};
try {
  if (values.node || both) {
    const { GpuDeviceManager } = (await server.ssrLoadModule(
      '/src/gpu/device.ts',
    )) as typeof import('../../src/gpu/device');
    const bench = (await server.ssrLoadModule('/tools/bench/verifyBench.ts')) as typeof import('../bench/verifyBench');
    const { nodeGpu } = await import('../nodeGpu');
    const devices = new GpuDeviceManager({ gpu: nodeGpu() });
    const adapter = (await devices.context()).adapterName;
    console.log(`\nNode (Dawn), adapter ${adapter}\n${TABLE_HEADER}`);
    const rows = await bench.runVerifyBench(devices, grid ?? bench.FULL_GRID, (line) => console.log(line), methods);
    results.node = { adapter, rows };
    await devices.dispose();
  }
  if (values.chromium || both) {
    const browser = await launchChromium();
    const page = await browser.newPage();
    const search = new URLSearchParams({ methods: methods.join(',') });
    if (grid) search.set('grid', JSON.stringify(grid));
    const query = `?${search.toString()}`;
    await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/verify.html${query}`);
    const report = (await page.evaluate(() => window.speclabBench)) as
      { adapter: string; rows: BenchRow[] } | { error: string };
    await browser.close();
    if ('error' in report) throw new Error(`the Chromium run failed: ${report.error}`);
    console.log(`\nChromium, adapter ${report.adapter}\n${TABLE_HEADER}`);
    for (const row of report.rows) console.log(formatRow(row));
    results.chromium = report;
  }
} finally {
  await server.close();
}
const json = JSON.stringify(snakeKeys({ schema_version: 1, skipped, ...results }), null, 2);
if (values.json) writeFileSync(values.json, json);
else console.log(`\n${json}`);
