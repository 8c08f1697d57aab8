/**
 * The paper's comparison on the bundled models: for each preset, method and (K, L), block efficiency
 * (tokens per target forward), mean acceptance length, A/D, A/R, D/R, tokens/s and the wall-clock speedup
 * over `ar` measured in the same run, beside the ideal speedup BE / (L·c + 1) from the measured block
 * efficiency and the draft/target cost ratio c. `ar+jump-forward`, the best decoder without a draft model,
 * runs beside `ar`, and every speculative row's speedup is also stated over it. Runs the same in Node and in
 * a browser page.
 */
import {
  addCounters,
  counterFields,
  derivedRatios,
  emptyCounters,
  sourceRatios,
  type Counters,
} from '../../src/core/metrics';
import { snakeKeys } from '../cli/csv';
import { fairSchedule, spreadOf, type Spread } from '../../src/core/fairTiming';
import { bootstrapInterval, contains, type Interval } from '../../src/core/bootstrap';
import { MIN_SAMPLES_FOR_VERDICT, VERDICT_TEXT, compareRatios, verdictOf } from '../../src/core/verdict';
import { intervalJson } from '../../src/contract/bench';
import { METHOD_IDS, draftsUsed, type MethodId } from '../../src/core/verify';
import { samplesNothing, usesHead, type DrafterId } from '../../src/core/draftLaw';
import type { ScoringPlan, StepRecord, StepTimings } from '../../src/contract/stepRecord';
import {
  addScoringTotals,
  describePositions,
  positionsPerStep,
  type PositionsPerStep,
  type ScoringTotals,
} from '../../src/contract/runReport';
import { type SpecEngine } from '../../src/engine/engine';
import { isBaseline, presetParams, type DecodeMethod } from '../../src/contract/runParams';
import { MAX_DRAFT_LENGTH } from '../../src/contract/limits';
import { SCHEMA_PRESETS } from '../../src/contract/presets';

export const GRID: readonly { K: number; L: number }[] = [
  { K: 1, L: 2 },
  { K: 1, L: 4 },
  { K: 3, L: 2 },
  { K: 3, L: 4 },
];
export const SPECULATIVE: readonly MethodId[] = METHOD_IDS;

/** ar+jump-forward's L: the longest forced span it scores in one forward (the most L allows). */
export const JUMP_FORWARD_L = MAX_DRAFT_LENGTH;

/** The issue's goals, median over presets against ar in the same run (the summary says whether this machine allows them). */
export const SPEEDUP_GOALS: readonly { method: MethodId; K: number; L: number; goal: number }[] = [
  { method: 'tokenwise', K: 1, L: 4, goal: 1.6 },
  { method: 'spectr-gbv', K: 3, L: 4, goal: 1.25 },
];

/** Issue 43's goals for the draft head behind the schema: over ar and over ar+jump-forward, medians over presets. */
export const HEAD_SPEEDUP_GOALS: readonly {
  method: MethodId;
  K: number;
  L: number;
  drafter: DrafterId;
  goal: number;
  overJumpForward: number;
}[] = [
  { method: 'tokenwise', K: 1, L: 4, drafter: 'head+grammar', goal: 1.8, overJumpForward: 1.25 },
  { method: 'spectr-gbv', K: 3, L: 4, drafter: 'head+grammar', goal: 1.4, overJumpForward: 1.0 },
];

/** Issue 49's goals, the same figures, for the drafters that copy the prompt's values. */
export const COPY_SPEEDUP_GOALS: typeof HEAD_SPEEDUP_GOALS = (['model+grammar+copy', 'copy'] as const).flatMap(
  (drafter) => [
    { method: 'tokenwise', K: 1, L: 4, drafter, goal: 1.8, overJumpForward: 1.25 },
    { method: 'spectr-gbv', K: 3, L: 4, drafter, goal: 1.4, overJumpForward: 1.0 },
  ],
);

/** Issue 49's goal for the copied tokens themselves: A/D of the copy source on every preset that copies values. */
export const COPY_ACCEPTANCE_GOAL = 0.8;

export interface DecodeRow extends BenchConfig {
  preset: string;
  tokens: number;
  forwards: number;
  blockEfficiency: number;
  meanAcceptanceLength: number | null;
  conditionalAcceptance: number | null;
  draftYield: number | null;
  grammarSurvival: number | null;
  /** One round's counters (every round gives the same: the engine is seeded): R, I, D, A, steps. */
  counters: Counters;
  /** The median over rounds. */
  tokensPerSecond: number;
  /** The median over rounds of the round's tokens/s over the same round's ar tokens/s. */
  speedup: number;
  /** The same over the round's ar+jump-forward; null for the baselines. */
  speedupOverJumpForward: number | null;
  idealSpeedup: number | null;
  valid: number;
  /** Mean target positions per step, tree and batched; null for ar. */
  positionsPerStep: PositionsPerStep | null;
  /** Mean milliseconds per step in each phase of the loop. */
  perStep: StepTimings;
  /** Where each step's time went, every phase in ms per step (all steps), summing to generation ms / steps. */
  profile: PhaseProfile;
  /** Process CPU milliseconds per step, where the caller gives a CPU clock (Node); null in a page. */
  cpuMsPerStep: number | null;
  /** The steps after each run's first (which also reads the prompt): one round's steps and tokens, and their mean ms per round. */
  decode: DecodeSteps;
  /** Timed rounds behind the figures. */
  rounds: number;
  tokensPerSecondSpread: Spread;
  /** Each round's speedup; the median is `speedup`. */
  speedupSpread: Spread;
  /** Each round's speedup in round order (the pairs the verdict and the goal lines are judged on). */
  roundSpeedups: number[];
  /** The median speedup's 95% bootstrap interval over the rounds (src/core/bootstrap.ts). */
  speedupInterval: Interval;
}

export interface DecodeSteps {
  steps: number;
  tokens: number;
  ms: number;
  /** The drafting phase's share of `ms`. */
  draftMs: number;
}

/**
 * The profile's phases. The first step of a run, which also reads the prompt, is `prefill`, whole; the
 * other steps' phases are the step timings (`other` is a step's remainder: its own bookkeeping);
 * `setup` is the run's time outside its steps (grammar matcher, caches, the final verdict).
 */
export const PROFILE_PHASES = ['draft', 'mask', 'target', 'verify', 'kv', 'other', 'prefill', 'setup'] as const;
export type PhaseProfile = Record<(typeof PROFILE_PHASES)[number], number>;

const zeroProfile = (): PhaseProfile => ({
  draft: 0,
  mask: 0,
  target: 0,
  verify: 0,
  kv: 0,
  other: 0,
  prefill: 0,
  setup: 0,
});
const profileTotal = (profile: PhaseProfile) => PROFILE_PHASES.reduce((sum, phase) => sum + profile[phase], 0);
/** A step's generation time: every phase but the teaching analyses. */
const stepMs = (t: StepTimings) => t.draft + t.mask + t.target + t.verify + t.kv + t.overhead;

export interface BenchSelection {
  /** Speculative methods to run (all by default); ar and ar+jump-forward always run, as the baselines. */
  methods?: readonly MethodId[];
  /** (K, L) cells to run (GRID by default). */
  grid?: readonly { K: number; L: number }[];
  /** Preset ids to run, in the presets' order (every preset by default); the untimed warm-up runs on the first. */
  presets?: readonly string[];
  /** Drafters to run each speculative configuration with (['model'] by default): one row per drafter. */
  drafters?: readonly DrafterId[];
  /** Timed rounds per preset (DEFAULT_ROUNDS by default): each round runs ar and every configuration once, in that round's order. */
  rounds?: number;
  /** A round of a configuration runs seeds 1, 2, … past `seeds` until it has output at least this many tokens (1 by default: `seeds` runs). */
  tokenBudget?: number;
  /** Process CPU time in ms, for a noise-robust second clock on a shared machine. */
  cpuClock?: () => number;
  /** Tokens per run at most (the presets' default, 96, where absent). */
  maxTokens?: number;
  /** Untimed runs of each method before the timed rounds (1 by default); at 0 the timings include first-call compiles. */
  warmUpRuns?: number;
}

/** Five rounds: the shared verdict rule's minimum (src/core/verdict.ts). */
export const DEFAULT_ROUNDS = 5;

/** One (method, K, L, drafter) configuration of the bench; ar is K = 1, L = 0, ar+jump-forward K = 1, L = JUMP_FORWARD_L, both drafter model. */
export interface BenchConfig {
  method: DecodeMethod;
  K: number;
  L: number;
  /** Where draft tokens come from (src/core/draftLaw.ts). */
  drafter: DrafterId;
}

/** The method column: the method, with its drafter where it is not the draft model alone. */
export const configLabel = ({ method, drafter }: Pick<BenchConfig, 'method' | 'drafter'>): string =>
  drafter === 'model' ? method : `${method} (${drafter})`;

/**
 * The order of each timed round, as indices into the configurations: round r starts where fairSchedule's
 * rotation by r does, and odd rounds walk the list backwards from there, so that no configuration always
 * runs first or right after the same one.
 */
export function roundOrders(count: number, rounds: number): number[][] {
  const orders: number[][] = Array.from({ length: rounds }, () => []);
  for (const run of fairSchedule(
    Array.from({ length: count }, (_, index) => index),
    rounds,
  ))
    if (run.timed) orders[run.round]?.push(run.index);
  return orders.map((order, round) => (round % 2 === 1 ? [...order.slice(0, 1), ...order.slice(1).reverse()] : order));
}

/** Each round's speedup: the configuration's tokens/s over the same round's ar tokens/s. */
export function roundSpeedups(tokensPerSecond: readonly number[], arTokensPerSecond: readonly number[]): Spread {
  if (tokensPerSecond.length !== arTokensPerSecond.length)
    throw new RangeError(`${tokensPerSecond.length} rounds against ar's ${arTokensPerSecond.length}`);
  return spreadOf(tokensPerSecond.map((rate, round) => rate / (arTokensPerSecond[round] as number)));
}

/** One round of one configuration: `seeds` runs summed. */
interface RoundResult {
  tokens: number;
  forwards: number;
  ms: number;
  valid: number;
  counters: Counters;
  scoring: ScoringTotals;
  /** Summed over the round's steps, not yet per step. */
  perStep: StepTimings;
  profile: PhaseProfile;
  cpuMs: number;
  /** The emitted tokens and counters, which the seeded engine must repeat exactly in every round. */
  fingerprint: string;
  decode: DecodeSteps;
}

/**
 * For each preset, `rounds` timed rounds of ar and every selected configuration (`seeds` seeds each), in
 * alternating order; a row's speedup is the median over rounds of its tokens/s over that round's ar, with
 * the range. Tokens, counters and ratios are one round's (every round must give the same); the timings and
 * the profile are means per step over every round. `costRatio` is c = draft forward / target forward
 * (batch 1, sequence 1), measured by the caller, or null where not measured (no ideal speedup then).
 */
export async function runDecodeBench(
  engine: SpecEngine,
  seeds: number,
  costRatio: number | null,
  log: (line: string) => void,
  selection: BenchSelection = {},
): Promise<DecodeRow[]> {
  const {
    methods = SPECULATIVE,
    grid = GRID,
    rounds = DEFAULT_ROUNDS,
    cpuClock,
    drafters = ['model'],
    tokenBudget = 1,
    maxTokens,
    warmUpRuns = 1,
  } = selection;
  const runLength = maxTokens === undefined ? {} : { maxTokens };
  const presets =
    selection.presets === undefined
      ? SCHEMA_PRESETS
      : SCHEMA_PRESETS.filter((preset) => selection.presets?.includes(preset.id));
  if (presets.length === 0) throw new RangeError(`no preset among ${JSON.stringify(selection.presets)}`);
  if (!(Number.isInteger(rounds) && rounds >= 1))
    throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  if (!(Number.isInteger(tokenBudget) && tokenBudget >= 1))
    throw new RangeError(`the token budget must be a positive integer, got ${tokenBudget}`);
  // A single-draft method at K > 1 would repeat its K = 1 row.
  const configs: BenchConfig[] = [
    { method: 'ar', K: 1, L: 0, drafter: 'model' },
    { method: 'ar+jump-forward', K: 1, L: JUMP_FORWARD_L, drafter: 'model' },
    ...grid.flatMap(({ K, L }) =>
      methods
        .filter((method) => draftsUsed(method, K) === K)
        .flatMap((method) => drafters.map((drafter) => ({ method, K, L, drafter }))),
    ),
  ];
  const orders = roundOrders(configs.length, rounds);
  const rows: DecodeRow[] = [];
  // Untimed runs of each method first: kernel compilation and allocator warm-up are not speed.
  for (let run = 0; run < warmUpRuns; run++)
    for (const method of ['ar', 'ar+jump-forward', ...methods] as const)
      await engine.run(presetParams(presets[0] as (typeof SCHEMA_PRESETS)[number], { method, ...runLength }));
  for (const preset of presets) {
    const measure = async ({ method, K, L, drafter }: BenchConfig): Promise<RoundResult> => {
      const result: RoundResult = {
        tokens: 0,
        forwards: 0,
        ms: 0,
        valid: 0,
        counters: emptyCounters(Math.max(L, 1)),
        scoring: { positions: 0, batchedPositions: 0, treeSteps: 0, batchedSteps: 0 },
        perStep: { draft: 0, mask: 0, target: 0, verify: 0, kv: 0, overhead: 0, analysis: 0 },
        profile: zeroProfile(),
        cpuMs: 0,
        fingerprint: '',
        decode: { steps: 0, tokens: 0, ms: 0, draftMs: 0 },
      };
      const { profile, decode } = result;
      let firstStepTokens = 0;
      const profileStep = ({ index, timings, emitted }: StepRecord) => {
        if (index === 0) {
          profile.prefill += stepMs(timings);
          firstStepTokens = emitted.length;
        } else {
          for (const phase of ['draft', 'mask', 'target', 'verify', 'kv'] as const) profile[phase] += timings[phase];
          profile.other += timings.overhead;
          decode.steps++;
          decode.ms += stepMs(timings);
          decode.draftMs += timings.draft;
        }
        profile.setup -= stepMs(timings);
      };
      const emitted: number[][] = [];
      // A run always outputs a token, so the budget ends the loop; the seeds are the same in every round.
      for (let seed = 1; seed <= seeds || result.tokens < tokenBudget; seed++) {
        const cpuStart = cpuClock?.() ?? 0;
        const report = await engine.run(
          presetParams(preset, { method, K, L: Math.max(L, 1), seed, temperature: 1, drafter, ...runLength }),
          profileStep,
        );
        result.cpuMs += (cpuClock?.() ?? 0) - cpuStart;
        profile.setup += report.generationMs;
        result.tokens += report.tokens.length;
        // A stop token inside the first step's block ends the run there; tokens after it are not output.
        decode.tokens += report.tokens.length - Math.min(firstStepTokens, report.tokens.length);
        result.forwards += report.steps;
        result.ms += report.generationMs;
        if (report.verdict?.kind === 'valid') result.valid++;
        result.counters = addCounters(result.counters, report.counters);
        result.scoring = addScoringTotals(result.scoring, report.scoring);
        for (const phase of Object.keys(result.perStep) as (keyof StepTimings)[])
          result.perStep[phase] += report.timings[phase];
        emitted.push(report.tokens);
      }
      result.fingerprint = JSON.stringify({
        emitted,
        counters: result.counters,
        forwards: result.forwards,
        valid: result.valid,
        scoring: result.scoring,
      });
      return result;
    };
    const byConfig: RoundResult[][] = configs.map(() => []);
    for (const order of orders)
      for (const index of order) byConfig[index]?.push(await measure(configs[index] as BenchConfig));
    const rates = byConfig.map((results) => results.map((result) => result.tokens / (result.ms / 1000)));
    configs.forEach((config, index) => {
      const results = byConfig[index] as RoundResult[];
      const first = results[0] as RoundResult;
      if (results.some((result) => result.fingerprint !== first.fingerprint)) {
        throw new Error(
          `${preset.id} ${configLabel(config)} K = ${config.K} L = ${config.L}: the rounds emitted different tokens or counters, but the engine is seeded`,
        );
      }
      const allForwards = first.forwards * rounds;
      const perStep = { ...first.perStep };
      const profile = zeroProfile();
      for (const phase of Object.keys(perStep) as (keyof StepTimings)[])
        perStep[phase] = results.reduce((sum, result) => sum + result.perStep[phase], 0) / allForwards;
      for (const phase of PROFILE_PHASES)
        profile[phase] = results.reduce((sum, result) => sum + result.profile[phase], 0) / allForwards;
      const ratios = derivedRatios(first.counters);
      const blockEfficiency = config.method === 'ar' ? 1 : first.tokens / first.forwards;
      const speedupSpread = roundSpeedups(rates[index] as number[], rates[0] as number[]);
      const roundRatios = (rates[index] as number[]).map(
        (rate, round) => rate / ((rates[0] as number[])[round] as number),
      );
      const speedupInterval = bootstrapInterval(roundRatios);
      const baseline = isBaseline(config.method);
      const tokensPerSecondSpread = spreadOf(rates[index] as number[]);
      rows.push({
        preset: preset.id,
        ...config,
        tokens: first.tokens,
        forwards: first.forwards,
        blockEfficiency,
        meanAcceptanceLength: config.method === 'ar' ? 1 : ratios.meanAcceptanceLength,
        conditionalAcceptance: config.method === 'ar' ? null : ratios.conditionalAcceptance,
        draftYield: config.method === 'ar' ? null : ratios.draftYield,
        grammarSurvival: config.method === 'ar' ? null : ratios.grammarSurvival,
        counters: first.counters,
        tokensPerSecond: tokensPerSecondSpread.median,
        speedup: speedupSpread.median,
        speedupOverJumpForward: baseline ? null : roundSpeedups(rates[index] as number[], rates[1] as number[]).median,
        // The baselines draft nothing: their ideal is their block efficiency.
        idealSpeedup: costRatio === null ? null : blockEfficiency / ((baseline ? 0 : config.L) * costRatio + 1),
        valid: first.valid,
        positionsPerStep: config.method === 'ar' ? null : positionsPerStep(first.scoring),
        perStep,
        profile,
        cpuMsPerStep: cpuClock ? results.reduce((sum, result) => sum + result.cpuMs, 0) / allForwards : null,
        decode: {
          ...first.decode,
          ms: results.reduce((sum, result) => sum + result.decode.ms, 0) / rounds,
          draftMs: results.reduce((sum, result) => sum + result.decode.draftMs, 0) / rounds,
        },
        rounds,
        tokensPerSecondSpread,
        speedupSpread,
        roundSpeedups: roundRatios,
        speedupInterval,
      });
      log(formatDecodeRow(rows.at(-1) as DecodeRow));
    });
  }
  return rows;
}

/** A (method, K, L)'s median over presets of its median speedup, beside the medians of its ideal and of this machine's ceiling. */
export interface PresetSummary extends BenchConfig {
  presets: number;
  speedup: number;
  /** The median over presets of the row's speedup over ar+jump-forward; null where a preset has none. */
  speedupOverJumpForward: number | null;
  /** `machineAllowance`'s step cost in ar tokens and block efficiency, medians over presets; null where a preset has none. */
  stepInArTokens: number | null;
  blockEfficiency: number | null;
  idealSpeedup: number | null;
  /** `machineAllowance`'s ceiling: every draft accepted, at the measured step cost; null where a preset has none. */
  ceiling: number | null;
  /** `machineAllowance`'s bound with the step's drafting wholly hidden; null where a preset has none. */
  draftingHidden: number | null;
  /** The step less its drafting, in ar tokens (the target's positions, masks, verification), median over presets; null where a preset has none. */
  undraftedInArTokens: number | null;
  /** The same step priced in ar+jump-forward's tokens, and the ceiling over it (medians); null where it did not run. */
  overJumpForward: { stepInTokens: number; ceiling: number; undraftedInTokens: number } | null;
  /** Per round, the median over presets of that round's speedup: the pairs a goal line is judged on. */
  roundMedians: number[];
}

/** The figure the goals are stated in: per speculative configuration, the median over presets of each row's median speedup. */
export function summaryOverPresets(rows: readonly DecodeRow[]): PresetSummary[] {
  const summaries: PresetSummary[] = [];
  for (const row of rows) {
    const sameConfig = ({ method, K, L, drafter }: BenchConfig) =>
      method === row.method && K === row.K && L === row.L && drafter === row.drafter;
    if (isBaseline(row.method) || summaries.some(sameConfig)) continue;
    const same = rows.filter(sameConfig);
    const ideals = same.map((candidate) => candidate.idealSpeedup).filter((ideal): ideal is number => ideal !== null);
    const allowanceOver = (baseline: DecodeMethod) =>
      same.map((candidate) => {
        const base = rows.find(({ preset, method }) => preset === candidate.preset && method === baseline);
        return base ? machineAllowance(candidate, base) : null;
      });
    const allowances = allowanceOver('ar');
    const overJump = allowanceOver('ar+jump-forward');
    const medianOf = (values: (number | undefined)[]) =>
      values.every((value) => value !== undefined) ? spreadOf(values as number[]).median : null;
    const rounds = Math.min(...same.map((candidate) => candidate.roundSpeedups.length));
    summaries.push({
      method: row.method,
      K: row.K,
      L: row.L,
      drafter: row.drafter,
      presets: same.length,
      roundMedians: Array.from(
        { length: rounds },
        (_, round) => spreadOf(same.map((candidate) => candidate.roundSpeedups[round] as number)).median,
      ),
      speedup: spreadOf(same.map((candidate) => candidate.speedup)).median,
      speedupOverJumpForward: medianOf(same.map((candidate) => candidate.speedupOverJumpForward ?? undefined)),
      stepInArTokens: medianOf(allowances.map((allowance) => allowance?.stepInArTokens)),
      blockEfficiency: medianOf(allowances.map((allowance) => allowance?.blockEfficiency)),
      idealSpeedup: ideals.length === same.length ? spreadOf(ideals).median : null,
      ceiling: medianOf(allowances.map((allowance) => allowance?.ceiling)),
      draftingHidden: medianOf(allowances.map((allowance) => allowance?.draftingHidden)),
      undraftedInArTokens: medianOf(
        allowances.map((allowance) => (allowance ? allowance.blockEfficiency / allowance.draftingHidden : undefined)),
      ),
      overJumpForward: overJump.every((allowance): allowance is NonNullable<typeof allowance> => allowance !== null)
        ? {
            stepInTokens: spreadOf(overJump.map((allowance) => allowance.stepInArTokens)).median,
            ceiling: spreadOf(overJump.map((allowance) => allowance.ceiling)).median,
            undraftedInTokens: spreadOf(
              overJump.map((allowance) => allowance.blockEfficiency / allowance.draftingHidden),
            ).median,
          }
        : null,
    });
  }
  return summaries;
}

export function formatSummary(summaries: readonly PresetSummary[]): string {
  const entries = summaries.map(
    ({ method, K, L, drafter, speedup, speedupOverJumpForward, idealSpeedup, ceiling, draftingHidden }) => {
      const overJump =
        speedupOverJumpForward === null ? '' : `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward; `;
      return `${configLabel({ method, drafter })} K = ${K}, L = ${L}: ${speedup.toFixed(2)}× (${overJump}ideal ${times(idealSpeedup)}; ceiling here ${times(ceiling)}; drafting hidden ${times(draftingHidden)})`;
    },
  );
  return `**Median over presets** of each row's median speedup over ar, with the ideal, this machine's ceiling (every draft accepted, at the measured step cost) and the bound with drafting wholly hidden (at the measured block efficiency): ${entries.join('; ')}`;
}

/** ar+jump-forward's own median over presets of its speedup over ar, or null where it did not run. */
export function jumpForwardSummary(rows: readonly DecodeRow[]): string | null {
  const jump = rows.filter((row) => row.method === 'ar+jump-forward');
  if (jump.length === 0) return null;
  const speedup = spreadOf(jump.map((row) => row.speedup)).median;
  const blockEfficiency = spreadOf(jump.map((row) => row.blockEfficiency)).median;
  return `**ar+jump-forward** (no draft model; forced text up to L = ${JUMP_FORWARD_L} tokens a forward, each kept with p(x)): ${speedup.toFixed(2)}× over ar, ${blockEfficiency.toFixed(2)} tokens per target forward (medians over presets).`;
}

/**
 * Each goal of SPEEDUP_GOALS the bench ran, per drafter, judged by the shared verdict rule
 * (src/core/verdict.ts) with the goal as the threshold, over the rounds (each round's median over presets):
 * met only when the interval lies above the goal, not met only when it lies below, otherwise within noise of
 * the goal or too few rounds. A line never explains a verdict with figures that say the opposite: where the
 * steps after each run's first would meet the goal, the shortfall is named as each run's first step and setup.
 */
export function formatGoals(summaries: readonly PresetSummary[]): string | null {
  const lines = SPEEDUP_GOALS.flatMap(({ method, K, L, goal }) =>
    summaries
      .filter((summary) => summary.method === method && summary.K === K && summary.L === L)
      .map((summary) => {
        const comparison = summary.roundMedians.length === 0 ? null : compareRatios(summary.roundMedians, goal);
        const interval =
          comparison === null
            ? ''
            : ` [${comparison.interval.low.toFixed(2)}–${comparison.interval.high.toFixed(2)}, 95% over ${comparison.interval.n} rounds]`;
        const head = `- ${configLabel(summary)} K = ${K}, L = ${L}, goal ${goal.toFixed(2)}× over ar: ${(comparison?.ratio ?? summary.speedup).toFixed(2)}×${interval}${summary.speedupOverJumpForward === null ? '' : ` (${summary.speedupOverJumpForward.toFixed(2)}× over ar+jump-forward)`}`;
        const verdict = comparison?.verdict ?? 'too few samples';
        if (verdict === 'faster') return `${head}, met: the interval lies above the goal.`;
        if (verdict === 'too few samples')
          return `${head}, not judged: fewer than ${MIN_SAMPLES_FOR_VERDICT} rounds (--rounds).`;
        if (verdict === 'within noise')
          return `${head}, within noise of the goal: the interval holds ${goal.toFixed(2)}× (more --rounds narrow it).`;
        const { ceiling, stepInArTokens, blockEfficiency, overJumpForward } = summary;
        if (ceiling === null || stepInArTokens === null || blockEfficiency === null)
          return `${head}, not met: the interval lies below the goal (no step after the first to price).`;
        // The same figures with the step priced in ar+jump-forward's tokens (its ms per output token).
        const againstJump =
          overJumpForward === null
            ? ''
            : ` Against ar+jump-forward a step costs ${overJumpForward.stepInTokens.toFixed(2)} of its tokens: every draft accepted gives ${overJumpForward.ceiling.toFixed(2)}× over it, and ${goal.toFixed(2)}× over it needs ${(goal * overJumpForward.stepInTokens).toFixed(2)} tokens a step (the drafts gave ${blockEfficiency.toFixed(2)}).`;
        if (ceiling < goal) {
          return `${head}, out of reach on this machine: a step costs ${stepInArTokens.toFixed(2)} ar tokens, so even every draft accepted (${L + 1} tokens a step) gives ${ceiling.toFixed(2)}×; the goal needs a step under ${((L + 1) / goal).toFixed(2)} ar tokens.${againstJump}`;
        }
        const needed = goal * stepInArTokens;
        if (blockEfficiency >= needed) {
          return `${head}, not met: the interval lies below the goal, though the steps after each run's first would meet it (at ${stepInArTokens.toFixed(2)} ar tokens a step it needs ${needed.toFixed(2)} tokens a step and the drafts gave ${blockEfficiency.toFixed(2)}): the shortfall is each run's first step (prefill) and setup, which the speedup includes.${againstJump}`;
        }
        return `${head}, not met: the interval lies below the goal; the ceiling here (${ceiling.toFixed(2)}×) allows it, but at ${stepInArTokens.toFixed(2)} ar tokens a step it needs ${needed.toFixed(2)} tokens a step and the drafts gave ${blockEfficiency.toFixed(2)}.${againstJump}`;
      }),
  );
  const headLines = [...HEAD_SPEEDUP_GOALS, ...COPY_SPEEDUP_GOALS].flatMap(
    ({ method, K, L, drafter, goal, overJumpForward }) =>
      summaries
        .filter(
          (summary) => summary.method === method && summary.K === K && summary.L === L && summary.drafter === drafter,
        )
        .map((summary) => headGoalLine(summary, goal, overJumpForward)),
  );
  const all = [...lines, ...headLines];
  return all.length === 0
    ? null
    : [
        "**Goals** (per round the median over presets, then the median over rounds; met or not met only when the 95% interval over rounds lies wholly above or below the goal; a step priced in ar tokens from the steps after each run's first)",
        '',
        ...all,
      ].join('\n');
}

/**
 * Which term stops a speedup goal at a step that costs `step` baseline tokens, `undrafted` of them outside
 * drafting, for `tokens` tokens a step: the target positions where even every draft accepted with drafting
 * free falls short; `drafting`'s cost (the head's, the draft model's, copying's) where hiding drafting would
 * meet it; else acceptance.
 */
export function stoppingTerm(
  goal: number,
  L: number,
  step: number,
  undrafted: number,
  tokens: number,
  drafting = 'head',
): string {
  const draftingTokens = step - undrafted;
  if ((L + 1) / undrafted < goal) {
    return `target positions stop it: the step without drafting costs ${undrafted.toFixed(2)} tokens (the target's positions, masks, verification), so even every draft accepted with free drafting gives ${((L + 1) / undrafted).toFixed(2)}×`;
  }
  if (tokens / undrafted >= goal)
    return `${drafting} cost stops it: drafting costs ${draftingTokens.toFixed(2)} tokens a step; without it the drafts' ${tokens.toFixed(2)} tokens a step would give ${(tokens / undrafted).toFixed(2)}×`;
  return `acceptance stops it: at ${step.toFixed(2)} tokens a step it needs ${(goal * step).toFixed(2)} tokens a step and the drafts gave ${tokens.toFixed(2)} (with drafting free, ${(goal * undrafted).toFixed(2)})`;
}

/** A head goal's line: over ar and over ar+jump-forward, each met or the term that stops it. */
function headGoalLine(summary: PresetSummary, goal: number, overJumpGoal: number): string {
  const {
    K,
    L,
    speedup,
    speedupOverJumpForward,
    stepInArTokens,
    undraftedInArTokens,
    blockEfficiency,
    overJumpForward,
  } = summary;
  // What drafting costs in this configuration: the head's forwards, copying's matching and tokenizing, or the draft model's.
  const drafting = usesHead(summary.drafter) ? 'head' : samplesNothing(summary.drafter) ? 'copying' : 'draft-model';
  const start = `- ${configLabel(summary)} K = ${K}, L = ${L}, goals ${goal.toFixed(2)}× over ar and ${overJumpGoal.toFixed(2)}× over ar+jump-forward`;
  // Over ar, the shared verdict rule over rounds (as formatGoals); the term that stops it only for a verdict below the goal.
  const comparison = summary.roundMedians.length === 0 ? null : compareRatios(summary.roundMedians, goal);
  const verdict = comparison?.verdict ?? 'too few samples';
  const figure = `${(comparison?.ratio ?? speedup).toFixed(2)}×${comparison === null ? '' : ` [${comparison.interval.low.toFixed(2)}–${comparison.interval.high.toFixed(2)}, 95% over ${comparison.interval.n} rounds]`} over ar`;
  const overAr =
    verdict === 'faster'
      ? `${figure}, met`
      : verdict === 'too few samples'
        ? `${figure}, not judged: fewer than ${MIN_SAMPLES_FOR_VERDICT} rounds`
        : verdict === 'within noise'
          ? `${figure}, within noise of the goal`
          : stepInArTokens === null || undraftedInArTokens === null || blockEfficiency === null
            ? `${figure}, not met (no step after the first to price)`
            : `${figure}, not met: ${stoppingTerm(goal, L, stepInArTokens, undraftedInArTokens, blockEfficiency, drafting)} (in ar tokens)`;
  const overJump =
    speedupOverJumpForward === null
      ? 'ar+jump-forward did not run'
      : speedupOverJumpForward >= overJumpGoal
        ? `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward (median over presets; no per-round verdict), at or above the goal`
        : overJumpForward === null || blockEfficiency === null
          ? `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward (median over presets), below the goal (no step after the first to price)`
          : `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward (median over presets), below the goal: ${stoppingTerm(overJumpGoal, L, overJumpForward.stepInTokens, overJumpForward.undraftedInTokens, blockEfficiency, drafting)} (in ar+jump-forward tokens)`;
  return `${start}: ${overAr}; ${overJump}.`;
}

/**
 * The copy goal, per one-draft configuration that copied: the copy source's A/D on each preset where it
 * copied, met only where every one reaches COPY_ACCEPTANCE_GOAL. Null where no such row copied.
 */
export function copyAcceptanceLines(rows: readonly DecodeRow[]): string | null {
  // One draft only: with K drafts D counts a copied span once per draft that shares it, so A/D is at most about 1/K.
  const copying = rows.filter((row) => row.K === 1 && row.counters.bySource.copy.drafted > 0);
  const configs = [...new Set(copying.map((row) => `${configLabel(row)} K = ${row.K}, L = ${row.L}`))];
  if (configs.length === 0) return null;
  const lines = configs.map((config) => {
    const per = copying
      .filter((row) => `${configLabel(row)} K = ${row.K}, L = ${row.L}` === config)
      .map((row) => {
        const { drafted, invalidated, accepted } = row.counters.bySource.copy;
        return { preset: row.preset, ratio: accepted / Math.max(1, drafted - invalidated) };
      });
    const below = per.filter(({ ratio }) => ratio < COPY_ACCEPTANCE_GOAL);
    const figures = per.map(({ preset, ratio }) => `${preset} ${ratio.toFixed(2)}`).join(', ');
    return `- ${config}, goal A/D ≥ ${COPY_ACCEPTANCE_GOAL.toFixed(2)} on copied tokens on every preset that copies: ${figures}; ${below.length === 0 ? 'met' : `not met on ${below.map(({ preset }) => preset).join(', ')}`}.`;
  });
  return [
    `**Copied tokens** (A/D of the copy source with one draft, one round's counters, per preset where it copied)`,
    '',
    ...lines,
  ].join('\n');
}

export const SOURCE_TABLE_HEADER = [
  '| preset | method | K | L | source | drafted | invalidated | accepted | A/D | accepted tokens a step |',
  '|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

/** Per speculative row, each source that drafted: why a source pays (its A/D) and what it adds to a step (A_source / steps). */
export function sourceMarkdown(rows: readonly DecodeRow[]): string | null {
  const lines = rows
    .filter((row) => !isBaseline(row.method))
    .flatMap((row) =>
      sourceRatios(row.counters).map(({ source, conditionalAcceptance, tokensPerStep }) => {
        const { drafted, invalidated, accepted } = row.counters.bySource[source];
        return `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L} | ${source} | ${drafted} | ${invalidated} | ${accepted} | ${cell(conditionalAcceptance)} | ${cell(tokensPerStep)} |`;
      }),
    );
  return lines.length === 0
    ? null
    : [
        "**By source** (one round's counters: A/D per source, and its accepted tokens a step, which sum over sources to A/steps)",
        '',
        SOURCE_TABLE_HEADER,
        ...lines,
      ].join('\n');
}

/** The summary paragraphs under a section's table: the baselines, the speculative rows, the goals, the sources. */
export function summaryMarkdown(rows: readonly DecodeRow[]): string {
  const summaries = summaryOverPresets(rows);
  return [
    jumpForwardSummary(rows),
    formatSummary(summaries),
    formatGoals(summaries),
    copyAcceptanceLines(rows),
    sourceMarkdown(rows),
  ]
    .filter((part): part is string => part !== null)
    .join('\n\n');
}

/** The table's note on how the target scored drafts, and why when batched. */
export function describeScoring(plan: ScoringPlan): string {
  return plan.path === 'tree'
    ? 'the target scores each step’s drafts as one token tree'
    : `the target scores K batched rows${plan.reason ? ` (${plan.reason})` : ''}`;
}

export const DECODE_TABLE_HEADER = [
  '| preset | method | K | L | block efficiency | 1 + A/steps | A/D | A/R | D/R | tokens/s | speedup over ar: median over rounds [95% bootstrap interval over rounds] and verdict | ideal speedup | over ar+jump-forward | valid | target positions/step | ms/step: draft · mask · target · verify · other |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

const cell = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits));
/** A ratio with its ×, or a bare — where it was not measured. */
const times = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)}×`);

/** ar's own 1.00×; any other row's median speedup, its 95% interval over rounds and the shared verdict against ar. */
const speedupCell = (row: DecodeRow) =>
  row.method === 'ar'
    ? `${cell(row.speedup)}×`
    : `${cell(row.speedup)}× [${cell(row.speedupInterval.low)}–${cell(row.speedupInterval.high)}] ${VERDICT_TEXT[verdictOf(row.speedupInterval)]}`;

export function formatDecodeRow(row: DecodeRow): string {
  return `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L || '—'} | ${cell(row.blockEfficiency)} | ${cell(row.meanAcceptanceLength)} | ${cell(row.conditionalAcceptance)} | ${cell(row.draftYield)} | ${cell(row.grammarSurvival)} | ${cell(row.tokensPerSecond, 1)} | ${speedupCell(row)} | ${times(row.idealSpeedup)} | ${row.speedupOverJumpForward === null ? '—' : `${cell(row.speedupOverJumpForward)}×`} | ${row.valid} | ${describePositions(row.positionsPerStep)} | ${[row.perStep.draft, row.perStep.mask, row.perStep.target, row.perStep.verify, row.perStep.overhead].map((ms) => ms.toFixed(2)).join(' · ')} |`;
}

// ── The per-phase profile ────────────────────────────────────────────────────────────────────────────

export const PROFILE_TABLE_HEADER = [
  `| preset | method | K | L | steps | ms/step | ${PROFILE_PHASES.join(' | ')} | CPU ms/step | speedup by CPU time |`,
  `|---|---|---|---|---|---|${PROFILE_PHASES.map(() => '---').join('|')}|---|---|`,
].join('\n');

/** One row's profile; the CPU speedup is tokens per CPU ms against `ar`'s (null without a CPU clock). */
export function formatProfileRow(row: DecodeRow, ar: DecodeRow | undefined): string {
  const cpuSpeedup =
    row.cpuMsPerStep !== null && ar?.cpuMsPerStep ? (row.blockEfficiency * ar.cpuMsPerStep) / row.cpuMsPerStep : null;
  const phases = PROFILE_PHASES.map((phase) => row.profile[phase].toFixed(3)).join(' | ');
  return `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L || '—'} | ${row.forwards} | ${profileTotal(row.profile).toFixed(3)} | ${phases} | ${cell(row.cpuMsPerStep, 3)} | ${cpuSpeedup === null ? '—' : `${cpuSpeedup.toFixed(2)}×`} |`;
}

/**
 * How far a speculative row's step is from the ideal's, phase by phase. The ideal BE / (L·c + 1) prices a
 * step at (L·c + 1) ar steps, so each phase's allowance is ar's own time in it per step, and drafting's
 * is L·c ar steps; the excesses sum to the row's ms/step less the ideal's.
 */
export function excessOverIdeal(
  row: DecodeRow,
  ar: DecodeRow,
  costRatio: number,
): { measured: number; ideal: number; excess: PhaseProfile } {
  const arStep = profileTotal(ar.profile);
  const excess = zeroProfile();
  for (const phase of PROFILE_PHASES) excess[phase] = row.profile[phase] - ar.profile[phase];
  excess.draft -= row.L * costRatio * arStep;
  return { measured: profileTotal(row.profile), ideal: (row.L * costRatio + 1) * arStep, excess };
}

export const EXCESS_TABLE_HEADER = [
  `| preset | method | K | L | ms/step | ideal ms/step | excess | ${PROFILE_PHASES.map((phase) => `${phase} +`).join(' | ')} |`,
  `|---|---|---|---|---|---|---|${PROFILE_PHASES.map(() => '---').join('|')}|`,
].join('\n');

export function formatExcessRow(row: DecodeRow, ar: DecodeRow, costRatio: number): string {
  const { measured, ideal, excess } = excessOverIdeal(row, ar, costRatio);
  return `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L} | ${measured.toFixed(3)} | ${ideal.toFixed(3)} | ${(measured - ideal).toFixed(3)} | ${PROFILE_PHASES.map((phase) => excess[phase].toFixed(3)).join(' | ')} |`;
}

/**
 * What the step's measured cost allows on this machine, from the steps after each run's first (prefill is
 * a fixed cost that only pulls every ratio towards 1). A step costs `stepInArTokens` of ar's tokens, so
 * that many tokens per step only break even; `speedup` is what the row's own block efficiency gives at
 * that cost, and `ceiling` what every draft accepted (L + 1 tokens a step) would give at the same cost.
 * `draftingHidden` is the bound on drafting beside verification (on the other core): the row's block
 * efficiency at the step's cost less all of its drafting. Null where either row has no step after its first.
 * `ar` may be any baseline: its ms per output token prices the step (ar+jump-forward's, for the figures over it).
 */
export function machineAllowance(
  row: DecodeRow,
  ar: DecodeRow,
): {
  stepInArTokens: number;
  blockEfficiency: number;
  speedup: number;
  ceiling: number;
  draftingHidden: number;
} | null {
  if (row.decode.steps === 0 || ar.decode.tokens === 0) return null;
  const arMsPerToken = ar.decode.ms / ar.decode.tokens;
  const stepInArTokens = row.decode.ms / row.decode.steps / arMsPerToken;
  const blockEfficiency = row.decode.tokens / row.decode.steps;
  const undraftedInArTokens = (row.decode.ms - row.decode.draftMs) / row.decode.steps / arMsPerToken;
  return {
    stepInArTokens,
    blockEfficiency,
    speedup: blockEfficiency / stepInArTokens,
    ceiling: (row.L + 1) / stepInArTokens,
    draftingHidden: blockEfficiency / undraftedInArTokens,
  };
}

export const ALLOWANCE_TABLE_HEADER = [
  '| preset | method | K | L | ar ms/token | ms/step | a step in ar tokens | block efficiency | speedup | every draft accepted | drafting hidden | block efficiency for 1.5× |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

export function formatAllowanceRow(row: DecodeRow, ar: DecodeRow): string {
  const allowance = machineAllowance(row, ar);
  const head = `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L} | ${cell(ar.decode.tokens === 0 ? null : ar.decode.ms / ar.decode.tokens, 3)} | ${cell(row.decode.steps === 0 ? null : row.decode.ms / row.decode.steps, 3)}`;
  if (allowance === null) return `${head} | — | — | — | — | — | — |`;
  const { stepInArTokens, blockEfficiency, speedup, ceiling, draftingHidden } = allowance;
  return `${head} | ${stepInArTokens.toFixed(2)} | ${blockEfficiency.toFixed(2)} | ${speedup.toFixed(2)}× | ${ceiling.toFixed(2)}× | ${draftingHidden.toFixed(2)}× | ${(1.5 * stepInArTokens).toFixed(2)} |`;
}

/** The profile table of every row, then the excess table of every speculative row against its preset's ar, then what the machine allows. */
export function profileMarkdown(rows: readonly DecodeRow[], costRatio: number): string {
  const arOf = (row: DecodeRow) =>
    rows.find((candidate) => candidate.preset === row.preset && candidate.method === 'ar');
  const speculative = rows.filter((row) => !isBaseline(row.method) && arOf(row));
  return [
    "**Per-phase profile** (ms per step, every step of every seed of every round, steps being one round's; the first step of a run is prefill)",
    '',
    PROFILE_TABLE_HEADER,
    ...rows.map((row) => formatProfileRow(row, arOf(row))),
    '',
    "**Excess over the ideal** (ms per step; each phase's allowance is ar's time in it, and L·c ar steps for drafting)",
    '',
    EXCESS_TABLE_HEADER,
    ...speculative.map((row) => formatExcessRow(row, arOf(row) as DecodeRow, costRatio)),
    '',
    `**What this machine allows** (the steps after each run's first: ar's ms per token, the row's ms per step, and that step priced in ar tokens, which is the block efficiency that only breaks even; the speedup the row's block efficiency gives at that cost, the ceiling with every draft accepted, L + 1 tokens a step, and the speedup with the step's drafting wholly hidden, the bound on drafting beside verification)`,
    '',
    ALLOWANCE_TABLE_HEADER,
    ...speculative.map((row) => formatAllowanceRow(row, arOf(row) as DecodeRow)),
  ].join('\n');
}

/** A row as the bench's JSON and CSV write it: snake_case keys, vLLM-style counters (R, I, D, A, steps) beside the ratios. */
export function decodeRowJson(row: DecodeRow) {
  const { counters, speedupInterval, ...rest } = row;
  const { R, I, D, A, steps } = counterFields(counters);
  const noise =
    row.method === 'ar'
      ? {}
      : {
          speedup_ci95: intervalJson(speedupInterval, 3),
          speedup_within_noise_of_ar: contains(speedupInterval, 1),
          speedup_verdict: verdictOf(speedupInterval),
        };
  return { ...(snakeKeys(rest) as Record<string, unknown>), ...noise, R, I, D, A, steps };
}
