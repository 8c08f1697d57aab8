/**
 * The engineer's bench, shared by the CLI (`npm run generate -- --method all`, `sweep`, `scorecard`) and the
 * app's worker: fair races, K × L sweeps and the structured-output scorecard. Each takes a `Runner` (one
 * decode with given parameters), so it is the same code over the Node engine and the browser's.
 * Counters are the decode's own (src/core/metrics.ts), summed; nothing here recounts a step.
 */
import { runFairly, spreadOf, type Spread } from '../core/fairTiming';
import { addCounters, derivedRatios, emptyCounters, eligible, recordCompletion, schemaValidRate, EMPTY_SCORECARD, type Counters, type Scorecard } from '../core/metrics';
import { draftsUsed } from '../core/verify';
import { SCHEMA_PRESETS, type SchemaPreset } from '../grammar/presets';
import { scoreOutput, type OutputVerdict, type SchemaValidator } from '../grammar/score';
import type { DecodeMethod } from './decode';
import type { RunReport } from './engine';
import { presetParams, type RunParams } from './params';

export type Runner = (params: RunParams) => Promise<RunReport>;

export interface BenchOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

// ── Races ────────────────────────────────────────────────────────────────────────────────────────────

export interface RaceEntry {
  method: DecodeMethod;
  /** The first timed run (every round decodes the same tokens: same prompt and seed). */
  report: RunReport;
  tokensPerSecond: Spread;
  /** Per round, this method's tokens/s over ar's in the same round; null without ar in the race. */
  speedup: Spread | null;
}

export interface RaceResult {
  /** Timed rounds each figure rests on (after one untimed warm-up per method). */
  repeats: number;
  entries: RaceEntry[];
}

/** Every method on the same prompt and seed: warmed up, order rotated per round, medians with spreads. */
export async function race(run: Runner, params: RunParams, methods: readonly DecodeMethod[], repeats: number, options: BenchOptions = {}): Promise<RaceResult> {
  const reports = await runFairly(methods, repeats, (method) => run({ ...params, method }), options);
  const arIndex = methods.indexOf('ar');
  const entries = methods.map((method, i): RaceEntry => {
    const own = reports[i] as RunReport[];
    const ar = arIndex === -1 ? null : (reports[arIndex] as RunReport[]);
    return {
      method,
      report: own[0] as RunReport,
      tokensPerSecond: spreadOf(own.map((report) => report.tokensPerSecond)),
      speedup: ar ? spreadOf(own.map((report, round) => report.tokensPerSecond / (ar[round] as RunReport).tokensPerSecond)) : null,
    };
  });
  return { repeats, entries };
}

// ── K × L sweeps ─────────────────────────────────────────────────────────────────────────────────────

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
}

export function isSingleDraft(method: DecodeMethod): boolean {
  return method === 'ar' || draftsUsed(method, 2) === 1;
}

/** The (K, L) cells a sweep visits: single-draft methods read one draft, so they sweep L only. */
export function sweepCells(spec: Pick<SweepSpec, 'base' | 'Ks' | 'Ls'>): { K: number; L: number }[] {
  if (spec.base.method === 'ar') throw new RangeError('ar drafts nothing: sweep a speculative method (ar is the baseline of every cell)');
  const Ks = isSingleDraft(spec.base.method) ? [1] : [...new Set(spec.Ks)];
  return Ks.flatMap((K) => [...new Set(spec.Ls)].map((L) => ({ K, L })));
}

/**
 * Every cell against ar on the same seeds. ar and the method are warmed up once, untimed; within a cell,
 * ar and the method alternate which goes first from seed to seed.
 */
export async function sweep(run: Runner, spec: SweepSpec, options: BenchOptions & { onCell?: (cell: SweepCell) => void } = {}): Promise<SweepCell[]> {
  if (!(Number.isInteger(spec.seeds) && spec.seeds >= 1)) throw new RangeError(`seeds must be a positive integer, got ${spec.seeds}`);
  const cells = sweepCells(spec);
  const total = 2 + cells.length * 2 * spec.seeds;
  let done = 0;
  const tick = () => options.onProgress?.(++done, total);
  const first = cells[0] as { K: number; L: number };
  for (const method of ['ar', spec.base.method] as const) {
    options.signal?.throwIfAborted();
    await run({ ...spec.base, ...first, method });
    tick();
  }
  const results: SweepCell[] = [];
  for (const { K, L } of cells) {
    const reports: { ar: RunReport; own: RunReport }[] = [];
    for (let s = 0; s < spec.seeds; s++) {
      const params = { ...spec.base, K, L, seed: spec.base.seed + s };
      const order = s % 2 === 0 ? (['ar', 'own'] as const) : (['own', 'ar'] as const);
      const pair: Partial<Record<'ar' | 'own', RunReport>> = {};
      for (const which of order) {
        options.signal?.throwIfAborted();
        pair[which] = await run(which === 'ar' ? { ...params, method: 'ar' } : params);
        tick();
      }
      reports.push(pair as { ar: RunReport; own: RunReport });
    }
    const cell: SweepCell = {
      K,
      L,
      seeds: spec.seeds,
      counters: reports.map((pair) => pair.own.counters).reduce(addCounters),
      tokensPerSecond: spreadOf(reports.map((pair) => pair.own.tokensPerSecond)),
      speedup: spreadOf(reports.map((pair) => pair.own.tokensPerSecond / pair.ar.tokensPerSecond)),
      meanAcceptanceLength: spreadOf(reports.map((pair) => derivedRatios(pair.own.counters).meanAcceptanceLength ?? 1)),
    };
    results.push(cell);
    options.onCell?.(cell);
  }
  return results;
}

const round = (value: number | null, digits = 4) => (value === null ? null : Number(value.toFixed(digits)));
const roundSpread = (spread: Spread, digits = 4) => ({ median: round(spread.median, digits), min: round(spread.min, digits), q1: round(spread.q1, digits), q3: round(spread.q3, digits), max: round(spread.max, digits), n: spread.n });

/** A cell as `npm run sweep -- --json` prints it and the app exports it. */
export function sweepCellJson(cell: SweepCell) {
  const ratios = derivedRatios(cell.counters);
  return {
    K: cell.K,
    L: cell.L,
    seeds: cell.seeds,
    mean_acceptance_length: round(ratios.meanAcceptanceLength),
    conditional_acceptance: round(ratios.conditionalAcceptance),
    draft_yield: round(ratios.draftYield),
    grammar_survival: round(ratios.grammarSurvival),
    tokens_per_second: round(cell.tokensPerSecond.median, 2),
    speedup: round(cell.speedup.median, 3),
    spread: { tokens_per_second: roundSpread(cell.tokensPerSecond, 2), speedup: roundSpread(cell.speedup, 3), mean_acceptance_length: roundSpread(cell.meanAcceptanceLength) },
    R: cell.counters.raw,
    I: cell.counters.invalidated,
    D: eligible(cell.counters),
    A: cell.counters.accepted,
    steps: cell.counters.steps,
    acceptance_histogram: [...cell.counters.histogram],
  };
}

/** The same cells as CSV, one row per cell, medians with min and max. */
export function sweepCsv(cells: readonly SweepCell[]): string {
  const header = ['K', 'L', 'seeds', 'mean_acceptance_length', 'conditional_acceptance', 'draft_yield', 'grammar_survival', 'tokens_per_second', 'tokens_per_second_min', 'tokens_per_second_max', 'speedup', 'speedup_min', 'speedup_max', 'R', 'I', 'D', 'A', 'steps'];
  const rows = cells.map((cell) => {
    const json = sweepCellJson(cell);
    return [json.K, json.L, json.seeds, json.mean_acceptance_length, json.conditional_acceptance, json.draft_yield, json.grammar_survival, json.tokens_per_second, json.spread.tokens_per_second.min, json.spread.tokens_per_second.max, json.speedup, json.spread.speedup.min, json.spread.speedup.max, json.R, json.I, json.D, json.A, json.steps];
  });
  return `${[header, ...rows].map((row) => row.map((value) => (value === null ? '' : String(value))).join(',')).join('\n')}\n`;
}

// ── The structured-output scorecard ──────────────────────────────────────────────────────────────────

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

/**
 * How one output fared, and its JSON text. With the schema on, the decode judged it; without, its JSON is
 * the output after the trigger (when the preset has one), judged here by the same rules.
 */
function judge(validate: SchemaValidator, preset: SchemaPreset, report: RunReport, constrained: boolean): { verdict: OutputVerdict; json: string | null } {
  if (constrained) return { verdict: report.verdict as OutputVerdict, json: report.json };
  const at = preset.trigger === undefined ? 0 : report.text.indexOf(preset.trigger);
  const ending = report.ending === 'stopped' ? 'stopped' : 'max-tokens';
  if (at === -1) return { verdict: { kind: ending === 'stopped' ? 'invalid' : 'truncated', reason: `the trigger ${JSON.stringify(preset.trigger)} never appeared` }, json: null };
  const json = report.text.slice(at + (preset.trigger?.length ?? 0)).trim();
  return { verdict: scoreOutput(validate, preset.schema, json, ending), json };
}

/** An invalid output whose text is not JSON at all (rather than JSON the schema rejects). */
function isParseError(verdict: OutputVerdict, json: string | null): boolean {
  if (verdict.kind !== 'invalid') return false;
  if (json === null) return true;
  try {
    JSON.parse(json);
    return false;
  } catch {
    return true;
  }
}

/**
 * One row per preset and constraint state: schema on, and the same prompt decoded with no schema (every
 * preset is an object schema a free decode may or may not meet). Validity is judged by `validate` (ajv
 * in Node) against the full schema, independently of the grammar.
 */
export async function scorecard(run: Runner, validate: SchemaValidator, spec: ScorecardSpec, options: BenchOptions = {}): Promise<ScorecardRow[]> {
  if (!(Number.isInteger(spec.seeds) && spec.seeds >= 1)) throw new RangeError(`seeds must be a positive integer, got ${spec.seeds}`);
  const presets = spec.presets.map((id) => {
    const preset = SCHEMA_PRESETS.find((candidate) => candidate.id === id);
    if (!preset) throw new RangeError(`unknown preset ${JSON.stringify(id)}; the presets are ${SCHEMA_PRESETS.map((p) => p.id).join(', ')}`);
    return preset;
  });
  const total = 1 + presets.length * 2 * spec.seeds;
  let done = 0;
  const runCounted = async (params: RunParams) => {
    options.signal?.throwIfAborted();
    const report = await run(params);
    options.onProgress?.(++done, total);
    return report;
  };
  // One untimed warm-up, so that the first row does not pay the cold start.
  await runCounted(presetParams(presets[0] as SchemaPreset, spec.base));
  const rows: ScorecardRow[] = [];
  for (const preset of presets) {
    const states = [true, false].map((constrained) => ({
      constrained,
      params: presetParams(preset, { ...spec.base, ...(constrained ? {} : { schemaText: null }) }),
      card: EMPTY_SCORECARD,
      parseErrors: 0,
      counters: emptyCounters(spec.base.L),
      totals: { draftMs: 0, targetMs: 0, maskMs: 0, generationMs: 0, tokens: 0 },
      perSeed: [] as { tokensPerSecond: number; interTokenMs: number }[],
    }));
    for (let s = 0; s < spec.seeds; s++) {
      // The schema on and off take turns going first, seed by seed.
      for (const state of s % 2 === 0 ? states : [...states].reverse()) {
        const report = await runCounted({ ...state.params, seed: spec.base.seed + s });
        const { verdict, json } = judge(validate, preset, report, state.constrained);
        state.card = recordCompletion(state.card, verdict.kind);
        if (isParseError(verdict, json)) state.parseErrors++;
        state.counters = addCounters(state.counters, report.counters);
        state.totals.draftMs += report.timings.draft;
        state.totals.targetMs += report.timings.target;
        state.totals.maskMs += report.timings.mask;
        state.totals.generationMs += report.generationMs;
        state.totals.tokens += report.tokens.length;
        state.perSeed.push({ tokensPerSecond: report.tokensPerSecond, interTokenMs: report.generationMs / Math.max(1, report.tokens.length) });
      }
    }
    for (const state of states) {
      rows.push({
        preset: preset.id,
        constrained: state.constrained,
        method: spec.base.method,
        K: spec.base.K,
        L: spec.base.L,
        temperature: spec.base.temperature,
        seedFirst: spec.base.seed,
        seedLast: spec.base.seed + spec.seeds - 1,
        card: state.card,
        parseErrors: state.parseErrors,
        counters: state.counters,
        ...state.totals,
        tokensPerSecond: spreadOf(state.perSeed.map((seed) => seed.tokensPerSecond)),
        interTokenMs: spreadOf(state.perSeed.map((seed) => seed.interTokenMs)),
      });
    }
  }
  return rows;
}

/** A row as `npm run scorecard -- --json` prints it and the app exports it. */
export function scorecardRowJson(row: ScorecardRow) {
  const ratios = derivedRatios(row.counters);
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
    R: row.counters.raw,
    I: row.counters.invalidated,
    D: eligible(row.counters),
    A: row.counters.accepted,
    steps: row.counters.steps,
    acceptance_histogram: [...row.counters.histogram],
    /** Steps that accepted the whole draft, so the target's token was a bonus, not a correction. */
    bonus_tokens: row.counters.histogram[row.counters.L] as number,
    grammar_survival: round(ratios.grammarSurvival),
    conditional_acceptance: round(ratios.conditionalAcceptance),
    draft_yield: round(ratios.draftYield),
    mean_acceptance_length: round(ratios.meanAcceptanceLength),
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
