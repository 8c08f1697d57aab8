/** What a finished run reports: its output, counters, verdict and timings, with the parameters it ran with. */
import type { Counters, exportCounters } from '../core/metrics';
import type { RunParams } from './runParams';
import type { ScoringPath, StepTimings } from './stepRecord';

/** Why an output ended; each names its own cause, so a full context is never called a token limit. */
export type DecodeEnding = 'stopped' | 'max-tokens' | 'context-full' | 'dead-end' | 'cancelled';

/** The scorecard's correctness rows for one completed output. */
export type OutputVerdict =
  | { kind: 'valid' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'truncated'; reason: string }
  | { kind: 'dead-end'; reason: string };

export interface DecodeResult {
  tokens: number[];
  text: string;
  /** The constrained part of the output, the stop token excluded (the whole output without a schema). */
  json: string;
  counters: Counters;
  verdict: OutputVerdict | null;
  ending: DecodeEnding;
  /** Index into `tokens` where the constraint began, or null when the trigger never appeared. */
  constraintStart: number | null;
  timings: StepTimings;
  /** Target forwards: one per step. */
  steps: number;
  /**
   * Over the speculative steps: the positions the target scored, what the batched path would have scored,
   * and the steps each path ran (all zero for ar).
   */
  scoring: ScoringTotals;
  /** Where the run drafted ahead (src/engine/draftAhead.ts): blocks drafted during the step before, and those a step took. */
  draftedAhead?: { drafted: number; taken: number };
}

export interface ScoringTotals {
  positions: number;
  batchedPositions: number;
  treeSteps: number;
  batchedSteps: number;
}

export const addScoringTotals = (a: ScoringTotals, b: ScoringTotals): ScoringTotals => ({
  positions: a.positions + b.positions,
  batchedPositions: a.batchedPositions + b.batchedPositions,
  treeSteps: a.treeSteps + b.treeSteps,
  batchedSteps: a.batchedSteps + b.batchedSteps,
});

export interface PositionsPerStep {
  /** The path the steps ran on ('mixed' when runs summed here used both). */
  path: ScoringPath | 'mixed';
  /** Mean target positions per speculative step, and the batched path's for the same steps. */
  mean: number;
  batched: number;
}

/** Null without a speculative step: ar, or a run kept (history) from before positions were counted. */
export function positionsPerStep(scoring: ScoringTotals | undefined): PositionsPerStep | null {
  const steps = scoring ? scoring.treeSteps + scoring.batchedSteps : 0;
  if (!scoring || steps === 0) return null;
  const path = scoring.batchedSteps === 0 ? 'tree' : scoring.treeSteps === 0 ? 'batched' : 'mixed';
  return { path, mean: scoring.positions / steps, batched: scoring.batchedPositions / steps };
}

/** "7.2 tree (batched 15.0)", "15.0 batched": the bench's positions/step cell, in the CLI and the app. */
export function describePositions(perStep: PositionsPerStep | null): string {
  if (!perStep) return '—';
  if (perStep.path === 'batched') return `${perStep.mean.toFixed(1)} batched`;
  return `${perStep.mean.toFixed(1)} ${perStep.path} (batched ${perStep.batched.toFixed(1)})`;
}

export interface RunReport extends DecodeResult {
  /** The parameters as the run used them: K is the drafts it read (reportedK), 1 for a single-draft method. */
  params: RunParams;
  /** The K the caller asked for. */
  requestedK: number;
  /** Schema keywords xgrammar does not enforce exactly (the JSON-schema validator still checks them). */
  unenforced: readonly string[];
  wallMs: number;
  /**
   * wallMs less the teaching analyses (timings.analysis) and the time the run waited on its onStep (pauses, single
   * steps, slow motion): the engine's own work.
   */
  generationMs: number;
  /** Tokens over generationMs. */
  tokensPerSecond: number;
  metrics: ReturnType<typeof exportCounters>;
}
