/**
 * What a verifier says about each random choice (a `DecisionNote`, given to `source.explain` or `source.note`,
 * src/core/random.ts) and the record a tracing source keeps of it (src/core/trace.ts).
 *
 * A method adds its own decision kinds to `DecisionNote`; `src/core/explain.ts` must then say how each
 * reads, and what it does to the K×L cells (the compiler holds it to that: its tables cover every kind).
 */
/** Token-wise test of d_k[position]: accept with min(1, p/q) (spec §1). */
export interface TokenTestNote {
  kind: 'token-test';
  draft: number;
  position: number;
  token: number;
  /** Target (p) and draft (q) probabilities of the token. */
  p: number;
  q: number;
}

/**
 * GBV's stopping test at block position i (spec §2): accept the block's first i tokens with h_i; i = n is
 * the whole block (h_n = w_n), i < n uses h_i = Z_i / (Z_i + 1 − w_i). The block covers d_k[start..start+n).
 */
export interface BlockTestNote {
  kind: 'block-test';
  draft: number;
  start: number;
  i: number;
  n: number;
  w: number;
  /** Z_i, NaN for i = n. */
  Z: number;
  h: number;
  /** Recursive GBV: the block's root target is the previous block's normalised residual. */
  rootResidual: boolean;
}

/**
 * One candidate at a SpecTr node (spec §3): the drafts still alive at `position`, the candidate being
 * tested, and the K-SEQ quantities ρ* and β(ρ*); accept with min(1, p / (ρ*·q)).
 */
export interface KSeqTestNote {
  kind: 'kseq-test';
  position: number;
  alive: number[];
  candidate: number;
  draft: number;
  token: number;
  p: number;
  q: number;
  rho: number;
  beta: number;
}

/** Recursive rejection (Yang et al.): accept with min(1, r/q), r the target after the earlier rejections. */
export interface RecursiveTestNote {
  kind: 'recursive-test';
  position: number;
  alive: number[];
  candidate: number;
  draft: number;
  token: number;
  r: number;
  q: number;
}

/**
 * optimal-tree's node: one categorical over the transport plan's flows to the candidates' tokens,
 * then the unmatched mass (rejection). `cumulative[c]` is F_c, the share of classes 0..c; the last is 1.
 */
export interface TransportChoiceNote {
  kind: 'transport-choice';
  position: number;
  alive: number[];
  /** The alive drafts' tokens at this position, in the order of `alive`. */
  tokens: number[];
  /** The token each weight but the last stands for (-1: a lumped class, which gets no flow); the last weight is rejection. */
  classTokens: number[];
  cumulative: number[];
  /** α*: the probability this node accepts, over fresh candidates. */
  alpha: number;
}

/** SpecTr-GBV chose `draft` to block-verify from `from`; the drafts before it were used or disagreed. */
export interface DraftSelectedNote {
  kind: 'draft-selected';
  draft: number;
  from: number;
  skipped: { draft: number; reason: 'used' | 'disagrees'; at: number }[];
}

/** SpecTr-GBV found no unused draft that agrees with the accepted prefix: the residual r gives the final token. */
export interface DraftsExhaustedNote {
  kind: 'drafts-exhausted';
  from: number;
  skipped: { draft: number; reason: 'used' | 'disagrees'; at: number }[];
}

/** Which law the final token comes from, and where it lands. */
export type FinalLaw =
  | 'bonus'
  | 'residual'
  | 'block-residual'
  | 'kseq-residual'
  | 'recursive-residual'
  | 'chained-residual'
  | 'transport-residual';

export interface FinalNote {
  kind: 'final';
  law: FinalLaw;
  draft: number;
  /** The final token's position: the number of accepted tokens. */
  position: number;
  /** True when rounding emptied the residual and the target row stood in for it. */
  fallback: boolean;
}

export type DecisionNote =
  | TokenTestNote
  | BlockTestNote
  | KSeqTestNote
  | RecursiveTestNote
  | TransportChoiceNote
  | DraftSelectedNote
  | DraftsExhaustedNote
  | FinalNote;

/** A draw as it happened; a categorical draw keeps its weights only inside the worker (see `toRecords`). */
export type Draw =
  { kind: 'bernoulli'; p: number; u: number; value: boolean } | { kind: 'categorical'; u: number; index: number };

export interface DecisionRecord {
  /** What the verifier said the choice was about; null for an undescribed draw. */
  note: DecisionNote | null;
  /** The draw, or null for a choice that drew nothing. */
  draw: Draw | null;
}
