/**
 * The engineer's bench, shared by the CLI (`npm run generate -- --method all`, `sweep`, `scorecard`) and the
 * app's worker: fair races, K × L sweeps and the structured-output scorecard. Each takes a `Runner` (one
 * decode with given parameters), so it is the same code over the Node engine and the browser's.
 * Counters are the decode's own (src/core/metrics.ts), summed; nothing here recounts a step.
 */
import { bootstrapInterval } from '../core/bootstrap';
import { DEFAULT_RACE_TOKEN_BUDGET, type RaceEntry, type RaceResult, type ScorecardRow, type ScorecardSpec, type SweepCell, type SweepSpec } from '../contract/bench';
import { isBaseline, presetParams, type DecodeMethod, type RunParams } from '../contract/runParams';
import { addScoringTotals, positionsPerStep, type OutputVerdict, type RunReport } from '../contract/runReport';
import { runFairly, speedupVerdict, spreadOf } from '../core/fairTiming';
import { addCounters, derivedRatios, emptyCounters, recordCompletion, EMPTY_SCORECARD } from '../core/metrics';
import { draftsUsed } from '../core/verify';
import { SCHEMA_PRESETS, type SchemaPreset } from '../contract/presets';
import { scoreOutput, type SchemaValidator } from '../grammar/score';

export type Runner = (params: RunParams) => Promise<RunReport>;

export interface BenchOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

// ── Races ────────────────────────────────────────────────────────────────────────────────────────────

/**
 * One timed sample of a method: runs on seeds seed, seed + 1, … until together they output at least
 * `tokenBudget` tokens, timed as their tokens over their summed generation time. A single ~30-token run is
 * over too fast for its tokens/s to mean anything; a budget makes every method do comparable work.
 */
async function budgetedSample(run: Runner, params: RunParams, tokenBudget: number, signal?: AbortSignal): Promise<{ first: RunReport; tokens: number; runs: number; tokensPerSecond: number }> {
  let tokens = 0;
  let ms = 0;
  let first: RunReport | null = null;
  let runs = 0;
  while (tokens < tokenBudget && runs < MAX_RUNS_PER_SAMPLE) {
    if (runs > 0) signal?.throwIfAborted();
    const report = await run({ ...params, seed: params.seed + runs });
    first ??= report;
    tokens += report.tokens.length;
    ms += report.generationMs;
    runs++;
  }
  return { first: first as RunReport, tokens, runs, tokensPerSecond: tokens / (ms / 1000) };
}

/** A sample never takes more runs than this, whatever the budget (a run always outputs at least one token). */
const MAX_RUNS_PER_SAMPLE = 200;

/**
 * Every method on the same prompt and seeds: warmed up, order rotated per round, each round's figure over a
 * budget of at least `tokenBudget` tokens, medians with spreads, and a verdict that says "within noise"
 * where a speedup's spread reaches 1×.
 */
export async function race(run: Runner, params: RunParams, methods: readonly DecodeMethod[], repeats: number, options: BenchOptions & { tokenBudget?: number } = {}): Promise<RaceResult> {
  const tokenBudget = options.tokenBudget ?? DEFAULT_RACE_TOKEN_BUDGET;
  if (!(Number.isInteger(tokenBudget) && tokenBudget >= 1)) throw new RangeError(`the token budget must be a positive integer, got ${tokenBudget}`);
  const samples = await runFairly(
    methods,
    repeats,
    async (method, timed) => (timed ? budgetedSample(run, { ...params, method }, tokenBudget, options.signal) : budgetedSample(run, { ...params, method }, 1)),
    options,
  );
  const arIndex = methods.indexOf('ar');
  const entries = methods.map((method, i): RaceEntry => {
    const own = samples[i] as Awaited<ReturnType<typeof budgetedSample>>[];
    const ar = arIndex === -1 ? null : (samples[arIndex] as typeof own);
    const speedup = ar ? spreadOf(own.map((sample, round) => sample.tokensPerSecond / (ar[round] as (typeof own)[number]).tokensPerSecond)) : null;
    return {
      method,
      report: (own[0] as (typeof own)[number]).first,
      tokensTimed: Math.min(...own.map((sample) => sample.tokens)),
      tokensPerSecond: spreadOf(own.map((sample) => sample.tokensPerSecond)),
      speedup,
      verdict: method === 'ar' || !speedup ? null : speedupVerdict(speedup),
    };
  });
  return { repeats, tokenBudget, entries };
}

// ── K × L sweeps ─────────────────────────────────────────────────────────────────────────────────────

export function isSingleDraft(method: DecodeMethod): boolean {
  return isBaseline(method) || draftsUsed(method, 2) === 1;
}

/** The (K, L) cells a sweep visits: single-draft methods read one draft, so they sweep L only. */
export function sweepCells(spec: Pick<SweepSpec, 'base' | 'Ks' | 'Ls'>): { K: number; L: number }[] {
  if (isBaseline(spec.base.method)) throw new RangeError(`${spec.base.method} drafts nothing: sweep a speculative method (ar and ar+jump-forward are the baselines of every cell)`);
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
      speedupInterval: bootstrapInterval(reports.map((pair) => pair.own.tokensPerSecond / pair.ar.tokensPerSecond)),
      meanAcceptanceLength: spreadOf(reports.map((pair) => derivedRatios(pair.own.counters).meanAcceptanceLength ?? 1)),
      positionsPerStep: positionsPerStep(reports.map((pair) => pair.own.scoring).reduce(addScoringTotals)),
    };
    results.push(cell);
    options.onCell?.(cell);
  }
  return results;
}

// ── The structured-output scorecard ──────────────────────────────────────────────────────────────────

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

