/**
 * The paper's comparison on the bundled models: for each preset, method and (K, L), block efficiency
 * (tokens per target forward), mean acceptance length, A/D, A/R, D/R, tokens/s and the wall-clock speedup
 * over `ar` measured in the same run, beside the ideal speedup BE / (L·c + 1) from the measured block
 * efficiency and the draft/target cost ratio c. Runs the same in Node and in a browser page.
 */
import { addCounters, derivedRatios, emptyCounters } from '../../src/core/metrics';
import { METHOD_IDS, draftsUsed, type MethodId } from '../../src/core/verify';
import type { ScoringPlan, StepTimings } from '../../src/contract/stepRecord';
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
}

/**
 * Sums `seeds` runs of one configuration. `costRatio` is c = draft forward / target forward (batch 1,
 * sequence 1), measured by the caller.
 */
export async function runDecodeBench(engine: SpecEngine, seeds: number, costRatio: number, log: (line: string) => void): Promise<DecodeRow[]> {
  const rows: DecodeRow[] = [];
  // One untimed run of each method first: kernel compilation and allocator warm-up are not speed.
  for (const method of ['ar', ...SPECULATIVE] as const) await engine.run(presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number], { method }));
  for (const preset of SCHEMA_PRESETS) {
    const measure = async (method: DecodeMethod, K: number, L: number) => {
      let tokens = 0;
      let forwards = 0;
      let ms = 0;
      let valid = 0;
      let counters = emptyCounters(Math.max(L, 1));
      let scoring: ScoringTotals = { positions: 0, batchedPositions: 0, treeSteps: 0, batchedSteps: 0 };
      const perStep: StepTimings = { draft: 0, mask: 0, target: 0, verify: 0, overhead: 0, analysis: 0 };
      for (let seed = 1; seed <= seeds; seed++) {
        const report = await engine.run(presetParams(preset, { method, K, L: Math.max(L, 1), seed, temperature: 1 }));
        tokens += report.tokens.length;
        forwards += report.steps;
        ms += report.generationMs;
        if (report.verdict?.kind === 'valid') valid++;
        counters = addCounters(counters, report.counters);
        scoring = addScoringTotals(scoring, report.scoring);
        for (const phase of Object.keys(perStep) as (keyof StepTimings)[]) perStep[phase] += report.timings[phase];
      }
      for (const phase of Object.keys(perStep) as (keyof StepTimings)[]) perStep[phase] /= forwards;
      return { tokens, forwards, tokensPerSecond: tokens / (ms / 1000), ratios: derivedRatios(counters), valid, perStep, positionsPerStep: positionsPerStep(scoring) };
    };
    const baseline = await measure('ar', 1, 0);
    rows.push({
      preset: preset.id, method: 'ar', K: 1, L: 0, tokens: baseline.tokens, forwards: baseline.forwards, blockEfficiency: 1, meanAcceptanceLength: 1,
      conditionalAcceptance: null, draftYield: null, grammarSurvival: null, tokensPerSecond: baseline.tokensPerSecond, speedup: 1, idealSpeedup: 1, valid: baseline.valid, positionsPerStep: null, perStep: baseline.perStep,
    });
    log(formatDecodeRow(rows.at(-1) as DecodeRow));
    for (const { K, L } of GRID) {
      for (const method of SPECULATIVE) {
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
