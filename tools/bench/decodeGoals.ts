/**
 * The decode bench's goals and the prose under its tables: the speedup goals, each judged by the shared
 * verdict rule over rounds, and the term that stops a goal not met (target positions, drafting cost or
 * acceptance), from the figures in tools/bench/decodeStatistics.ts.
 */
import { spreadOf } from '../../src/core/fairTiming';
import { MIN_SAMPLES_FOR_VERDICT, compareRatios } from '../../src/core/verdict';
import type { MethodId } from '../../src/core/verify';
import { samplesNothing, usesHead, type DrafterId } from '../../src/core/draftLaw';
import { JUMP_FORWARD_L, configLabel, times, type DecodeRow } from './decodeBench';
import { sourceMarkdown, summaryOverPresets, type PresetSummary, type StepPricing } from './decodeStatistics';

/** The speed goals, median over presets against ar in the same run (the summary says whether this machine allows them). */
export const SPEEDUP_GOALS: readonly { method: MethodId; K: number; L: number; goal: number }[] = [
  { method: 'tokenwise', K: 1, L: 4, goal: 1.6 },
  { method: 'spectr-gbv', K: 3, L: 4, goal: 1.25 },
];

/** The draft head's goals behind the schema: over ar and over ar+jump-forward, medians over presets. */
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

/** The same figures for the drafters that copy the prompt's values. */
export const COPY_SPEEDUP_GOALS: typeof HEAD_SPEEDUP_GOALS = (['model+grammar+copy', 'copy'] as const).flatMap(
  (drafter) => [
    { method: 'tokenwise', K: 1, L: 4, drafter, goal: 1.8, overJumpForward: 1.25 },
    { method: 'spectr-gbv', K: 3, L: 4, drafter, goal: 1.4, overJumpForward: 1.0 },
  ],
);

/** The goal for the copied tokens themselves: A/D of the copy source on every preset that copies values. */
export const COPY_ACCEPTANCE_GOAL = 0.8;

export function formatSummary(summaries: readonly PresetSummary[]): string {
  const entries = summaries.map((summary) => {
    const { K, L, speedup, speedupOverJumpForward, idealSpeedup, ceiling, draftingHidden, draftAhead } = summary;
    const overJump =
      speedupOverJumpForward === null ? '' : `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward; `;
    return `${configLabel(summary)} K = ${K}, L = ${L}: ${speedup.toFixed(2)}× (${overJump}ideal ${times(idealSpeedup)}; ceiling here ${times(ceiling)}; drafting hidden ${times(draftingHidden)}; drafting ahead at most ${times(draftAhead)})`;
  });
  return `**Median over presets** of each row's median speedup over ar, with the ideal, this machine's ceiling (every draft accepted, at the measured step cost), the bound with drafting wholly hidden and the most that drafting the next block during verification could give (drafting hidden after blocks accepted whole only; both at the measured block efficiency): ${entries.join('; ')}`;
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
        const { pricing, pricingOverJumpForward } = summary;
        if (pricing === null)
          return `${head}, not met: the interval lies below the goal (no step after the first to price).`;
        const { preset, step, tokens, ceiling, laterSteps } = pricing;
        // The same figures with the step priced in ar+jump-forward's tokens (its ms per output token), its own median preset's.
        const againstJump =
          pricingOverJumpForward === null
            ? ''
            : ` Against ar+jump-forward, on ${pricingOverJumpForward.preset} (its median preset), a step costs ${pricingOverJumpForward.step.toFixed(2)} of its tokens: every draft accepted gives ${pricingOverJumpForward.ceiling.toFixed(2)}× over it, and ${goal.toFixed(2)}× over it needs ${(goal * pricingOverJumpForward.step).toFixed(2)} tokens a step (the drafts gave ${pricingOverJumpForward.tokens.toFixed(2)}).`;
        const on = `on ${preset}, the median preset,`;
        if (ceiling < goal) {
          return `${head}, out of reach on this machine: ${on} a step costs ${step.toFixed(2)} ar tokens, so even every draft accepted (${L + 1} tokens a step) gives ${ceiling.toFixed(2)}×; the goal needs a step under ${((L + 1) / goal).toFixed(2)} ar tokens.${againstJump}`;
        }
        const needed = `at ${step.toFixed(2)} ar tokens a step it needs ${(goal * step).toFixed(2)} tokens a step and the drafts gave ${tokens.toFixed(2)}`;
        if (laterSteps >= goal) {
          return `${head}, not met: the interval lies below the goal, though the steps after each run's first would meet it (${on} ${needed}): the shortfall is each run's first step (prefill) and setup, which the speedup includes.${againstJump}`;
        }
        return `${head}, not met: the interval lies below the goal; the ceiling here (${ceiling.toFixed(2)}×) allows it, but ${on} ${needed}.${againstJump}`;
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
 * Which term stops a speedup goal, from the median preset's step (one preset's figures throughout): the target
 * positions where even every draft accepted with drafting free falls short; each run's first step and setup
 * where the steps after it meet the goal as they are (the measured speedup includes them, the step's price does
 * not); `drafting`'s cost (the head's, the draft model's, copying's) where hiding drafting would meet it; else
 * acceptance (too few tokens a step).
 */
export function stoppingTerm(goal: number, L: number, pricing: StepPricing, drafting = 'head'): string {
  const { preset, step, undrafted, tokens, laterSteps, draftingHidden, draftAhead } = pricing;
  const on = `on ${preset}, the median preset`;
  if ((L + 1) / undrafted < goal) {
    return `target positions stop it: ${on}, the step without drafting costs ${undrafted.toFixed(2)} tokens (the target's positions, masks, verification), so even every draft accepted with free drafting gives ${((L + 1) / undrafted).toFixed(2)}×`;
  }
  // Never name drafting (which these steps can afford) for a miss that lies outside them.
  if (laterSteps >= goal)
    return `each run's first step (prefill) and setup stop it: ${on}, the steps after it give ${laterSteps.toFixed(2)}×, and the speedup includes them`;
  if (draftingHidden >= goal)
    return `${drafting} cost stops it: ${on}, drafting costs ${(step - undrafted).toFixed(2)} tokens a step; without it the steps would give ${draftingHidden.toFixed(2)}×${draftAhead === null ? '' : `, and drafting the next block during verification at most ${draftAhead.toFixed(2)}×`}`;
  return `acceptance stops it: ${on}, at ${step.toFixed(2)} tokens a step it needs ${(goal * step).toFixed(2)} tokens a step and the drafts gave ${tokens.toFixed(2)} (with drafting free, ${(goal * undrafted).toFixed(2)}; the steps after each run's first give ${laterSteps.toFixed(2)}×, ${draftingHidden.toFixed(2)}× with drafting hidden${draftAhead === null ? '' : `, at most ${draftAhead.toFixed(2)}× drafting ahead`})`;
}

/** A head goal's line: over ar and over ar+jump-forward, each met or the term that stops it. */
function headGoalLine(summary: PresetSummary, goal: number, overJumpGoal: number): string {
  const { K, L, speedup, speedupOverJumpForward, pricing, pricingOverJumpForward } = summary;
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
          : pricing === null
            ? `${figure}, not met (no step after the first to price)`
            : `${figure}, not met: ${stoppingTerm(goal, L, pricing, drafting)} (in ar tokens)`;
  const overJump =
    speedupOverJumpForward === null
      ? 'ar+jump-forward did not run'
      : speedupOverJumpForward >= overJumpGoal
        ? `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward (median over presets; no per-round verdict), at or above the goal`
        : pricingOverJumpForward === null
          ? `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward (median over presets), below the goal (no step after the first to price)`
          : `${speedupOverJumpForward.toFixed(2)}× over ar+jump-forward (median over presets), below the goal: ${stoppingTerm(overJumpGoal, L, pricingOverJumpForward, drafting)} (in ar+jump-forward tokens)`;
  return `${start}: ${overAr}; ${overJump}.`;
}

/**
 * The copy goal, per one-draft configuration that copied: the copy source's A/D on each preset where it
 * copied, met only where every one reaches COPY_ACCEPTANCE_GOAL. Null where no such row copied.
 */
export function copyAcceptanceLines(rows: readonly DecodeRow[]): string | null {
  // One draft only: with K drafts D counts a copied span once per draft that shares it, so A/D is at most about 1/K.
  const copying = rows.filter((row) => row.K === 1 && row.counters.bySource.copy.drafted > 0);
  const configOf = (row: DecodeRow) => `${configLabel(row)} K = ${row.K}, L = ${row.L}`;
  const configs = [...new Set(copying.map(configOf))];
  if (configs.length === 0) return null;
  const lines = configs.map((config) => {
    const per = copying
      .filter((row) => configOf(row) === config)
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
