export type MethodId = 'tokenwise' | 'gbv' | 'spectr' | 'spectr-gbv';
/** The shipped methods plus the multi-candidate recursive-rejection tree (Yang et al. 2024), a baseline. */
export type VerifierId = MethodId | 'recursive-rejection';

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
}
