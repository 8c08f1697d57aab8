/**
 * The engineer's bench records (races, K × L sweep cells, scorecard rows) as they cross the worker
 * boundary, and their export formats: the CLI prints and the app exports the same JSON and CSV.
 */
import { contains, overlap, type Interval } from '../core/bootstrap';
import type { Spread } from '../core/fairTiming';
import { VERDICT_TEXT, verdictOf, type Verdict } from '../core/verdict';
import { LIMITS } from './limits';
import { counterFields, derivedRatios, schemaValidRate, type Counters, type Scorecard } from '../core/metrics';
import type { SchemaPreset } from './presets';
import type { DecodeMethod, RunParams } from './runParams';
import type { PositionsPerStep, RunReport } from './runReport';

/** A race times at least this many tokens per method per round (several seeds' runs if need be). */
export const DEFAULT_RACE_TOKEN_BUDGET = 300;

/** The CLI's sweep and scorecard run each sample until both sides have output this many tokens (the app's views: one run per sample). */
export const DEFAULT_SAMPLE_TOKEN_BUDGET = 96;

export interface RaceEntry {
  method: DecodeMethod;
  /** The first timed run, on the race's seed: its text and its own counters (a record of its own, not the timed rounds'). */
  report: RunReport;
  /** Every timed run of every round, summed: the runs `tokensPerSecond` is measured over, with their counters. */
  timed: { runs: number; tokens: number; forwards: number; generationMs: number; counters: Counters };
  /** The fewest tokens one round of this method was timed over (at least the race's budget). */
  tokensTimed: number;
  tokensPerSecond: Spread;
  /** Per round, this method's tokens/s over ar's in the same round; null without ar in the race. */
  speedup: Spread | null;
  /** The median speedup's 95% bootstrap interval over the rounds (null for ar itself or without ar). */
  speedupInterval: Interval | null;
  /** The shared verdict rule (src/core/verdict.ts) against ar over the rounds (null for ar itself or without ar). */
  verdict: Verdict | null;
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
  /** Samples per cell (the bootstrap's units), each on its own successive seeds from base.seed. */
  seeds: number;
  /** Each sample runs seeds until ar and the method have each output at least this many tokens (1 by default: one run each). */
  tokenBudget?: number;
}

export interface SweepCell {
  K: number;
  L: number;
  /** Samples, each run to the token budget. */
  seeds: number;
  /** The method's runs over every sample (at least one per sample) and the tokens they output. */
  runs: number;
  tokens: number;
  /** Summed over every run. */
  counters: Counters;
  tokensPerSecond: Spread;
  /** Per sample, tokens/s over ar's on the same seeds, timed next to it. */
  speedup: Spread;
  /** The median speedup's 95% bootstrap interval over the samples (src/core/bootstrap.ts). */
  speedupInterval: Interval;
  /** Per sample, 1 + A/steps. */
  meanAcceptanceLength: Spread;
  /** Target positions per step over the seeds, tree and batched. */
  positionsPerStep: PositionsPerStep | null;
}

const round = (value: number | null, digits = 4) => (value === null ? null : Number(value.toFixed(digits)));
const roundSpread = (spread: Spread, digits = 4) => ({
  median: round(spread.median, digits),
  min: round(spread.min, digits),
  q1: round(spread.q1, digits),
  q3: round(spread.q3, digits),
  max: round(spread.max, digits),
  n: spread.n,
});

/** A 95% interval in the JSON: {low, high}. */
export const intervalJson = (interval: Interval, digits: number) => ({
  low: round(interval.low, digits),
  high: round(interval.high, digits),
});

/** A cell as `npm run sweep -- --json` prints it and the app exports it. */
export function sweepCellJson(cell: SweepCell) {
  return {
    K: cell.K,
    L: cell.L,
    seeds: cell.seeds,
    runs: cell.runs,
    tokens: cell.tokens,
    ...counterFields(cell.counters, 4),
    tokens_per_second: round(cell.tokensPerSecond.median, 2),
    speedup: round(cell.speedup.median, 3),
    scoring_path: cell.positionsPerStep?.path ?? null,
    positions_per_step: round(cell.positionsPerStep?.mean ?? null, 2),
    batched_positions_per_step: round(cell.positionsPerStep?.batched ?? null, 2),
    speedup_ci95: intervalJson(cell.speedupInterval, 3),
    /** The interval holds 1.0: this cell cannot be told from ar on these seeds. */
    speedup_within_noise_of_ar: contains(cell.speedupInterval, 1),
    /** The shared verdict rule (src/core/verdict.ts) against ar: faster, slower, within noise or too few samples. */
    speedup_verdict: verdictOf(cell.speedupInterval),
    spread: {
      tokens_per_second: roundSpread(cell.tokensPerSecond, 2),
      speedup: roundSpread(cell.speedup, 3),
      mean_acceptance_length: roundSpread(cell.meanAcceptanceLength),
    },
  };
}

/** The same cells as CSV, one row per cell, medians with min and max. */
export function sweepCsv(cells: readonly SweepCell[]): string {
  const header = [
    'K',
    'L',
    'seeds',
    'runs',
    'tokens',
    'mean_acceptance_length',
    'conditional_acceptance',
    'draft_yield',
    'grammar_survival',
    'tokens_per_second',
    'tokens_per_second_min',
    'tokens_per_second_max',
    'speedup',
    'speedup_min',
    'speedup_max',
    'speedup_ci95_low',
    'speedup_ci95_high',
    'speedup_within_noise_of_ar',
    'scoring_path',
    'positions_per_step',
    'batched_positions_per_step',
    'R',
    'I',
    'D',
    'A',
    'steps',
  ];
  const rows = cells.map((cell) => {
    const json = sweepCellJson(cell);
    return [
      json.K,
      json.L,
      json.seeds,
      json.runs,
      json.tokens,
      json.mean_acceptance_length,
      json.conditional_acceptance,
      json.draft_yield,
      json.grammar_survival,
      json.tokens_per_second,
      json.spread.tokens_per_second.min,
      json.spread.tokens_per_second.max,
      json.speedup,
      json.spread.speedup.min,
      json.spread.speedup.max,
      json.speedup_ci95.low,
      json.speedup_ci95.high,
      json.speedup_within_noise_of_ar,
      json.scoring_path,
      json.positions_per_step,
      json.batched_positions_per_step,
      json.R,
      json.I,
      json.D,
      json.A,
      json.steps,
    ];
  });
  return `${[header, ...rows].map((row) => row.map((value) => (value === null ? '' : String(value))).join(',')).join('\n')}\n`;
}

export interface ScorecardSpec {
  presets: readonly SchemaPreset['id'][];
  /** Samples per preset (the bootstrap's units), each on its own successive seeds from base.seed. */
  seeds: number;
  /** Each sample runs seeds until the schema-on and schema-off decodes have each output this many tokens (1 by default: one run each). */
  tokenBudget?: number;
  /** Method, K, L, temperature, max tokens, drafting, drafter and first seed for every row. */
  base: Pick<RunParams, 'method' | 'K' | 'L' | 'temperature' | 'maxTokens' | 'drafting' | 'seed' | 'drafter'>;
}

/** A scorecard row's figures, whatever its workload (a preset, or a case of a case file). */
export interface ScorecardFigures {
  constrained: boolean;
  method: DecodeMethod;
  K: number;
  L: number;
  temperature: number;
  seedFirst: number;
  seedLast: number;
  /** Samples (each run to the token budget) behind the tokens/s figures. */
  samples: number;
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
  /** Per sample. */
  tokensPerSecond: Spread;
  /** The median tokens/s's 95% bootstrap interval over the samples. */
  tokensPerSecondInterval: Interval;
  /** On the schema-on row: per sample, its tokens/s over the schema-off decode's on the same seeds, and that median's interval; null on the schema-off row. */
  overFree: { spread: Spread; interval: Interval } | null;
  /** Per sample, generation milliseconds per emitted token. */
  interTokenMs: Spread;
}

export interface ScorecardRow extends ScorecardFigures {
  preset: SchemaPreset['id'];
}

/** A row of `scorecard --cases`: one case of a case file (tools/cli/cases.ts), named by its bucket and line. */
export interface CaseScorecardRow extends ScorecardFigures {
  bucket: string;
  /** 1-based line of the case in its file. */
  caseLine: number;
}

/** A row as `npm run scorecard -- --json` prints it and the app exports it. */
export function scorecardRowJson(row: ScorecardRow) {
  return { preset: row.preset, ...scorecardFiguresJson(row) };
}

/** A case's row as `npm run scorecard -- --cases FILE --json` prints it: its bucket and line, then the same figures as a preset's row. */
export function caseScorecardRowJson(row: CaseScorecardRow) {
  return { bucket: row.bucket, case_line: row.caseLine, ...scorecardFiguresJson(row) };
}

/** A row's figures as the JSON prints them, whatever names the row. */
export type ScorecardFiguresJson = ReturnType<typeof scorecardFiguresJson>;

function scorecardFiguresJson(row: ScorecardFigures) {
  const perStep = (ms: number) => (row.counters.steps === 0 ? null : round(ms / row.counters.steps, 3));
  return {
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
    samples: row.samples,
    tokens_per_second: round(row.tokensPerSecond.median, 2),
    tokens_per_second_ci95: intervalJson(row.tokensPerSecondInterval, 2),
    /** Schema-on tokens/s over schema-off on the same seeds (null on the schema-off row), its interval, and whether that holds 1.0. */
    speedup_over_free: row.overFree === null ? null : round(row.overFree.spread.median, 3),
    speedup_over_free_ci95: row.overFree === null ? null : intervalJson(row.overFree.interval, 3),
    speedup_over_free_within_noise: row.overFree === null ? null : contains(row.overFree.interval, 1),
    speedup_over_free_verdict: row.overFree === null ? null : verdictOf(row.overFree.interval),
    inter_token_latency_ms: round(row.interTokenMs.median, 3),
    spread: {
      tokens_per_second: roundSpread(row.tokensPerSecond, 2),
      inter_token_latency_ms: roundSpread(row.interTokenMs, 3),
    },
  };
}

/**
 * The rows as CSV: every scalar JSON field (a list as its items separated by spaces), an interval (`…_ci95`)
 * as two columns `…_ci95_low` and `…_ci95_high`; nested objects (the spreads, the by-source counters) stay in the JSON.
 * A case's rows start with bucket and case_line where a preset's start with preset.
 */
export function scorecardCsv(rows: readonly (ScorecardRow | CaseScorecardRow)[]): string {
  const objects = rows.map((row) => {
    return Object.fromEntries(
      Object.entries('preset' in row ? scorecardRowJson(row) : caseScorecardRowJson(row)).flatMap(
        ([key, value]): [string, unknown][] => {
          if (!key.endsWith('_ci95'))
            return value !== null && typeof value === 'object' && !Array.isArray(value) ? [] : [[key, value]];
          const interval = value as { low: number | null; high: number | null } | null;
          return [
            [`${key}_low`, interval?.low ?? null],
            [`${key}_high`, interval?.high ?? null],
          ];
        },
      ),
    );
  });
  const keys = Object.keys(objects[0] ?? {});
  const cell = (value: unknown) => (Array.isArray(value) ? value.join(' ') : value === null ? '' : String(value));
  return `${[keys.join(','), ...objects.map((object) => keys.map((key) => cell(object[key])).join(','))].join('\n')}\n`;
}

/** The figures a sweep's heatmaps show, each read from a cell the same way in the CLI and the app. */
export const SWEEP_METRICS = {
  meanAcceptanceLength: {
    title: 'Mean acceptance length 1 + A/steps',
    digits: 2,
    value: (cell: SweepCell) => derivedRatios(cell.counters).meanAcceptanceLength,
  },
  speedup: {
    title: 'Speedup over AR (tokens/s, median over samples)',
    digits: 2,
    value: (cell: SweepCell) => cell.speedup.median,
  },
  draftYield: {
    title: 'A/R draft yield',
    digits: 3,
    value: (cell: SweepCell) => derivedRatios(cell.counters).draftYield,
  },
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
  const speedup = metric === 'speedup';
  // A speedup's best cell is bold only when its interval overlaps no other cell's: otherwise the ranking is noise.
  const bold = best !== null && (!speedup || distinguishableBest(cells, best));
  const lines = [
    `**${title}${speedup ? ', [95% bootstrap interval over samples]' : ''}**`,
    '',
    `| K \\ L | ${Ls.join(' | ')} |`,
    `|---|${Ls.map(() => '---:').join('|')}|`,
  ];
  for (const K of Ks) {
    const row = Ls.map((L) => {
      const cell = cells.find((candidate) => candidate.K === K && candidate.L === L);
      if (!cell) return '';
      let shown = value(cell)?.toFixed(digits) ?? '—';
      if (speedup)
        shown += ` [${cell.speedupInterval.low.toFixed(digits)}–${cell.speedupInterval.high.toFixed(digits)}]${noiseMark(cell, best)}`;
      return cell === best && bold ? `**${shown}**` : shown;
    });
    lines.push(`| ${K} | ${row.join(' | ')} |`);
  }
  if (speedup)
    lines.push(
      '',
      `≈ ar: the interval holds 1.0, no faster than ar on these samples; ${VERDICT_TEXT['too few samples']}: no verdict from so few; ≈ best: it overlaps the best cell's interval. ${bold ? 'Bold: the best cell, distinguishable from every other.' : 'No cell is bold: the best cannot be told from the others on these samples (more samples, --seeds, or a larger --token-budget narrow the intervals).'}`,
    );
  return lines.join('\n');
}

/** The best speedup cell stands out when its interval overlaps no other cell's. */
export function distinguishableBest(cells: readonly SweepCell[], best: SweepCell): boolean {
  return cells.every((cell) => cell === best || !overlap(cell.speedupInterval, best.speedupInterval));
}

/** ' ≈ ar' where a cell's speedup interval holds 1.0, ' ≈ best' where it overlaps the best cell's; '' otherwise. */
export function noiseMark(cell: SweepCell, best: SweepCell | null): string {
  const marks = [];
  const verdict = verdictOf(cell.speedupInterval);
  if (verdict === 'too few samples') marks.push(VERDICT_TEXT[verdict]);
  else if (contains(cell.speedupInterval, 1)) marks.push('≈ ar');
  if (best !== null && cell !== best && overlap(cell.speedupInterval, best.speedupInterval)) marks.push('≈ best');
  return marks.length === 0 ? '' : ` ${marks.join(', ')}`;
}

/** A comma-separated list of K or L values ("1,2,3"), each checked against LIMITS; the CLI and the Sweep view both read it. */
export function parseSweepList(param: 'K' | 'L', text: string): number[] {
  const limit = LIMITS[param];
  const entries = text.split(',').map((entry) => entry.trim());
  if (text.trim() === '' || entries.some((entry) => entry === ''))
    throw new RangeError(`${limit.label}: give a comma-separated list such as 1,2,3`);
  const values = entries.map((entry) => {
    const value = Number(entry);
    if (!(Number.isInteger(value) && value >= limit.min && value <= limit.max))
      throw new RangeError(`${limit.label}: ${JSON.stringify(entry)} is not an integer in ${limit.min}..${limit.max}`);
    return value;
  });
  return [...new Set(values)];
}
