import type { ModelPair } from '../../../src/core/modelPair';
import { exactOutcomeLaw, extendWithTarget, targetSequenceLaw, type Verifier } from '../../../src/core/theory';

export interface LosslessnessReport {
  /** max over x in V^(L+1) of |Σ_B P(B)·ext(B, x) − Q(x)|. */
  maxError: number;
  totalProbability: number;
  expectedAccepted: number;
}

/** Spec §5's exact check of one verifier on one instance. */
export function checkLossless(
  verifier: Verifier,
  pair: ModelPair,
  K: number,
  L: number,
  context: readonly number[] = [],
): LosslessnessReport {
  const law = exactOutcomeLaw(verifier, pair, context, K, L);
  const produced = extendWithTarget(pair, context, law.emitted, L + 1);
  const expected = targetSequenceLaw(pair, context, L + 1);
  let maxError = 0;
  for (const key of new Set([...produced.keys(), ...expected.keys()])) {
    maxError = Math.max(maxError, Math.abs((produced.get(key) ?? 0) - (expected.get(key) ?? 0)));
  }
  return { maxError, totalProbability: law.totalProbability, expectedAccepted: law.expectedAccepted };
}
