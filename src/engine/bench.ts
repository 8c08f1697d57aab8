/**
 * The engineer's bench, shared by the CLI (`npm run generate -- --method all`, `sweep`, `scorecard`) and the
 * app's worker: fair races, K × L sweeps and the structured-output scorecard. Each takes a `Runner` (one
 * decode with given parameters), so it is the same code over the Node engine and the browser's.
 * Counters are the decode's own (src/core/metrics.ts), summed; nothing here recounts a step.
 */
import { bootstrapInterval } from '../core/bootstrap';
import {
  DEFAULT_RACE_TOKEN_BUDGET,
  type CaseScorecardRow,
  type RaceEntry,
  type RaceResult,
  type ScorecardFigures,
  type ScorecardRow,
  type ScorecardSpec,
  type SweepCell,
  type SweepSpec,
} from '../contract/bench';
import { isBaseline, presetParams, type DecodeMethod, type RunParams } from '../contract/runParams';
import { addScoringTotals, positionsPerStep, type OutputVerdict, type RunReport } from '../contract/runReport';
import { runFairly, spreadOf } from '../core/fairTiming';
import { compareRatios } from '../core/verdict';
import { addCounters, derivedRatios, emptyCounters, recordCompletion, EMPTY_SCORECARD } from '../core/metrics';
import { draftsUsed } from '../core/verify';
import { SCHEMA_PRESETS } from '../contract/presets';
import { scoreOutput, type SchemaValidator } from '../grammar/score';

export type Runner = (params: RunParams) => Promise<RunReport>;

export interface BenchOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** A sample never takes more runs than this, whatever the budget (a run always outputs at least one token). */
const MAX_RUNS_PER_SAMPLE = 200;

/** Contenders' timed work on the same seeds: summed tokens and their tokens/s over summed generation time, and every report. */
export interface BudgetedSample<T extends string> {
  reports: Record<T, RunReport[]>;
  tokens: Record<T, number>;
  tokensPerSecond: Record<T, number>;
  /** The seeds this sample used: first … first + runs − 1. */
  runs: number;
}

/**
 * One timed sample of one or more contenders on the same seeds: each runs on seed, seed + 1, … (in `order`
 * on even seeds and in reverse on odd ones, so that none always goes first) until each has output at least
 * `tokenBudget` tokens. A single ~30-token run is over too fast for its tokens/s to mean anything; a budget
 * makes every contender do comparable work. With a budget of 1 a sample is one run of each. `onRun` is told
 * of every run as it ends.
 */
export async function budgetedSample<T extends string>(
  run: Runner,
  contenders: Readonly<Record<T, RunParams>>,
  order: readonly T[],
  seed: number,
  tokenBudget: number,
  options: { signal?: AbortSignal | undefined; onRun?: () => void } = {},
): Promise<BudgetedSample<T>> {
  const reports = Object.fromEntries(order.map((which) => [which, []])) as unknown as Record<T, RunReport[]>;
  const tokens = (which: T) => reports[which].reduce((sum, report) => sum + report.tokens.length, 0);
  let runs = 0;
  while ((runs === 0 || order.some((which) => tokens(which) < tokenBudget)) && runs < MAX_RUNS_PER_SAMPLE) {
    for (const which of runs % 2 === 0 ? order : [...order].reverse()) {
      options.signal?.throwIfAborted();
      reports[which].push(await run({ ...contenders[which], seed: seed + runs }));
      options.onRun?.();
    }
    runs++;
  }
  const each = <V>(value: (which: T) => V) =>
    Object.fromEntries(order.map((which) => [which, value(which)])) as Record<T, V>;
  const ms = (which: T) => reports[which].reduce((sum, report) => sum + report.generationMs, 0);
  return { reports, tokens: each(tokens), tokensPerSecond: each((which) => tokens(which) / (ms(which) / 1000)), runs };
}

// ── Races ────────────────────────────────────────────────────────────────────────────────────────────

/** The runs a race entry's speed was timed over, counted: the same runs its tokens/s come from. */
function timedTotals(reports: readonly RunReport[]): RaceEntry['timed'] {
  return {
    runs: reports.length,
    tokens: reports.reduce((sum, report) => sum + report.tokens.length, 0),
    forwards: reports.reduce((sum, report) => sum + report.steps, 0),
    generationMs: reports.reduce((sum, report) => sum + report.generationMs, 0),
    counters: reports.map((report) => report.counters).reduce(addCounters),
  };
}

/**
 * Every method on the same prompt and seeds: warmed up, order rotated per round, each round's figure over a
 * budget of at least `tokenBudget` tokens, medians with spreads, and each method's verdict against ar by
 * the shared rule (src/core/verdict.ts) over its rounds, each round a pair on the same seeds.
 */
export async function race(
  run: Runner,
  params: RunParams,
  methods: readonly DecodeMethod[],
  repeats: number,
  options: BenchOptions & { tokenBudget?: number } = {},
): Promise<RaceResult> {
  const tokenBudget = options.tokenBudget ?? DEFAULT_RACE_TOKEN_BUDGET;
  if (!(Number.isInteger(tokenBudget) && tokenBudget >= 1))
    throw new RangeError(`the token budget must be a positive integer, got ${tokenBudget}`);
  const samples = await runFairly(
    methods,
    repeats,
    (method, timed) =>
      budgetedSample(run, { own: { ...params, method } }, ['own'], params.seed, timed ? tokenBudget : 1, {
        signal: options.signal,
      }),
    options,
  );
  const arIndex = methods.indexOf('ar');
  const entries = methods.map((method, i): RaceEntry => {
    const own = samples[i] as BudgetedSample<'own'>[];
    const ar = arIndex === -1 ? null : (samples[arIndex] as typeof own);
    // Each round's ratio pairs the method with ar on the same seeds in the same round.
    const ratios = ar
      ? own.map((sample, round) => sample.tokensPerSecond.own / (ar[round] as (typeof own)[number]).tokensPerSecond.own)
      : null;
    const comparison = ratios && method !== 'ar' ? compareRatios(ratios) : null;
    return {
      method,
      report: (own[0] as (typeof own)[number]).reports.own[0] as RunReport,
      timed: timedTotals(own.flatMap((sample) => sample.reports.own)),
      tokensTimed: Math.min(...own.map((sample) => sample.tokens.own)),
      tokensPerSecond: spreadOf(own.map((sample) => sample.tokensPerSecond.own)),
      speedup: ratios && spreadOf(ratios),
      speedupInterval: comparison?.interval ?? null,
      verdict: comparison?.verdict ?? null,
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
  if (isBaseline(spec.base.method))
    throw new RangeError(
      `${spec.base.method} drafts nothing: sweep a speculative method (ar and ar+jump-forward are the baselines of every cell)`,
    );
  const Ks = isSingleDraft(spec.base.method) ? [1] : [...new Set(spec.Ks)];
  return Ks.flatMap((K) => [...new Set(spec.Ls)].map((L) => ({ K, L })));
}

/**
 * Progress of a budgeted bench in runs: `warmUps` single runs, then `samples` paired samples whose run count
 * is known only as each ends, so the total is estimated from the samples so far (one pair each at first).
 */
function budgetProgress(warmUps: number, samples: number, onProgress?: (done: number, total: number) => void) {
  let done = 0;
  let samplesDone = 0;
  let pairRuns = 0;
  const estimate = () =>
    warmUps + 2 * (pairRuns + (samples - samplesDone) * (samplesDone === 0 ? 1 : pairRuns / samplesDone));
  const report = () => onProgress?.(done, Math.max(done, Math.round(estimate())));
  return {
    tick: () => {
      done++;
      report();
    },
    sampleEnded: (runs: number) => {
      samplesDone++;
      pairRuns += runs;
      report();
    },
  };
}

/**
 * Every cell against ar on the same seeds. ar and the method are warmed up once, untimed; a cell takes
 * `spec.seeds` samples, each run to the token budget on successive seeds (budgetedSample), ar and the method
 * alternating which goes first. Progress counts runs against the fewest the sweep can take.
 */
export async function sweep(
  run: Runner,
  spec: SweepSpec,
  options: BenchOptions & { onCell?: (cell: SweepCell) => void } = {},
): Promise<SweepCell[]> {
  if (!(Number.isInteger(spec.seeds) && spec.seeds >= 1))
    throw new RangeError(`seeds must be a positive integer, got ${spec.seeds}`);
  const tokenBudget = spec.tokenBudget ?? 1;
  if (!(Number.isInteger(tokenBudget) && tokenBudget >= 1))
    throw new RangeError(`the token budget must be a positive integer, got ${tokenBudget}`);
  const cells = sweepCells(spec);
  const { tick, sampleEnded } = budgetProgress(2, cells.length * spec.seeds, options.onProgress);
  const first = cells[0] as { K: number; L: number };
  for (const method of ['ar', spec.base.method] as const) {
    options.signal?.throwIfAborted();
    await run({ ...spec.base, ...first, method });
    tick();
  }
  const results: SweepCell[] = [];
  for (const { K, L } of cells) {
    const samples: BudgetedSample<'ar' | 'own'>[] = [];
    let seed = spec.base.seed;
    for (let s = 0; s < spec.seeds; s++) {
      const params = { ...spec.base, K, L };
      const sample = await budgetedSample(
        run,
        { ar: { ...params, method: 'ar' }, own: params },
        s % 2 === 0 ? ['ar', 'own'] : ['own', 'ar'],
        seed,
        tokenBudget,
        { signal: options.signal, onRun: tick },
      );
      seed += sample.runs;
      samples.push(sample);
      sampleEnded(sample.runs);
    }
    const own = samples.flatMap((sample) => sample.reports.own);
    const speedups = samples.map((sample) => sample.tokensPerSecond.own / sample.tokensPerSecond.ar);
    const cell: SweepCell = {
      K,
      L,
      seeds: spec.seeds,
      runs: own.length,
      tokens: own.reduce((sum, report) => sum + report.tokens.length, 0),
      counters: own.map((report) => report.counters).reduce(addCounters),
      tokensPerSecond: spreadOf(samples.map((sample) => sample.tokensPerSecond.own)),
      speedup: spreadOf(speedups),
      speedupInterval: bootstrapInterval(speedups),
      meanAcceptanceLength: spreadOf(
        samples.map(
          (sample) =>
            derivedRatios(sample.reports.own.map((report) => report.counters).reduce(addCounters))
              .meanAcceptanceLength ?? 1,
        ),
      ),
      positionsPerStep: positionsPerStep(own.map((report) => report.scoring).reduce(addScoringTotals)),
    };
    results.push(cell);
    options.onCell?.(cell);
  }
  return results;
}

// ── The structured-output scorecard ──────────────────────────────────────────────────────────────────

/** What a scorecard row pair scores: the schema-on run (the schema-off run is the same with no schema), and the schema its outputs are judged against. */
interface ScorecardWorkload {
  on: RunParams;
  schema: object;
}

/**
 * A case of a case file as `caseScorecard` takes it: its bucket and line, its schema-on run (prompt, schema text,
 * trigger and the shared options) and its parsed schema.
 */
export interface ScorecardCase extends ScorecardWorkload {
  bucket: string;
  line: number;
}

/**
 * How one output fared, and its JSON text. With the schema on, the decode judged it; without, its JSON is
 * the output after the trigger (when the run has one), judged here by the same rules.
 */
function judge(
  validate: SchemaValidator,
  workload: ScorecardWorkload,
  report: RunReport,
  constrained: boolean,
): { verdict: OutputVerdict; json: string | null } {
  if (constrained) return { verdict: report.verdict as OutputVerdict, json: report.json };
  const { trigger } = workload.on;
  const at = trigger === undefined ? 0 : report.text.indexOf(trigger);
  const ending = report.ending === 'stopped' ? 'stopped' : 'max-tokens';
  if (at === -1)
    return {
      verdict: {
        kind: ending === 'stopped' ? 'invalid' : 'truncated',
        reason: `the trigger ${JSON.stringify(trigger)} never appeared`,
      },
      json: null,
    };
  const json = report.text.slice(at + (trigger?.length ?? 0)).trim();
  return { verdict: scoreOutput(validate, workload.schema, json, ending), json };
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
 * preset is an object schema a free decode may or may not meet). Validity is judged by `validate` (the
 * bounded interpreting validator) against the full schema, independently of the grammar.
 */
export async function scorecard(
  run: Runner,
  validate: SchemaValidator,
  spec: ScorecardSpec,
  options: BenchOptions = {},
): Promise<ScorecardRow[]> {
  const presets = spec.presets.map((id) => {
    const preset = SCHEMA_PRESETS.find((candidate) => candidate.id === id);
    if (!preset)
      throw new RangeError(
        `unknown preset ${JSON.stringify(id)}; the presets are ${SCHEMA_PRESETS.map((p) => p.id).join(', ')}`,
      );
    return preset;
  });
  const rows = await scoreWorkloads(
    run,
    validate,
    presets.map((preset) => ({ on: presetParams(preset, spec.base), schema: preset.schema })),
    spec,
    options,
  );
  return presets.flatMap((preset, i) => (rows[i] as ScorecardFigures[]).map((row) => ({ preset: preset.id, ...row })));
}

/**
 * The same scorecard over the cases of a case file: per case, in the order given, its schema-on row and the
 * same prompt decoded with no schema, each named by the case's bucket and line; samples, seeds, token budget,
 * warm-up and judging as for the presets.
 */
export async function caseScorecard(
  run: Runner,
  validate: SchemaValidator,
  cases: readonly ScorecardCase[],
  spec: Pick<ScorecardSpec, 'seeds' | 'tokenBudget'>,
  options: BenchOptions = {},
): Promise<CaseScorecardRow[]> {
  const rows = await scoreWorkloads(run, validate, cases, spec, options);
  return cases.flatMap((item, i) =>
    (rows[i] as ScorecardFigures[]).map((row) => ({ bucket: item.bucket, caseLine: item.line, ...row })),
  );
}

/** Each workload's schema-on and schema-off rows, in that order, after one untimed warm-up. */
async function scoreWorkloads(
  run: Runner,
  validate: SchemaValidator,
  workloads: readonly ScorecardWorkload[],
  spec: Pick<ScorecardSpec, 'seeds' | 'tokenBudget'>,
  options: BenchOptions,
): Promise<ScorecardFigures[][]> {
  if (!(Number.isInteger(spec.seeds) && spec.seeds >= 1))
    throw new RangeError(`seeds must be a positive integer, got ${spec.seeds}`);
  const tokenBudget = spec.tokenBudget ?? 1;
  if (!(Number.isInteger(tokenBudget) && tokenBudget >= 1))
    throw new RangeError(`the token budget must be a positive integer, got ${tokenBudget}`);
  const first = workloads[0];
  if (first === undefined) throw new RangeError('a scorecard needs at least one preset or case');
  const { tick, sampleEnded } = budgetProgress(1, workloads.length * spec.seeds, options.onProgress);
  // One untimed warm-up, so that the first row does not pay the cold start.
  options.signal?.throwIfAborted();
  await run(first.on);
  tick();
  const rows: ScorecardFigures[][] = [];
  for (const workload of workloads) {
    const base = workload.on;
    const params = { on: base, off: { ...base, schemaText: null } };
    const samples: BudgetedSample<'on' | 'off'>[] = [];
    let seed = base.seed;
    for (let s = 0; s < spec.seeds; s++) {
      // The schema on and off take turns going first, sample by sample (and seed by seed within one).
      const sample = await budgetedSample(run, params, s % 2 === 0 ? ['on', 'off'] : ['off', 'on'], seed, tokenBudget, {
        signal: options.signal,
        onRun: tick,
      });
      seed += sample.runs;
      samples.push(sample);
      sampleEnded(sample.runs);
    }
    rows.push(
      (['on', 'off'] as const).map((which): ScorecardFigures => {
        const constrained = which === 'on';
        let card = EMPTY_SCORECARD;
        let parseErrors = 0;
        for (const report of samples.flatMap((sample) => sample.reports[which])) {
          const { verdict, json } = judge(validate, workload, report, constrained);
          card = recordCompletion(card, verdict.kind);
          if (isParseError(verdict, json)) parseErrors++;
        }
        const reports = samples.flatMap((sample) => sample.reports[which]);
        const sum = (of: (report: RunReport) => number) => reports.reduce((total, report) => total + of(report), 0);
        const rates = samples.map((sample) => sample.tokensPerSecond[which]);
        const overFree = samples.map((sample) => sample.tokensPerSecond.on / sample.tokensPerSecond.off);
        return {
          constrained,
          method: base.method,
          K: base.K,
          L: base.L,
          temperature: base.temperature,
          seedFirst: base.seed,
          seedLast: seed - 1,
          samples: spec.seeds,
          card,
          parseErrors,
          counters: reports.map((report) => report.counters).reduce(addCounters, emptyCounters(base.L)),
          draftMs: sum((report) => report.timings.draft),
          targetMs: sum((report) => report.timings.target),
          maskMs: sum((report) => report.timings.mask),
          generationMs: sum((report) => report.generationMs),
          tokens: sum((report) => report.tokens.length),
          tokensPerSecond: spreadOf(rates),
          tokensPerSecondInterval: bootstrapInterval(rates),
          overFree: constrained ? { spread: spreadOf(overFree), interval: bootstrapInterval(overFree) } : null,
          interTokenMs: spreadOf(
            samples.map((sample) => {
              const own = sample.reports[which];
              return (
                own.reduce((total, report) => total + report.generationMs, 0) /
                Math.max(
                  1,
                  own.reduce((total, report) => total + report.tokens.length, 0),
                )
              );
            }),
          ),
        };
      }),
    );
  }
  return rows;
}
