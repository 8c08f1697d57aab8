/** What one decode step reports: the record the engine streams to the page, one per target forward. */
import type { DraftSource } from '../core/draftLaw';
import type { StepCounts } from '../core/metrics';
import type { DistributionSummary, TopEntry } from '../core/sampling';
import type { DecisionRecord } from '../core/decisions';
import type { VerifyPath } from './stepVerifier';

export type TokenOrigin = 'draft' | 'correction' | 'bonus' | 'target';

export interface EmittedToken {
  token: number;
  origin: TokenOrigin;
  /** The (masked) target's probability of this token at its position. */
  targetProb: number;
  /** The drafter's probability, for accepted draft tokens. */
  draftProb?: number;
  /** The (masked) target law's heaviest tokens at this position, heaviest first: only when the run asked for them (DecodeOptions.topTokens). */
  targetTop?: TopEntry[];
}

export interface StepTimings {
  draft: number;
  mask: number;
  target: number;
  verify: number;
  /** KV-cache gathers: broadcasting the shared prefix to K rows, keeping the chosen row, trimming. */
  kv: number;
  overhead: number;
  /** The teaching analyses (the final token's law, the accepted length's law): not generation. */
  analysis: number;
}

/**
 * How the target scored a step's K×(L+1) rows. 'tree': one batch-1 forward over the fresh context tokens and
 * each distinct draft prefix once (position ids by depth, an ancestor mask); 'batched': K rows of the fresh
 * tokens and one draft each, shared prefixes scored once per draft.
 */
export type ScoringPath = 'tree' | 'batched';

export interface TargetScoring {
  path: ScoringPath;
  /** Positions the target's forward ran this step (the fresh context tokens included). */
  positions: number;
  /** What the batched forward runs for the same step: K × (fresh tokens + L). */
  batchedPositions: number;
  /** Why the batched path ran, when it did; null on the tree path. */
  reason: string | null;
}

/** The path a pair's steps score on, and why it is the batched one when it is (the engine's ready info). */
export type ScoringPlan = Pick<TargetScoring, 'path' | 'reason'>;

export const zeroTimings = (): StepTimings => ({
  draft: 0,
  mask: 0,
  target: 0,
  verify: 0,
  kv: 0,
  overhead: 0,
  analysis: 0,
});

export interface StepRecord {
  index: number;
  /** K×L drafted tokens (empty for ar), with their draft and target probabilities. */
  drafts: number[][];
  draftProbs: number[][];
  targetProbs: number[][];
  /** Tokens each draft proposed (L unless it stopped early) and how many of them the grammar allowed. */
  draftLengths: number[];
  validLengths: number[];
  /** Where each proposed token came from: the draft model, the schema's forced text, or prompt lookup. */
  draftSources: DraftSource[][];
  /** The draft whose prefix was emitted, and how many of its tokens. */
  chosen: number;
  accepted: number;
  emitted: EmittedToken[];
  /** How the target scored the drafts; null for ar (one row, nothing to merge). */
  scoring: TargetScoring | null;
  /** Where the step was verified, and whether the WGSL kernels read the target's logits in place. */
  verifiedOn: VerifyPath | null;
  /** The law the final (correction or bonus) token was drawn from: its top and support; null for ar. */
  finalLaw: DistributionSummary | null;
  /**
   * P(accepted = j | this step's drafts), j = 0..L, exact (every verifier choice enumerated): summed over
   * steps, the histogram's expectation. Null where the enumeration would exceed its budget.
   */
  lengthLaw: number[] | null;
  /**
   * The first position of the step: α*, the most any lossless verifier of these K i.i.d. drafts accepts
   * there (averaged over fresh drafts), and P(at least one token accepted | these drafts) for this step's
   * verifier (null where lengthLaw is). Null for ar.
   */
  firstPosition: { optimum: number; achieved: number | null } | null;
  /** The GBV block scalars w_i, Z_i, h_i (gbv and spectr-gbv). */
  trace: { start: number; weights: number[]; masses: number[]; stops: number[] } | null;
  /** The verifier's own account of every choice, with its uniform (src/core/decisions.ts); null for ar, or where the CPU replay of a GPU step differed. */
  decisions: DecisionRecord[] | null;
  counts: StepCounts;
  timings: StepTimings;
}
