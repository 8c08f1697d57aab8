/**
 * The engineer's bench records (races, K × L sweep cells, scorecard rows) as they cross the worker
 * boundary, and their export formats: the CLI prints and the app exports the same JSON and CSV.
 */
import type { Spread, SpeedupVerdict } from '../core/fairTiming';
import { LIMITS } from './limits';
import { counterFields, derivedRatios, schemaValidRate, type Counters, type Scorecard } from '../core/metrics';
import type { SchemaPreset } from './presets';
import type { DecodeMethod, RunParams } from './runParams';
import type { PositionsPerStep, RunReport } from './runReport';

/** A race times at least this many tokens per method per round (several seeds' runs if need be). */
export const DEFAULT_RACE_TOKEN_BUDGET = 300;

export interface RaceEntry {
  method: DecodeMethod;
  /** The first timed run, on the race's seed (the table's counters and text). */
  report: RunReport;
  /** The fewest tokens one round of this method was timed over (at least the race's budget). */
  tokensTimed: number;
  tokensPerSecond: Spread;
  /** Per round, this method's tokens/s over ar's in the same round; null without ar in the race. */
  speedup: Spread | null;
  /** How the speedup's spread sits against 1× (null for ar itself or without ar). */
  verdict: SpeedupVerdict | null;
}

export interface RaceResult {
  /** Timed rounds each figure rests on (after one untimed warm-up per method). */
  repeats: number;
  /** Tokens each method's round was timed over, at least. */
  tokenBudget: number;
  entries: RaceEntry[];
}

export interface SweepSpec {
  /** The method, prompt, schema and sampling; K, L and seed are swept. */
  base: RunParams;
  Ks: readonly number[];
  Ls: readonly number[];
  /** Seeds base.seed … base.seed + seeds − 1. */
  seeds: number;
}

export interface SweepCell {
  K: number;
  L: number;
  seeds: number;
  /** Summed over the seeds. */
  counters: Counters;
  tokensPerSecond: Spread;
  /** Per seed, tokens/s over ar's on the same seed, timed next to it. */
  speedup: Spread;
  /** Per seed, 1 + A/steps. */
  meanAcceptanceLength: Spread;
  /** Target positions per step over the seeds, tree and batched. */
  positionsPerStep: PositionsPerStep | null;
}

const round = (value: number | null, digits = 4) => (value === null ? null : Number(value.toFixed(digits)));
const roundSpread = (spread: Spread, digits = 4) => ({ median: round(spread.median, digits), min: round(spread.min, digits), q1: round(spread.q1, digits), q3: round(spread.q3, digits), max: round(spread.max, digits), n: spread.n });

/** A cell as `npm run sweep -- --json` prints it and the app exports it. */
export function sweepCellJson(cell: SweepCell) {
  return {
    K: cell.K,
    L: cell.L,
    seeds: cell.seeds,
    ...counterFields(cell.counters, 4),
    tokens_per_second: round(cell.tokensPerSecond.median, 2),
    speedup: round(cell.speedup.median, 3),
    scoring_path: cell.positionsPerStep?.path ?? null,
    positions_per_step: round(cell.positionsPerStep?.mean ?? null, 2),
    batched_positions_per_step: round(cell.positionsPerStep?.batched ?? null, 2),
    spread: { tokens_per_second: roundSpread(cell.tokensPerSecond, 2), speedup: roundSpread(cell.speedup, 3), mean_acceptance_length: roundSpread(cell.meanAcceptanceLength) },
  };
}

/** The same cells as CSV, one row per cell, medians with min and max. */
export function sweepCsv(cells: readonly SweepCell[]): string {
  const header = ['K', 'L', 'seeds', 'mean_acceptance_length', 'conditional_acceptance', 'draft_yield', 'grammar_survival', 'tokens_per_second', 'tokens_per_second_min', 'tokens_per_second_max', 'speedup', 'speedup_min', 'speedup_max', 'scoring_path', 'positions_per_step', 'batched_positions_per_step', 'R', 'I', 'D', 'A', 'steps'];
  const rows = cells.map((cell) => {
    const json = sweepCellJson(cell);
    return [json.K, json.L, json.seeds, json.mean_acceptance_length, json.conditional_acceptance, json.draft_yield, json.grammar_survival, json.tokens_per_second, json.spread.tokens_per_second.min, json.spread.tokens_per_second.max, json.speedup, json.spread.speedup.min, json.spread.speedup.max, json.scoring_path, json.positions_per_step, json.batched_positions_per_step, json.R, json.I, json.D, json.A, json.steps];
  });
  return `${[header, ...rows].map((row) => row.map((value) => (value === null ? '' : String(value))).join(',')).join('\n')}\n`;
}

export interface ScorecardSpec {
  presets: readonly SchemaPreset['id'][];
  seeds: number;
  /** Method, K, L, temperature, max tokens, drafting and first seed for every row. */
  base: Pick<RunParams, 'method' | 'K' | 'L' | 'temperature' | 'maxTokens' | 'drafting' | 'seed'>;
}

export interface ScorecardRow {
  preset: SchemaPreset['id'];
  constrained: boolean;
  method: DecodeMethod;
  K: number;
  L: number;
  temperature: number;
  seedFirst: number;
  seedLast: number;
  card: Scorecard;
  /** Outputs that did not parse as JSON (truncated ones not included). */
  parseErrors: number;
  counters: Counters;
  /** Summed per-phase milliseconds and generation time over the seeds. */
  draftMs: number;
  targetMs: number;
  maskMs: number;
  generationMs: number;
  tokens: number;
  tokensPerSecond: Spread;
  /** Per seed, generation milliseconds per emitted token. */
  interTokenMs: Spread;
}

/** A row as `npm run scorecard -- --json` prints it and the app exports it. */
export function scorecardRowJson(row: ScorecardRow) {
  const perStep = (ms: number) => (row.counters.steps === 0 ? null : round(ms / row.counters.steps, 3));
  return {
    preset: row.preset,
    constrained: row.constrained,
    method: row.method,
    K: row.K,
    L: row.L,
    temperature: row.temperature,
    seeds: `${row.seedFirst}..${row.seedLast}`,
    completions: row.card.completions,
    schema_valid_rate: round(schemaValidRate(row.card)),
    schema_valid: row.card.valid,
    parse_errors: row.parseErrors,
    schema_errors: row.card.invalid - row.parseErrors,
    truncated: row.card.truncated,
    dead_ends: row.card.deadEnds,
    ...counterFields(row.counters, 4),
    /** Steps that accepted the whole draft, so the target's token was a bonus, not a correction. */
    bonus_tokens: row.counters.histogram[row.counters.L] as number,
    draft_ms_per_step: perStep(row.draftMs),
    target_ms_per_step: perStep(row.targetMs),
    mask_ms_per_step: perStep(row.maskMs),
    tokens: row.tokens,
    tokens_per_second: round(row.tokensPerSecond.median, 2),
    inter_token_latency_ms: round(row.interTokenMs.median, 3),
    spread: { tokens_per_second: roundSpread(row.tokensPerSecond, 2), inter_token_latency_ms: roundSpread(row.interTokenMs, 3) },
  };
}

export function scorecardCsv(rows: readonly ScorecardRow[]): string {
  const objects = rows.map(scorecardRowJson);
  const keys = Object.keys(objects[0] ?? {}).filter((key) => key !== 'spread');
  const cell = (value: unknown) => (Array.isArray(value) ? value.join(' ') : value === null ? '' : String(value));
  return `${[keys.join(','), ...objects.map((object) => keys.map((key) => cell(object[key as keyof typeof object])).join(','))].join('\n')}\n`;
}

/** The figures a sweep's heatmaps show, each read from a cell the same way in the CLI and the app. */
export const SWEEP_METRICS = {
  meanAcceptanceLength: { title: 'Mean acceptance length 1 + A/steps', digits: 2, value: (cell: SweepCell) => derivedRatios(cell.counters).meanAcceptanceLength },
  speedup: { title: 'Speedup over AR (tokens/s, median per seed)', digits: 2, value: (cell: SweepCell) => cell.speedup.median },
  draftYield: { title: 'A/R draft yield', digits: 3, value: (cell: SweepCell) => derivedRatios(cell.counters).draftYield },
} as const;

export type SweepMetric = keyof typeof SWEEP_METRICS;

/** The cell with the highest value of `metric` (the first such, in sweep order), or null for no cells. */
export function bestCell(cells: readonly SweepCell[], metric: SweepMetric): SweepCell | null {
  let best: SweepCell | null = null;
  let bestValue = -Infinity;
  for (const cell of cells) {
    const value = SWEEP_METRICS[metric].value(cell);
    if (value !== null && value > bestValue) {
      best = cell;
      bestValue = value;
    }
  }
  return best;
}

/** A heatmap as a Markdown table: K down, L across, the best cell in bold. */
export function sweepMarkdown(cells: readonly SweepCell[], metric: SweepMetric): string {
  const { title, digits, value } = SWEEP_METRICS[metric];
  const Ks = [...new Set(cells.map((cell) => cell.K))];
  const Ls = [...new Set(cells.map((cell) => cell.L))];
  const best = bestCell(cells, metric);
  const lines = [`**${title}**`, '', `| K \\ L | ${Ls.join(' | ')} |`, `|---|${Ls.map(() => '---:').join('|')}|`];
  for (const K of Ks) {
    const row = Ls.map((L) => {
      const cell = cells.find((candidate) => candidate.K === K && candidate.L === L);
      const shown = cell ? (value(cell)?.toFixed(digits) ?? '—') : '';
      return cell === best ? `**${shown}**` : shown;
    });
    lines.push(`| ${K} | ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** A comma-separated list of K or L values ("1,2,3"), each checked against LIMITS; the CLI and the Sweep view both read it. */
export function parseSweepList(param: 'K' | 'L', text: string): number[] {
  const limit = LIMITS[param];
  const entries = text.split(',').map((entry) => entry.trim());
  if (text.trim() === '' || entries.some((entry) => entry === '')) throw new RangeError(`${limit.label}: give a comma-separated list such as 1,2,3`);
  const values = entries.map((entry) => {
    const value = Number(entry);
    if (!(Number.isInteger(value) && value >= limit.min && value <= limit.max)) throw new RangeError(`${limit.label}: ${JSON.stringify(entry)} is not an integer in ${limit.min}..${limit.max}`);
    return value;
  });
  return [...new Set(values)];
}
