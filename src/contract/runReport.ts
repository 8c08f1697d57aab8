/** What a finished run reports: its output, counters, verdict and timings, with the parameters it ran with. */
import type { Counters, exportCounters } from '../core/metrics';
import type { OutputVerdict } from '../grammar/score';
import type { RunParams } from './runParams';
import type { StepTimings } from './stepRecord';

export type DecodeEnding = 'stopped' | 'max-tokens' | 'context-full' | 'dead-end' | 'cancelled';

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
}

export interface ScoringTotals {
  positions: number;
  batchedPositions: number;
  treeSteps: number;
  batchedSteps: number;
}

export interface RunReport extends DecodeResult {
  /** The parameters as the run used them: K is the drafts it read (reportedK), 1 for a single-draft method. */
  params: RunParams;
  /** The K the caller asked for. */
  requestedK: number;
  /** Schema keywords xgrammar does not enforce exactly (ajv still checks them). */
  unenforced: readonly string[];
  wallMs: number;
  /** wallMs less the teaching analyses (timings.analysis): what generation itself took. */
  generationMs: number;
  /** Tokens over generationMs. */
  tokensPerSecond: number;
  metrics: ReturnType<typeof exportCounters>;
}
