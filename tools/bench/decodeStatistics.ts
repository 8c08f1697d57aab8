/**
 * The decode bench's figures derived from its rows (tools/bench/decodeBench.ts): each configuration's median
 * over presets, what this machine's measured step cost allows, the excess over the ideal phase by phase,
 * and their Markdown tables (the profile, the excess and the allowance).
 */
import { spreadOf } from '../../src/core/fairTiming';
import { isBaseline, type DecodeMethod } from '../../src/contract/runParams';
import { sourceRatios } from '../../src/core/metrics';
import {
  PROFILE_PHASES,
  cell,
  configLabel,
  sameConfig,
  profileTotal,
  times,
  zeroProfile,
  type BenchConfig,
  type DecodeRow,
  type PhaseProfile,
} from './decodeBench';

/**
 * One preset's step priced in a baseline's tokens (the steps after each run's first): the step, the step less
 * its drafting, the tokens it emits, the speedup they give, the ceiling with every draft accepted, the bound
 * with drafting wholly hidden and the bound with the next block drafted ahead (`machineAllowance`).
 */
export interface StepPricing {
  preset: string;
  step: number;
  undrafted: number;
  tokens: number;
  laterSteps: number;
  ceiling: number;
  draftingHidden: number;
  /** Null for a row that drafts ahead already. */
  draftAhead: number | null;
}

/** A (method, K, L)'s median over presets of its median speedup, beside the medians of its ideal and of this machine's ceiling. */
export interface PresetSummary extends BenchConfig {
  presets: number;
  speedup: number;
  /** The median over presets of the row's speedup over ar+jump-forward; null where a preset has none. */
  speedupOverJumpForward: number | null;
  idealSpeedup: number | null;
  /** `machineAllowance`'s ceiling: every draft accepted, at the measured step cost; null where a preset has none. */
  ceiling: number | null;
  /** `machineAllowance`'s bound with the step's drafting wholly hidden; null where a preset has none. */
  draftingHidden: number | null;
  /** `machineAllowance`'s bound with the next block drafted during verification; null where a preset has none. */
  draftAhead: number | null;
  /**
   * The median preset's step, priced in ar's tokens and in ar+jump-forward's: the preset whose steps after its
   * first give the median speedup (the lower of the two middle ones for an even count). A goal line prints one
   * preset's figures throughout, since medians taken figure by figure can come from different presets and
   * contradict each other. Null where a preset has no step after its first (or the baseline did not run).
   */
  pricing: StepPricing | null;
  pricingOverJumpForward: StepPricing | null;
  /** Per round, the median over presets of that round's speedup: the pairs a goal line is judged on. */
  roundMedians: number[];
}

/** The preset at the median of the later steps' speedup, priced from its allowance; null where any preset has none. */
function medianPreset(
  same: readonly DecodeRow[],
  allowances: readonly (ReturnType<typeof machineAllowance> | null)[],
): StepPricing | null {
  const priced = allowances.map((allowance, index) =>
    allowance
      ? {
          preset: (same[index] as DecodeRow).preset,
          step: allowance.stepInArTokens,
          undrafted: allowance.blockEfficiency / allowance.draftingHidden,
          tokens: allowance.blockEfficiency,
          laterSteps: allowance.speedup,
          ceiling: allowance.ceiling,
          draftingHidden: allowance.draftingHidden,
          draftAhead: allowance.draftAhead,
        }
      : null,
  );
  if (priced.length === 0 || priced.some((each) => each === null)) return null;
  const sorted = (priced as StepPricing[]).sort((a, b) => a.laterSteps - b.laterSteps);
  return sorted[Math.floor((sorted.length - 1) / 2)] as StepPricing;
}

/** The figure the goals are stated in: per speculative configuration, the median over presets of each row's median speedup. */
export function summaryOverPresets(rows: readonly DecodeRow[]): PresetSummary[] {
  const summaries: PresetSummary[] = [];
  for (const row of rows) {
    const sameAsRow = (config: BenchConfig) => sameConfig(config, row);
    if (isBaseline(row.method) || summaries.some(sameAsRow)) continue;
    const same = rows.filter(sameAsRow);
    const ideals = same.map((candidate) => candidate.idealSpeedup).filter((ideal): ideal is number => ideal !== null);
    const allowanceOver = (baseline: DecodeMethod) =>
      same.map((candidate) => {
        const base = rows.find(({ preset, method }) => preset === candidate.preset && method === baseline);
        return base ? machineAllowance(candidate, base) : null;
      });
    const allowances = allowanceOver('ar');
    const medianOf = (values: (number | undefined)[]) =>
      values.every((value) => value !== undefined) ? spreadOf(values as number[]).median : null;
    const rounds = Math.min(...same.map((candidate) => candidate.roundSpeedups.length));
    summaries.push({
      method: row.method,
      K: row.K,
      L: row.L,
      drafter: row.drafter,
      ...(row.draftingAhead ? { draftingAhead: true as const } : {}),
      presets: same.length,
      roundMedians: Array.from(
        { length: rounds },
        (_, round) => spreadOf(same.map((candidate) => candidate.roundSpeedups[round] as number)).median,
      ),
      speedup: spreadOf(same.map((candidate) => candidate.speedup)).median,
      speedupOverJumpForward: medianOf(same.map((candidate) => candidate.speedupOverJumpForward ?? undefined)),
      idealSpeedup: ideals.length === same.length ? spreadOf(ideals).median : null,
      ceiling: medianOf(allowances.map((allowance) => allowance?.ceiling)),
      draftingHidden: medianOf(allowances.map((allowance) => allowance?.draftingHidden)),
      draftAhead: medianOf(allowances.map((allowance) => allowance?.draftAhead ?? undefined)),
      pricing: medianPreset(same, allowances),
      pricingOverJumpForward: medianPreset(same, allowanceOver('ar+jump-forward')),
    });
  }
  return summaries;
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
 * efficiency at the step's cost less all of its drafting. `draftAhead` is the most that drafting the next block
 * during this one's verification could give (docs/performance.md, "The second core"): an early block is of use
 * only after a block accepted whole (histogram[L] of the steps), so only that share of drafting is hidden, and
 * nothing is charged for passing blocks between threads; null for a row that drafts ahead already (its drafting
 * overlaps the target's as measured). Null where either row has no step after its first.
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
  draftAhead: number | null;
} | null {
  if (row.decode.steps === 0 || ar.decode.tokens === 0) return null;
  const arMsPerToken = ar.decode.ms / ar.decode.tokens;
  const stepInArTokens = row.decode.ms / row.decode.steps / arMsPerToken;
  const blockEfficiency = row.decode.tokens / row.decode.steps;
  const undraftedInArTokens = (row.decode.ms - row.decode.draftMs) / row.decode.steps / arMsPerToken;
  const { histogram, steps } = row.counters;
  const wholeBlocks = steps === 0 ? 0 : (histogram[row.L] ?? 0) / steps;
  const draftedAheadInArTokens = (row.decode.ms - wholeBlocks * row.decode.draftMs) / row.decode.steps / arMsPerToken;
  return {
    stepInArTokens,
    blockEfficiency,
    speedup: blockEfficiency / stepInArTokens,
    ceiling: (row.L + 1) / stepInArTokens,
    draftingHidden: blockEfficiency / undraftedInArTokens,
    draftAhead: row.draftingAhead ? null : blockEfficiency / draftedAheadInArTokens,
  };
}

export const ALLOWANCE_TABLE_HEADER = [
  '| preset | method | K | L | ar ms/token | ms/step | a step in ar tokens | block efficiency | speedup | every draft accepted | drafting hidden | drafting ahead, at most | block efficiency for 1.5× |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

export function formatAllowanceRow(row: DecodeRow, ar: DecodeRow): string {
  const allowance = machineAllowance(row, ar);
  const head = `| ${row.preset} | ${configLabel(row)} | ${row.K} | ${row.L} | ${cell(ar.decode.tokens === 0 ? null : ar.decode.ms / ar.decode.tokens, 3)} | ${cell(row.decode.steps === 0 ? null : row.decode.ms / row.decode.steps, 3)}`;
  if (allowance === null) return `${head} | — | — | — | — | — | — | — |`;
  const { stepInArTokens, blockEfficiency, speedup, ceiling, draftingHidden, draftAhead } = allowance;
  return `${head} | ${stepInArTokens.toFixed(2)} | ${blockEfficiency.toFixed(2)} | ${speedup.toFixed(2)}× | ${ceiling.toFixed(2)}× | ${draftingHidden.toFixed(2)}× | ${times(draftAhead)} | ${(1.5 * stepInArTokens).toFixed(2)} |`;
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
    `**What this machine allows** (the steps after each run's first: ar's ms per token, the row's ms per step, and that step priced in ar tokens, which is the block efficiency that only breaks even; the speedup the row's block efficiency gives at that cost, the ceiling with every draft accepted, L + 1 tokens a step, the speedup with the step's drafting wholly hidden, the bound on drafting beside verification, and the most that drafting the next block during verification could give: only after a block accepted whole, with nothing charged for passing it between threads)`,
    '',
    ALLOWANCE_TABLE_HEADER,
    ...speculative.map((row) => formatAllowanceRow(row, arOf(row) as DecodeRow)),
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
