import type { RandomSource } from '../random';
import { drawResidual, emittedTokens, sumOf, type DraftBlockView } from './view';
import type { BlockTrace, VerifyOutcome } from './types';

export interface BlockDecision {
  /** Accepted tokens of the block, 0..n. */
  tau: number;
  trace: BlockTrace;
  /** Unnormalised residual R_tau when tau < n, else null (the caller draws the bonus). */
  residual: Float64Array | null;
  /** Target row at block position tau, (root-aware): the fallback for an empty residual. */
  residualFallback: Float64Array | null;
}

/**
 * Greedy block verification (Sun et al. 2024; spec §2) of d_k[start..L), where the first target row may be
 * replaced by `rootTarget` (a normalised residual, for recursive GBV). With n = L − start:
 *   w_i = min(1, w_{i−1} · t_i(x_i) / q_i(x_i)),  R_i = max(0, w_i · t_{i+1} − q_{i+1}),  Z_i = ΣR_i,
 *   h_i = Z_i / (Z_i + 1 − w_i) for i < n (1 when the denominator is 0),  h_n = w_n,
 *   τ = the largest i with η_i ≤ h_i, found by scanning backwards and stopping at the first success.
 */
export function greedyBlock(
  view: DraftBlockView,
  k: number,
  start: number,
  rootTarget: Float64Array | null,
  source: RandomSource,
): BlockDecision {
  const n = view.L - start;
  const targetAt = (i: number): Float64Array => (i === 0 && rootTarget ? rootTarget : view.targetRow(k, start + i));
  const weights = new Float64Array(n + 1);
  weights[0] = 1;
  const trace: BlockTrace = {
    start,
    weights,
    masses: new Float64Array(n + 1).fill(NaN),
    stops: new Float64Array(n + 1).fill(NaN),
  };
  for (let i = 1; i <= n; i++) {
    const token = view.token(k, start + i - 1);
    const ratio = (targetAt(i - 1)[token] as number) / (view.draftRow(k, start + i - 1)[token] as number);
    // A zero weight stays zero: 0 · ratio is NaN when the draft probability underflows and ratio is ∞.
    const previous = weights[i - 1] as number;
    weights[i] = previous === 0 ? 0 : Math.min(1, previous * ratio);
  }
  const residualAt = (i: number): Float64Array => {
    const target = targetAt(i);
    const draft = view.draftRow(k, start + i);
    const w = weights[i] as number;
    const residual = new Float64Array(view.V);
    for (let x = 0; x < view.V; x++) residual[x] = Math.max(0, w * (target[x] as number) - (draft[x] as number));
    return residual;
  };

  trace.stops[n] = weights[n] as number;
  const rootResidual = rootTarget !== null;
  source.explain?.({
    kind: 'block-test',
    draft: k,
    start,
    i: n,
    n,
    w: weights[n] as number,
    Z: NaN,
    h: weights[n] as number,
    rootResidual,
  });
  if (source.bernoulli(weights[n] as number)) return { tau: n, trace, residual: null, residualFallback: null };
  for (let i = n - 1; i >= 1; i--) {
    const residual = residualAt(i);
    const mass = sumOf(residual);
    // 1 − w first: (mass + 1) − w can round below mass and push h above 1.
    const denominator = mass + (1 - (weights[i] as number));
    const stop = denominator === 0 ? 1 : mass / denominator;
    trace.masses[i] = mass;
    trace.stops[i] = stop;
    source.explain?.({
      kind: 'block-test',
      draft: k,
      start,
      i,
      n,
      w: weights[i] as number,
      Z: mass,
      h: stop,
      rootResidual,
    });
    if (source.bernoulli(stop)) return { tau: i, trace, residual, residualFallback: targetAt(i) };
  }
  return { tau: 0, trace, residual: residualAt(0), residualFallback: targetAt(0) };
}

/** Draws the correction token of a block decision that stopped short (tau < n). */
export function drawBlockCorrection(decision: BlockDecision, k: number, source: RandomSource): number {
  if (!decision.residual || !decision.residualFallback) throw new Error('a full block has no correction token');
  source.explain?.({
    kind: 'final',
    law: 'block-residual',
    draft: k,
    position: decision.trace.start + decision.tau,
    fallback: !(sumOf(decision.residual) > 0),
  });
  return drawResidual((w) => source.categorical(w), decision.residual, decision.residualFallback);
}

/** GBV on draft 0. */
export function verifyGbv(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  const decision = greedyBlock(view, 0, 0, null, source);
  if (decision.tau === view.L)
    source.explain?.({ kind: 'final', law: 'bonus', draft: 0, position: view.L, fallback: false });
  const finalToken =
    decision.tau === view.L ? source.categorical(view.targetRow(0, view.L)) : drawBlockCorrection(decision, 0, source);
  return {
    draft: 0,
    accepted: decision.tau,
    tokens: emittedTokens(view, 0, decision.tau, finalToken),
    trace: decision.trace,
  };
}
