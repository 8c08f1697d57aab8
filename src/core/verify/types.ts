export interface VerifyProblem {
  K: number;
  L: number;
  V: number;
  /** K×L token ids, row-major. */
  drafts: Int32Array;
  /** K×L×V: the distribution drafts[k][j] was sampled from. */
  draftProbs: Float64Array;
  /** K×(L+1)×V: row j = target distribution after drafts[k][0..j). */
  targetProbs: Float64Array;
}

export interface VerifyOutcome {
  /** Index of the draft whose prefix was emitted. */
  draft: number;
  /** Accepted draft tokens. */
  accepted: number;
  /** The accepted draft tokens, then the one correction or bonus token. */
  tokens: Int32Array;
  /** GBV and SpecTr-GBV: the scalars of the block the emitted tokens came from, for the step inspector. */
  trace?: BlockTrace;
}

/**
 * One GBV block over d_k[start..L), n = L − start, indexed by block position i = 0..n (NaN where the rule
 * did not need the value): w_i the capped weight (w_0 = 1), Z_i the residual mass, h_i the stop
 * probability. Z_i and h_i are computed only for the positions the backward scan reached.
 */
export interface BlockTrace {
  start: number;
  weights: Float64Array;
  masses: Float64Array;
  stops: Float64Array;
}
