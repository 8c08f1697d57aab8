/** bench:gpu's report (tools/bench/gpuPage.ts measures it in Chromium) and its markdown. */
import type { ScoringPlan } from '../../src/contract/stepRecord';
import type { Spread } from '../../src/core/fairTiming';
import { formatCostRatio } from './modelsBench';
import { DECODE_TABLE_HEADER, describeScoring, formatDecodeRow, type DecodeRow } from './decodeBench';
import { summaryMarkdown } from './decodeGoals';

/** Target positions timed per forward: ar's 1, a K = 1, L = 4 step's 5, a K = 3, L = 4 tree's 13. */
export const GPU_POSITIONS = [1, 5, 13] as const;

export interface GpuBenchReport {
  /** The adapter as Chromium describes it (vendor / architecture / device / description). */
  adapter: string;
  /** A software adapter (SwiftShader, or a fallback one): its figures are the CPU's, not a GPU's. */
  software: boolean;
  targetName: string;
  logitsInPlace: boolean;
  /** Median ms of one forward after 40 cached tokens: the draft at 1 position, the target at each of GPU_POSITIONS; null where skipped (--no-forward-table). */
  forwards: { draftMs: number; target: { positions: number; ms: number }[] } | null;
  /** Median ms of one readback alone (a 256-byte copy, submit and map); null where skipped with the forwards. */
  readbackMs: number | null;
  /** c, the median over alternating rounds of draft/target forward time, and its spread; null where not measured (--no-cost-ratio). */
  costRatio: number | null;
  costRatioSpread: Spread | null;
  scoring: ScoringPlan;
  rows: DecodeRow[];
}

/** The label every table carries: on a software adapter the figures are the CPU's. */
export function adapterLabel(report: Pick<GpuBenchReport, 'adapter' | 'software'>): string {
  return report.software ? `${report.adapter} (software adapter: CPU figures)` : `${report.adapter} (hardware adapter)`;
}

const ms = (value: number) => value.toFixed(2);

/** The per-forward table, or the line that says it was skipped. */
function forwardTable({ forwards, readbackMs }: GpuBenchReport): string[] {
  if (forwards === null || readbackMs === null) return ['**Per forward**: skipped (--no-forward-table).'];
  return [
    '**Per forward** (median ms, batch 1, after 40 cached tokens) and one readback',
    '',
    `| draft, 1 position | ${GPU_POSITIONS.map((positions) => `target, ${positions} position${positions === 1 ? '' : 's'}`).join(' | ')} | readback (copy + map, 256 B) |`,
    `|---|${GPU_POSITIONS.map(() => '---').join('|')}|---|`,
    `| ${ms(forwards.draftMs)} | ${forwards.target.map((entry) => ms(entry.ms)).join(' | ')} | ${ms(readbackMs)} |`,
  ];
}

/** c with its spread, or why it is absent (and with it the ideal speedup). */
function describeCostRatio({ costRatio, costRatioSpread }: GpuBenchReport): string {
  if (costRatio === null || costRatioSpread === null) return 'c not measured (--no-cost-ratio), so no ideal speedup';
  return `c = draft/target forward = ${formatCostRatio(costRatioSpread)}`;
}

/** How the timed rounds were preceded: at 0 warm-up runs the first run of each shape pays its pipeline compiles. */
function describeWarmUp(warmUpRuns: number): string {
  return warmUpRuns === 0
    ? ', no warm-up run, so the figures include first-call compiles'
    : ` after ${warmUpRuns} untimed warm-up run(s) of each method`;
}

export function gpuMarkdown(
  report: GpuBenchReport,
  seeds: number,
  rounds: number,
  maxTokens: number,
  warmUpRuns: number,
): string {
  const ar = (row: DecodeRow) =>
    report.rows.find((candidate) => candidate.preset === row.preset && candidate.method === 'ar');
  const phaseRow = (row: DecodeRow) =>
    `| ${row.preset} | ${row.method} | ${row.K} | ${row.L || '—'} | ${ms(row.perStep.draft)} | ${ms(row.perStep.target)} | ${ms(row.perStep.verify)} | ${ms(row.perStep.mask + row.perStep.kv + row.perStep.overhead)} | ${row.speedup.toFixed(2)}× |`;
  return [
    `### Chromium, models and verifier on WebGPU: ${adapterLabel(report)}`,
    '',
    `Target ${report.targetName}; logits read in place: ${report.logitsInPlace ? 'yes' : 'no'}; ${describeScoring(report.scoring)}; ${describeCostRatio(report)}; ${seeds} seed(s) per row, ${rounds} timed round(s)${describeWarmUp(warmUpRuns)}, up to ${maxTokens} tokens a run, T = 1.`,
    '',
    ...forwardTable(report),
    '',
    "**Per phase and speedup over ar** (ms per step; other = mask + KV + bookkeeping; the speedup is the median over rounds of tokens/s over the same round's ar)",
    '',
    '| preset | method | K | L | draft | target | verify (incl. readback) | other | speedup over ar |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.rows.filter((row) => row.method === 'ar' || ar(row)).map(phaseRow),
    '',
    summaryMarkdown(report.rows),
    '',
    DECODE_TABLE_HEADER,
    ...report.rows.map(formatDecodeRow),
  ].join('\n');
}
