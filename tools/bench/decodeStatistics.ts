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
  profileTotal,
  zeroProfile,
  type BenchConfig,
  type DecodeRow,
  type PhaseProfile,
} from './decodeBench';

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
  /** `machineAllowance`'s speedup of the steps after each run's first: each preset's ratio, then the median; null where a preset has none. */
  laterStepsSpeedup: number | null;
  /**
   * The same step priced in ar+jump-forward's tokens, the ceiling, the later steps' speedup and the bound with
   * drafting hidden over it (medians); null where it did not run.
   */
  overJumpForward: {
    stepInTokens: number;
    ceiling: number;
    undraftedInTokens: number;
    laterStepsSpeedup: number;
    draftingHidden: number;
  } | null;
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
      laterStepsSpeedup: medianOf(allowances.map((allowance) => allowance?.speedup)),
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
            laterStepsSpeedup: spreadOf(overJump.map((allowance) => allowance.speedup)).median,
            draftingHidden: spreadOf(overJump.map((allowance) => allowance.draftingHidden)).median,
          }
        : null,
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
