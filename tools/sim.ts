/**
 * npm run sim -- [options]; `npm run sim -- --help` lists them (tools/cli/commands.ts).
 * Runs every verification method, with no models, on synthetic context-dependent draft/target pairs.
 */
import { DEFAULT_SIMULATION, simulate, type SimulationOptions, type SimulationReport } from '../src/core/simulate';
import type { VerifierId } from '../src/core/verify';
import { UsageError, checkOrExit, parseOrExit } from './cli/args';
import { COMMANDS } from './cli/commands';
import { snakeKeys } from './cli/csv';

const NUMBER_OPTIONS = ['V', 'K', 'L', 'temperature', 'closeness', 'seed', 'steps', 'contexts'] as const;

function parseOptions(argv: string[]): { options: SimulationOptions; json: boolean } {
  const { values } = parseOrExit(COMMANDS.sim, argv);
  const options: SimulationOptions = { ...DEFAULT_SIMULATION };
  for (const name of NUMBER_OPTIONS) options[name] = Number(values[name]);
  if (values.methods !== undefined) options.methods = values.methods.split(',').map((method) => method.trim()) as VerifierId[];
  return { options, json: values.json };
}

const format = (value: number | null, digits = 4) => (value === null ? '—' : value.toFixed(digits));

function printTable(report: SimulationReport): void {
  const { V, K, L, temperature, closeness, seed, steps, contexts } = report.options;
  console.log(
    `SpecLab simulator: V=${V} K=${K} L=${L} temperature=${temperature} closeness=${closeness} seed=${seed} ` +
      `steps=${steps} contexts=${contexts}`,
  );
  const header = ['method', 'drafts', 'block efficiency', '± s.e.', 'exact', 'optimum (L=1)', 'universal bound', 'A/D'];
  const rows = report.methods.map((m) => [
    m.method,
    String(m.draftsUsed),
    format(m.blockEfficiency),
    format(m.standardError),
    format(m.exactBlockEfficiency),
    format(m.transportOptimum),
    format(m.universalBound),
    format(m.conditionalAcceptance),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log(
    'block efficiency = mean emitted tokens per step (accepted + 1 correction/bonus) = 1 + A/steps; ' +
      'exact and bound average over the contexts; — means the instance is too large to enumerate.\n' +
      'optimum (L=1) = 1 + α*, the best any lossless verifier of that many i.i.d. drafts accepts at one position ' +
      '(equal to optimal-tree at L = 1; per position, so block methods may pass it at L > 1).',
  );
}

const { options, json } = parseOptions(process.argv.slice(2));
// simulate() checks the ranges (RangeError) before it runs a step.
const report = checkOrExit(COMMANDS.sim, () => {
  try {
    return simulate(options);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
});
if (json) console.log(JSON.stringify(snakeKeys({ schema_version: 1, ...report }), null, 2));
else printTable(report);
