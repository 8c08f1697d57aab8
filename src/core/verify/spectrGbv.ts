import type { RandomSource } from '../random';
import { greedyBlock } from './gbv';
import { emittedTokens, sumOf, type DraftBlockView } from './view';
import type { BlockTrace, VerifyOutcome } from './types';

/** Whether d_k[0..length) equals d_other[0..length); reads only that prefix of d_k. */
function sharesPrefix(view: DraftBlockView, k: number, other: number, length: number): boolean {
  for (let j = 0; j < length; j++) if (view.token(k, j) !== view.token(other, j)) return false;
  return true;
}

/**
 * SpecTr-GBV, shipped as recursive GBV (spec §4): the published acceptance formula is not lossless.
 * Draft 0 is block-verified; when it stops at s < L, the next unused draft that agrees with the accepted
 * prefix is block-verified from position s, with the normalised residual replacing its root target. The
 * selection reads only the first s tokens of a draft, so the suffix it verifies is still a fresh sample.
 */
export function verifySpectrGbv(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  const used = new Uint8Array(view.K);
  let accepted = 0;
  let current = 0;
  let rootResidual: Float64Array | null = null;
  let lastTrace: BlockTrace | undefined;
  for (;;) {
    let next = -1;
    for (let k = 0; k < view.K && next < 0; k++) {
      if (!used[k] && (accepted === 0 || sharesPrefix(view, k, current, accepted))) next = k;
    }
    if (next < 0) {
      if (!rootResidual || !lastTrace) throw new Error('recursive GBV ran out of drafts before verifying one');
      source.note?.({
        kind: 'drafts-exhausted',
        from: accepted,
        skipped: skippedDrafts(view, used, current, accepted, view.K),
      });
      source.explain?.({ kind: 'final', law: 'chained-residual', draft: current, position: accepted, fallback: false });
      const correction = source.categorical(rootResidual);
      return { draft: current, accepted, tokens: emittedTokens(view, current, accepted, correction), trace: lastTrace };
    }
    source.note?.({
      kind: 'draft-selected',
      draft: next,
      from: accepted,
      skipped: skippedDrafts(view, used, current, accepted, next),
    });
    used[next] = 1;
    const decision = greedyBlock(view, next, accepted, rootResidual, source);
    if (accepted + decision.tau === view.L) {
      source.explain?.({ kind: 'final', law: 'bonus', draft: next, position: view.L, fallback: false });
      const bonus = source.categorical(view.targetRow(next, view.L));
      return { draft: next, accepted: view.L, tokens: emittedTokens(view, next, view.L, bonus), trace: decision.trace };
    }
    lastTrace = decision.trace;
    current = next;
    accepted += decision.tau;
    rootResidual = normalisedResidual(decision.residual, decision.residualFallback);
  }
}

/** For the step inspector: why each draft before `before` was passed over (reads only d_k[0..accepted)). */
function skippedDrafts(view: DraftBlockView, used: Uint8Array, current: number, accepted: number, before: number) {
  const skipped: { draft: number; reason: 'used' | 'disagrees'; at: number }[] = [];
  for (let k = 0; k < before; k++) {
    if (used[k]) skipped.push({ draft: k, reason: 'used', at: accepted });
    else {
      let at = 0;
      while (at < accepted && view.token(k, at) === view.token(current, at)) at++;
      skipped.push({ draft: k, reason: 'disagrees', at });
    }
  }
  return skipped;
}

function normalisedResidual(residual: Float64Array | null, fallback: Float64Array | null): Float64Array {
  if (!residual || !fallback) throw new Error('a block that stopped short must carry its residual');
  const mass = sumOf(residual);
  // An empty residual can only come from rounding (see drawResidual); fall back the same way.
  if (!(mass > 0)) return fallback;
  return residual.map((value) => value / mass);
}
