/**
 * The paper's comparison on the bundled models: for each preset, method and (K, L), block efficiency
 * (tokens per target forward), mean acceptance length, A/D, A/R, D/R, tokens/s and the wall-clock speedup
 * over `ar` measured in the same run, beside the ideal speedup BE / (L·c + 1) from the measured block
 * efficiency and the draft/target cost ratio c. Runs the same in Node and in a browser page.
 */
import { addCounters, derivedRatios, emptyCounters } from '../../src/core/metrics';
import { METHOD_IDS, draftsUsed, type MethodId } from '../../src/core/verify';
import type { ScoringPlan, StepRecord, StepTimings } from '../../src/contract/stepRecord';
import { addScoringTotals, describePositions, positionsPerStep, type PositionsPerStep, type ScoringTotals } from '../../src/contract/runReport';
import { type SpecEngine } from '../../src/engine/engine';
import { presetParams, type DecodeMethod } from '../../src/contract/runParams';
import { SCHEMA_PRESETS } from '../../src/grammar/presets';

export const GRID: readonly { K: number; L: number }[] = [
  { K: 1, L: 2 },
  { K: 1, L: 4 },
  { K: 3, L: 2 },
  { K: 3, L: 4 },
];
export const SPECULATIVE: readonly MethodId[] = METHOD_IDS;

export interface DecodeRow {
  preset: string;
  method: DecodeMethod;
  K: number;
  L: number;
  tokens: number;
  forwards: number;
  blockEfficiency: number;
  meanAcceptanceLength: number | null;
  conditionalAcceptance: number | null;
  draftYield: number | null;
  grammarSurvival: number | null;
  tokensPerSecond: number;
  speedup: number;
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
}

/**
 * The profile's phases. The first step of a run, which also reads the prompt, is `prefill`, whole; the
 * other steps' phases are the step timings (`other` is a step's remainder: its own bookkeeping);
 * `setup` is the run's time outside its steps (grammar matcher, caches, the final verdict).
 */
export const PROFILE_PHASES = ['draft', 'mask', 'target', 'verify', 'kv', 'other', 'prefill', 'setup'] as const;
export type PhaseProfile = Record<(typeof PROFILE_PHASES)[number], number>;

const zeroProfile = (): PhaseProfile => ({ draft: 0, mask: 0, target: 0, verify: 0, kv: 0, other: 0, prefill: 0, setup: 0 });
const profileTotal = (profile: PhaseProfile) => PROFILE_PHASES.reduce((sum, phase) => sum + profile[phase], 0);
/** A step's generation time: every phase but the teaching analyses. */
const stepMs = (t: StepTimings) => t.draft + t.mask + t.target + t.verify + t.kv + t.overhead;

export interface BenchSelection {
  /** Speculative methods to run (all by default); ar always runs, as the baseline. */
  methods?: readonly MethodId[];
  /** (K, L) cells to run (GRID by default). */
  grid?: readonly { K: number; L: number }[];
  /** Process CPU time in ms, for a noise-robust second clock on a shared machine. */
  cpuClock?: () => number;
}

/**
 * Sums `seeds` runs of one configuration. `costRatio` is c = draft forward / target forward (batch 1,
 * sequence 1), measured by the caller.
 */
export async function runDecodeBench(engine: SpecEngine, seeds: number, costRatio: number, log: (line: string) => void, selection: BenchSelection = {}): Promise<DecodeRow[]> {
  const { methods = SPECULATIVE, grid = GRID, cpuClock } = selection;
  const rows: DecodeRow[] = [];
  // One untimed run of each method first: kernel compilation and allocator warm-up are not speed.
  for (const method of ['ar', ...methods] as const) await engine.run(presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number], { method }));
  for (const preset of SCHEMA_PRESETS) {
    const measure = async (method: DecodeMethod, K: number, L: number) => {
      let tokens = 0;
      let forwards = 0;
      let ms = 0;
      let valid = 0;
      let counters = emptyCounters(Math.max(L, 1));
      let scoring: ScoringTotals = { positions: 0, batchedPositions: 0, treeSteps: 0, batchedSteps: 0 };
      const perStep: StepTimings = { draft: 0, mask: 0, target: 0, verify: 0, kv: 0, overhead: 0, analysis: 0 };
      const profile = zeroProfile();
      let cpuMs = 0;
      const profileStep = ({ index, timings }: StepRecord) => {
        if (index === 0) profile.prefill += stepMs(timings);
        else for (const phase of ['draft', 'mask', 'target', 'verify', 'kv'] as const) profile[phase] += timings[phase];
        if (index > 0) profile.other += timings.overhead;
        profile.setup -= stepMs(timings);
      };
      for (let seed = 1; seed <= seeds; seed++) {
        const cpuStart = cpuClock?.() ?? 0;
        const report = await engine.run(presetParams(preset, { method, K, L: Math.max(L, 1), seed, temperature: 1 }), profileStep);
        cpuMs += (cpuClock?.() ?? 0) - cpuStart;
        profile.setup += report.generationMs;
        tokens += report.tokens.length;
        forwards += report.steps;
        ms += report.generationMs;
        if (report.verdict?.kind === 'valid') valid++;
        counters = addCounters(counters, report.counters);
        scoring = addScoringTotals(scoring, report.scoring);
        for (const phase of Object.keys(perStep) as (keyof StepTimings)[]) perStep[phase] += report.timings[phase];
      }
      for (const phase of Object.keys(perStep) as (keyof StepTimings)[]) perStep[phase] /= forwards;
      for (const phase of PROFILE_PHASES) profile[phase] /= forwards;
      const cpuMsPerStep = cpuClock ? cpuMs / forwards : null;
      return { tokens, forwards, tokensPerSecond: tokens / (ms / 1000), ratios: derivedRatios(counters), valid, perStep, profile, cpuMsPerStep, positionsPerStep: positionsPerStep(scoring) };
    };
    const baseline = await measure('ar', 1, 0);
    rows.push({
      preset: preset.id, method: 'ar', K: 1, L: 0, tokens: baseline.tokens, forwards: baseline.forwards, blockEfficiency: 1, meanAcceptanceLength: 1,
      conditionalAcceptance: null, draftYield: null, grammarSurvival: null, tokensPerSecond: baseline.tokensPerSecond, speedup: 1, idealSpeedup: 1, valid: baseline.valid, positionsPerStep: null, perStep: baseline.perStep,
      profile: baseline.profile, cpuMsPerStep: baseline.cpuMsPerStep,
    });
    log(formatDecodeRow(rows.at(-1) as DecodeRow));
    for (const { K, L } of grid) {
      for (const method of methods) {
        // A single-draft method at K > 1 would repeat its K = 1 row.
        if (draftsUsed(method, K) < K) continue;
        const result = await measure(method, K, L);
        const blockEfficiency = result.tokens / result.forwards;
        rows.push({
          preset: preset.id,
          method,
          K,
          L,
          tokens: result.tokens,
          forwards: result.forwards,
          blockEfficiency,
          meanAcceptanceLength: result.ratios.meanAcceptanceLength,
          conditionalAcceptance: result.ratios.conditionalAcceptance,
          draftYield: result.ratios.draftYield,
          grammarSurvival: result.ratios.grammarSurvival,
          tokensPerSecond: result.tokensPerSecond,
          speedup: result.tokensPerSecond / baseline.tokensPerSecond,
          idealSpeedup: blockEfficiency / (L * costRatio + 1),
          valid: result.valid,
          positionsPerStep: result.positionsPerStep,
          perStep: result.perStep,
          profile: result.profile,
          cpuMsPerStep: result.cpuMsPerStep,
        });
        log(formatDecodeRow(rows.at(-1) as DecodeRow));
      }
    }
  }
  return rows;
}

/** The table's note on how the target scored drafts, and why when batched. */
export function describeScoring(plan: ScoringPlan): string {
  return plan.path === 'tree' ? 'the target scores each step’s drafts as one token tree' : `the target scores K batched rows${plan.reason ? ` (${plan.reason})` : ''}`;
}

export const DECODE_TABLE_HEADER = [
  '| preset | method | K | L | block efficiency | 1 + A/steps | A/D | A/R | D/R | tokens/s | speedup over ar | ideal speedup | valid | target positions/step | ms/step: draft · mask · target · verify · other |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
].join('\n');

const cell = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits));

export function formatDecodeRow(row: DecodeRow): string {
  return `| ${row.preset} | ${row.method} | ${row.K} | ${row.L || '—'} | ${cell(row.blockEfficiency)} | ${cell(row.meanAcceptanceLength)} | ${cell(row.conditionalAcceptance)} | ${cell(row.draftYield)} | ${cell(row.grammarSurvival)} | ${cell(row.tokensPerSecond, 1)} | ${cell(row.speedup)}× | ${cell(row.idealSpeedup)}× | ${row.valid} | ${describePositions(row.positionsPerStep)} | ${[row.perStep.draft, row.perStep.mask, row.perStep.target, row.perStep.verify, row.perStep.overhead].map((ms) => ms.toFixed(2)).join(' · ')} |`;
}

// ── The per-phase profile ────────────────────────────────────────────────────────────────────────────

export const PROFILE_TABLE_HEADER = [
  `| preset | method | K | L | steps | ms/step | ${PROFILE_PHASES.join(' | ')} | CPU ms/step | speedup by CPU time |`,
  `|---|---|---|---|---|---|${PROFILE_PHASES.map(() => '---').join('|')}|---|---|`,
].join('\n');

/** One row's profile; the CPU speedup is tokens per CPU ms against `ar`'s (null without a CPU clock). */
export function formatProfileRow(row: DecodeRow, ar: DecodeRow | undefined): string {
  const cpuSpeedup = row.cpuMsPerStep !== null && ar?.cpuMsPerStep ? (row.blockEfficiency * ar.cpuMsPerStep) / row.cpuMsPerStep : null;
  const phases = PROFILE_PHASES.map((phase) => row.profile[phase].toFixed(3)).join(' | ');
  return `| ${row.preset} | ${row.method} | ${row.K} | ${row.L || '—'} | ${row.forwards} | ${profileTotal(row.profile).toFixed(3)} | ${phases} | ${cell(row.cpuMsPerStep, 3)} | ${cpuSpeedup === null ? '—' : `${cpuSpeedup.toFixed(2)}×`} |`;
}

/**
 * How far a speculative row's step is from the ideal's, phase by phase. The ideal BE / (L·c + 1) prices a
 * step at (L·c + 1) ar steps, so each phase's allowance is ar's own time in it per step, and drafting's
 * is L·c ar steps; the excesses sum to the row's ms/step less the ideal's.
 */
export function excessOverIdeal(row: DecodeRow, ar: DecodeRow, costRatio: number): { measured: number; ideal: number; excess: PhaseProfile } {
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
  return `| ${row.preset} | ${row.method} | ${row.K} | ${row.L} | ${measured.toFixed(3)} | ${ideal.toFixed(3)} | ${(measured - ideal).toFixed(3)} | ${PROFILE_PHASES.map((phase) => excess[phase].toFixed(3)).join(' | ')} |`;
}

/** The profile table of every row, then the excess table of every speculative row against its preset's ar. */
export function profileMarkdown(rows: readonly DecodeRow[], costRatio: number): string {
  const arOf = (row: DecodeRow) => rows.find((candidate) => candidate.preset === row.preset && candidate.method === 'ar');
  const speculative = rows.filter((row) => row.method !== 'ar' && arOf(row));
  return [
    '**Per-phase profile** (ms per step, every step of every seed; the first step of a run is prefill)',
    '',
    PROFILE_TABLE_HEADER,
    ...rows.map((row) => formatProfileRow(row, arOf(row))),
    '',
    '**Excess over the ideal** (ms per step; each phase\'s allowance is ar\'s time in it, and L·c ar steps for drafting)',
    '',
    EXCESS_TABLE_HEADER,
    ...speculative.map((row) => formatExcessRow(row, arOf(row) as DecodeRow, costRatio)),
  ].join('\n');
}
