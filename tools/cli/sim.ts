/**
 * npm run sim -- [options]; `npm run sim -- --help` lists them (tools/cli/commands.ts).
 * Runs every verification method, with no models, on synthetic context-dependent draft/target pairs.
 */
import { loadLpSolver } from '../../src/core/blockOptimum';
import {
  PAPER_GAINS,
  PAPER_METHODS,
  PAPER_TABLE,
  PAPER_TABLE_QUICK,
  largestGaps,
  meanGain,
  paperTable,
  type PaperCell,
  type PaperMethod,
} from '../../src/core/paperTable';
import { DEFAULT_SIMULATION, simulate, type SimulationOptions, type SimulationReport } from '../../src/core/simulate';
import type { VerifierId } from '../../src/core/verify';
import { UsageError, checkOrExit, parseOrExit } from './args';
import { COMMANDS } from './commands';
import { snakeKeys } from './csv';

const NUMBER_OPTIONS = ['V', 'K', 'L', 'temperature', 'closeness', 'seed', 'steps', 'contexts'] as const;

function parseOptions(argv: string[]): {
  options: SimulationOptions;
  json: boolean;
  paperTable: boolean;
  quick: boolean;
} {
  const { values } = parseOrExit(COMMANDS.sim, argv);
  checkOrExit(COMMANDS.sim, () => {
    if (values.quick && !values['paper-table']) throw new UsageError('--quick only applies to --paper-table');
  });
  const options: SimulationOptions = { ...DEFAULT_SIMULATION };
  for (const name of NUMBER_OPTIONS) options[name] = Number(values[name]);
  if (values.methods !== undefined)
    options.methods = values.methods.split(',').map((method) => method.trim()) as VerifierId[];
  return { options, json: values.json, paperTable: values['paper-table'], quick: values.quick };
}

const format = (value: number | null, digits = 4) => (value === null ? '—' : value.toFixed(digits));

function printTable(report: SimulationReport): void {
  const { V, K, L, temperature, closeness, seed, steps, contexts } = report.options;
  console.log(
    `SpecLab simulator: V=${V} K=${K} L=${L} temperature=${temperature} closeness=${closeness} seed=${seed} ` +
      `steps=${steps} contexts=${contexts}`,
  );
  const header = [
    'method',
    'drafts',
    'block efficiency',
    '± s.e.',
    'exact',
    'optimum (L=1)',
    'block optimum',
    'gap',
    'universal bound',
    'A/D',
  ];
  const rows = report.methods.map((m) => [
    m.method,
    String(m.draftsUsed),
    format(m.blockEfficiency),
    format(m.standardError),
    format(m.exactBlockEfficiency),
    format(m.transportOptimum),
    format(m.blockOptimum),
    format(m.blockOptimum === null ? null : m.blockOptimum - (m.exactBlockEfficiency ?? m.blockEfficiency)),
    format(m.universalBound),
    format(m.conditionalAcceptance),
  ]);
  printColumns(header, rows);
  console.log(
    'block efficiency = mean emitted tokens per step (accepted + 1 correction/bonus) = 1 + A/steps; ' +
      'exact and bound average over the contexts; — means the instance is too large to enumerate.\n' +
      'optimum (L=1) = 1 + α*, the best any lossless verifier of that many i.i.d. drafts accepts at one position ' +
      '(equal to optimal-tree at L = 1; per position, so block methods may pass it at L > 1).\n' +
      'block optimum = the best E[emitted tokens per step] any lossless verifier of that many i.i.d. drafts reaches (a linear ' +
      'program, HiGHS; — where it is too large: V^L·K small only); gap = block optimum − exact (or − the empirical figure).',
  );
}

function printColumns(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

const percent = (value: number) => `${value >= 0 ? '+' : ''}${(100 * value).toFixed(1)}%`;

/** SpecTr-GBV below `other` by more than rounding and two standard errors of the difference (0 for exact figures). */
function clearlyBelow(cell: PaperCell, other: PaperMethod): boolean {
  const mine = cell.methods['spectr-gbv'];
  const theirs = cell.methods[other];
  return theirs.efficiency - mine.efficiency > 1e-6 + 2 * Math.hypot(mine.standardError, theirs.standardError);
}

function printPaperTable(cells: readonly PaperCell[], quick: boolean): void {
  const options = quick ? PAPER_TABLE_QUICK : PAPER_TABLE;
  console.log(
    `SpecLab: the SpecTr-GBV paper's table on synthetic pairs (V=${options.V}, seed ${options.seed}, ${options.contexts} contexts, ` +
      `${options.steps} paired steps a cell${quick ? ', --quick' : ''}). Block efficiency = E[emitted tokens per step]; ` +
      '* marks an exact figure, else ± is the standard error.',
  );
  const header = ['closeness', 'K', 'L', 'T', ...PAPER_METHODS, 'block optimum'];
  const rows = cells.map((cell) => [
    String(cell.closeness),
    String(cell.K),
    String(cell.L),
    String(cell.temperature),
    ...PAPER_METHODS.map((method) => {
      const m = cell.methods[method];
      return m.exact ? `${m.efficiency.toFixed(3)}*` : `${m.efficiency.toFixed(3)}±${m.standardError.toFixed(3)}`;
    }),
    cell.optimum === null ? '—' : cell.optimum.toFixed(3),
  ]);
  printColumns(header, rows);
  console.log('\nSpecTr-GBV (SpecLab: recursive GBV) mean relative gain in block efficiency, here vs the paper:');
  for (const closeness of options.closenesses) {
    const these = cells.filter((cell) => cell.closeness === closeness);
    const gains = (['tokenwise', 'spectr', 'gbv'] as const).map(
      (baseline) =>
        `vs ${baseline === 'tokenwise' ? 'SD (token-wise)' : baseline === 'spectr' ? 'SpecTr' : 'GBV'} ${percent(meanGain(these, baseline))} (paper ${percent(PAPER_GAINS[baseline])})`,
    );
    const behind = these.filter((cell) => clearlyBelow(cell, 'spectr')).length;
    const behindTree = these.filter((cell) => clearlyBelow(cell, 'optimal-tree')).length;
    console.log(
      `  closeness ${closeness}: ${gains.join(', ')}; below SpecTr in ${behind} of ${these.length} cells, below optimal-tree in ${behindTree} (by more than 1e-6 and two standard errors)`,
    );
  }
  console.log(
    'Largest gap to the block optimum (for K drafts) over the cells where it was computed: all of them | those with K ≥ 2:',
  );
  const gaps = largestGaps(cells);
  const multiGaps = largestGaps(cells.filter((cell) => cell.K >= 2));
  const where = (worst: ReturnType<typeof largestGaps>[PaperMethod]) =>
    worst === null
      ? '— (no cell small enough)'
      : `${worst.gap.toFixed(4)} at closeness ${worst.cell.closeness}, K=${worst.cell.K}, L=${worst.cell.L}, T=${worst.cell.temperature}`;
  for (const method of PAPER_METHODS)
    console.log(`  ${method.padEnd(19)} ${where(gaps[method])} | ${where(multiGaps[method])}`);
}

const { options, json, paperTable: wantsPaperTable, quick } = parseOptions(process.argv.slice(2));
const solver = await loadLpSolver();
if (wantsPaperTable) {
  const cells = paperTable(quick ? PAPER_TABLE_QUICK : PAPER_TABLE, solver);
  if (json) console.log(JSON.stringify(snakeKeys({ schema_version: 1, paper_table: cells }), null, 2));
  else printPaperTable(cells, quick);
} else {
  // simulate() checks the ranges (RangeError) before it runs a step.
  const report = checkOrExit(COMMANDS.sim, () => {
    try {
      return simulate(options, solver);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
  });
  if (json) console.log(JSON.stringify(snakeKeys({ schema_version: 1, ...report }), null, 2));
  else printTable(report);
}
