/**
 * The paper's comparison on the bundled models: for each preset, method and (K, L), block efficiency
 * (tokens per target forward), mean acceptance length, A/D, A/R, D/R, tokens/s and the wall-clock speedup
 * over `ar` measured in the same run, beside the ideal speedup BE / (L·c + 1) from the measured block
 * efficiency and the draft/target cost ratio c. `ar+jump-forward`, the best decoder without a draft model,
 * runs beside `ar`, and every speculative row's speedup is also stated over it. Runs the same in Node and in
 * a browser page. This file runs the bench and holds its rows (each as a table line and as JSON); the
 * figures over rows and their tables are in decodeStatistics.ts, the goals and the prose under the tables in
 * decodeGoals.ts.
 */
import { addCounters, counterFields, derivedRatios, emptyCounters, type Counters } from '../../src/core/metrics';
import { snakeKeys } from '../cli/csv';
import { fairSchedule, spreadOf, type Spread } from '../../src/core/fairTiming';
import { bootstrapInterval, contains, type Interval } from '../../src/core/bootstrap';
import { VERDICT_TEXT, verdictOf } from '../../src/core/verdict';
import { intervalJson } from '../../src/contract/bench';
import { METHOD_IDS, draftsUsed, type MethodId } from '../../src/core/verify';
import type { DrafterId } from '../../src/core/draftLaw';
import type { ScoringPlan, StepRecord, StepTimings } from '../../src/contract/stepRecord';
import {
  addScoringTotals,
  describePositions,
  positionsPerStep,
  type PositionsPerStep,
  type ScoringTotals,
} from '../../src/contract/runReport';
import { type SpecEngine } from '../../src/engine/engine';
import { draftAheadRefusal } from '../../src/engine/draftAhead';
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
  /** One round's early blocks, where the row drafted ahead: drafted, and taken by the step after. */
  draftedAhead: { drafted: number; taken: number } | null;
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

export const zeroProfile = (): PhaseProfile => ({
  draft: 0,
  mask: 0,
  target: 0,
  verify: 0,
  kv: 0,
  other: 0,
  prefill: 0,
  setup: 0,
});
export const profileTotal = (profile: PhaseProfile) => PROFILE_PHASES.reduce((sum, phase) => sum + profile[phase], 0);
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
  /**
   * Each row that can draft ahead (one draft, a drafter that samples: src/engine/draftAhead.ts) runs a second
   * time drafting ahead, with the target on the engine's target thread (EngineOptions.targetThread).
   */
  draftAhead?: boolean;
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
  /** The row drafts each next block while the target, on a thread of its own, scores this one (src/engine/draftAhead.ts). */
  draftingAhead?: true;
}

/** The method column: the method, with its drafter where it is not the draft model alone, and drafting ahead where it does. */
export const configLabel = ({
  method,
  drafter,
  draftingAhead,
}: Pick<BenchConfig, 'method' | 'drafter' | 'draftingAhead'>): string => {
  const notes = [...(drafter === 'model' ? [] : [drafter]), ...(draftingAhead ? ['drafting ahead'] : [])];
  return notes.length === 0 ? method : `${method} (${notes.join(', ')})`;
};

/** Whether two configurations are the same row (presets apart). */
export const sameConfig = (a: BenchConfig, b: BenchConfig): boolean =>
  a.method === b.method &&
  a.K === b.K &&
  a.L === b.L &&
  a.drafter === b.drafter &&
  (a.draftingAhead ?? false) === (b.draftingAhead ?? false);

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
  draftedAhead: DecodeRow['draftedAhead'];
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
        .flatMap((method) =>
          drafters.flatMap((drafter): BenchConfig[] =>
            // With drafting ahead, each row that can draft ahead runs twice: drafting after, and ahead.
            selection.draftAhead === true && draftAheadRefusal({ method, K, drafter }) === null
              ? [
                  { method, K, L, drafter },
                  { method, K, L, drafter, draftingAhead: true },
                ]
              : [{ method, K, L, drafter }],
          ),
        ),
    ),
  ];
  const orders = roundOrders(configs.length, rounds);
  const rows: DecodeRow[] = [];
  // Untimed runs of each method first: kernel compilation and allocator warm-up are not speed. The target's
  // thread warms up too, with a run of each configuration that drafts ahead.
  const warmUp = presets[0] as (typeof SCHEMA_PRESETS)[number];
  for (let run = 0; run < warmUpRuns; run++) {
    for (const method of ['ar', 'ar+jump-forward', ...methods] as const)
      await engine.run(presetParams(warmUp, { method, ...runLength }));
    for (const { method, K, L, drafter } of configs.filter((config) => config.draftingAhead))
      await engine.run(presetParams(warmUp, { method, K, L, drafter, ...runLength }), undefined, undefined, {
        draftAhead: true,
      });
  }
  for (const preset of presets) {
    const measure = async ({ method, K, L, drafter, draftingAhead }: BenchConfig): Promise<RoundResult> => {
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
        draftedAhead: null,
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
          undefined,
          draftingAhead ? { draftAhead: true } : {},
        );
        if (report.draftedAhead) {
          const sum = (result.draftedAhead ??= { drafted: 0, taken: 0 });
          sum.drafted += report.draftedAhead.drafted;
          sum.taken += report.draftedAhead.taken;
        }
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
        draftedAhead: first.draftedAhead,
      });
      log(formatDecodeRow(rows.at(-1) as DecodeRow));
    });
  }
  return rows;
}

/**
 * Where rows drafted ahead: how many of each row's early blocks (one round) the step after took, by preset; ''
 * where none did.
 */
export function aheadSummary(rows: readonly DecodeRow[]): string {
  const ahead = rows.filter((row) => row.draftedAhead !== null);
  if (ahead.length === 0) return '';
  const lines = ahead.map(({ preset, draftedAhead, ...config }) => {
    const { drafted, taken } = draftedAhead as { drafted: number; taken: number };
    const share = drafted === 0 ? '' : ` (${Math.round((100 * taken) / drafted)}%)`;
    return `- ${preset}, ${configLabel(config)} K = ${config.K} L = ${config.L}: ${taken} of ${drafted}${share}`;
  });
  return `Drafting ahead: early blocks the step after took, of those drafted (one round):\n${lines.join('\n')}`;
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

export const cell = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits));
/** A ratio with its ×, or a bare — where it was not measured. */
export const times = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)}×`);

/** ar's own 1.00×; any other row's median speedup, its 95% interval over rounds and the shared verdict against ar. */
const speedupCell = (row: DecodeRow) =>
  row.method === 'ar'
    ? `${cell(row.speedup)}×`
    : `${cell(row.speedup)}× [${cell(row.speedupInterval.low)}–${cell(row.speedupInterval.high)}] ${VERDICT_TEXT[verdictOf(row.speedupInterval)]}`;

export function formatDecodeRow(row: DecodeRow): string {
  return `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L || '—'} | ${cell(row.blockEfficiency)} | ${cell(row.meanAcceptanceLength)} | ${cell(row.conditionalAcceptance)} | ${cell(row.draftYield)} | ${cell(row.grammarSurvival)} | ${cell(row.tokensPerSecond, 1)} | ${speedupCell(row)} | ${times(row.idealSpeedup)} | ${row.speedupOverJumpForward === null ? '—' : `${cell(row.speedupOverJumpForward)}×`} | ${row.valid} | ${describePositions(row.positionsPerStep)} | ${[row.perStep.draft, row.perStep.mask, row.perStep.target, row.perStep.verify, row.perStep.overhead].map((ms) => ms.toFixed(2)).join(' · ')} |`;
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
