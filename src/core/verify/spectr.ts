import type { RandomSource } from '../random';
import { drawResidual, emittedTokens, sumOf, type DraftBlockView } from './view';
import type { VerifyOutcome } from './types';

/** Where a node sits, for the step inspector's notes: its depth and the drafts alive there (the candidates). */
interface NodePlace {
  position: number;
  alive: number[];
}

/**
 * One node of the draft tree: m i.i.d. candidate tokens from `draft`, to be resolved against `target`.
 * Returns the index (into the candidates) of the accepted one, or the correction token when none is.
 */
export type NodeRule = (
  target: Float64Array,
  draft: Float64Array,
  candidateToken: (i: number) => number,
  m: number,
  source: RandomSource,
  place: NodePlace,
) => { acceptedCandidate: number } | { correction: number };

/** β(ρ) = Σ_x min(draft(x), target(x)/ρ). */
export function overlapMass(target: Float64Array, draft: Float64Array, rho: number): number {
  let beta = 0;
  for (let x = 0; x < target.length; x++) beta += Math.min(draft[x] as number, (target[x] as number) / rho);
  return beta;
}

const RHO_BISECTION_STEPS = 60;

/**
 * ρ* = the smallest ρ in [1, m] with 1 − (1 − β(ρ))^m ≤ ρ·β(ρ), by bisection on that monotone predicate.
 * The upper end of the bracket is returned, so the constraint (which keeps the residual non-negative, and
 * hence the rule lossless) always holds.
 */
export function optimalRho(target: Float64Array, draft: Float64Array, m: number): number {
  const feasible = (rho: number): boolean => {
    const beta = overlapMass(target, draft, rho);
    return 1 - (1 - beta) ** m <= rho * beta;
  };
  if (feasible(1)) return 1;
  let low = 1;
  let high = m;
  for (let step = 0; step < RHO_BISECTION_STEPS && high - low > 1e-15 * high; step++) {
    const middle = (low + high) / 2;
    if (feasible(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** K-SEQ (Sun et al. 2023; spec §3). */
export const kSeqRule: NodeRule = (target, draft, candidateToken, m, source, place) => {
  const rho = optimalRho(target, draft, m);
  for (let i = 0; i < m; i++) {
    const token = candidateToken(i);
    source.explain?.({
      kind: 'kseq-test',
      position: place.position,
      alive: place.alive,
      candidate: i,
      draft: place.alive[i] as number,
      token,
      p: target[token] as number,
      q: draft[token] as number,
      rho,
      beta: overlapMass(target, draft, rho),
    });
    if (source.bernoulli(Math.min(1, (target[token] as number) / (rho * (draft[token] as number))))) {
      return { acceptedCandidate: i };
    }
  }
  const beta = overlapMass(target, draft, rho);
  const lead = place.alive[0] as number;
  if (beta === 0) {
    source.explain?.({ kind: 'final', law: 'kseq-residual', draft: lead, position: place.position, fallback: false });
    return { correction: source.categorical(target) };
  }
  const scale = (1 - (1 - beta) ** m) / beta;
  const residual = new Float64Array(target.length);
  for (let x = 0; x < target.length; x++) {
    const accepted = Math.min(draft[x] as number, (target[x] as number) / rho) * scale;
    residual[x] = Math.max(0, (target[x] as number) - accepted);
  }
  source.explain?.({
    kind: 'final',
    law: 'kseq-residual',
    draft: lead,
    position: place.position,
    fallback: !(sumOf(residual) > 0),
  });
  return { correction: drawResidual((w) => source.categorical(w), residual, target) };
};

/** Recursive rejection sampling over i.i.d. candidates (Yang et al. 2024): each rejection moves the target
 * to norm(max(0, target − draft)). */
const recursiveRejectionRule: NodeRule = (target, draft, candidateToken, m, source, place) => {
  let remaining = target;
  for (let i = 0; i < m; i++) {
    const token = candidateToken(i);
    source.explain?.({
      kind: 'recursive-test',
      position: place.position,
      alive: place.alive,
      candidate: i,
      draft: place.alive[i] as number,
      token,
      r: remaining[token] as number,
      q: draft[token] as number,
    });
    if (source.bernoulli(Math.min(1, (remaining[token] as number) / (draft[token] as number)))) {
      return { acceptedCandidate: i };
    }
    const residual = remaining.map((value, x) => Math.max(0, value - (draft[x] as number)));
    const mass = sumOf(residual);
    // Empty only through rounding (see drawResidual): keep the current target.
    if (mass > 0) remaining = residual.map((value) => value / mass);
  }
  source.explain?.({
    kind: 'final',
    law: 'recursive-residual',
    draft: place.alive[0] as number,
    position: place.position,
    fallback: false,
  });
  return { correction: source.categorical(remaining) };
};

/**
 * Walks K drafts depth by depth (spec §3). The candidates at a node are the drafts whose prefix equals the
 * accepted prefix; their tokens at this depth are fresh i.i.d. draft samples, whatever decided the past.
 */
export function verifyTree(view: DraftBlockView, source: RandomSource, rule: NodeRule): VerifyOutcome {
  let candidates = Array.from({ length: view.K }, (_, k) => k);
  for (let depth = 0; depth < view.L; depth++) {
    const lead = candidates[0] as number;
    const decision = rule(
      view.targetRow(lead, depth),
      view.draftRow(lead, depth),
      (i) => view.token(candidates[i] as number, depth),
      candidates.length,
      source,
      { position: depth, alive: candidates },
    );
    if ('correction' in decision) {
      return { draft: lead, accepted: depth, tokens: emittedTokens(view, lead, depth, decision.correction) };
    }
    const acceptedToken = view.token(candidates[decision.acceptedCandidate] as number, depth);
    candidates = candidates.filter((k) => view.token(k, depth) === acceptedToken);
  }
  const lead = candidates[0] as number;
  source.explain?.({ kind: 'final', law: 'bonus', draft: lead, position: view.L, fallback: false });
  const bonus = source.categorical(view.targetRow(lead, view.L));
  return { draft: lead, accepted: view.L, tokens: emittedTokens(view, lead, view.L, bonus) };
}

export function verifySpectr(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  return verifyTree(view, source, kSeqRule);
}

export function verifyRecursiveRejection(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  return verifyTree(view, source, recursiveRejectionRule);
}
