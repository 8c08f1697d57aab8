import { describe, expect, it } from 'vitest';
import type { ModelPair } from '../../../src/core/modelPair';
import { createRng } from '../../../src/core/rng';
import { VERIFIERS, verify, type VerifyProblem } from '../../../src/core/verify';
import { checkLossless } from './exactness';

// A drafted token with target probability 0 makes w = 0; a later draft probability that underflows makes the
// next ratio ∞, and 0 · ∞ was NaN ("Bernoulli parameter NaN"). A zero weight must stay zero.
const TINY = 1e-320;

/** The problem as reported: drafts [1, 1], draft rows [0.5, 0.5] and [1, 1e-320], target rows [1, 0] and [0.5, 0.5]. */
function underflowProblem(K: number): VerifyProblem {
  const L = 2;
  const V = 2;
  const draftRows = [0.5, 0.5, 1, TINY];
  const targetRows = [1, 0, 0.5, 0.5, 0.5, 0.5];
  return {
    K,
    L,
    V,
    drafts: new Int32Array(K * L).fill(1),
    draftProbs: Float64Array.from({ length: K * L * V }, (_, i) => draftRows[i % (L * V)] as number),
    targetProbs: Float64Array.from({ length: K * (L + 1) * V }, (_, i) => targetRows[i % ((L + 1) * V)] as number),
  };
}

/** The same rows as a model pair: after token 1 the draft puts 1e-320 on token 1. */
const underflowPair: ModelPair = {
  V: 2,
  draft: (prefix) => Float64Array.from(prefix.length === 1 && prefix[0] === 1 ? [1, TINY] : [0.5, 0.5]),
  target: (prefix) => Float64Array.from(prefix.length === 0 ? [1, 0] : [0.5, 0.5]),
};

describe('a zero weight stays zero when a draft probability underflows', () => {
  it.each(['gbv', 'spectr-gbv'] as const)('%s decides the reported problem (K = 1 and 2) without NaN', (method) => {
    for (const K of [1, 2]) {
      for (let seed = 0; seed < 50; seed++) {
        const outcome = verify(method, underflowProblem(K), createRng(seed));
        // Target row 0 is one-hot on token 0, so drafted token 1 is rejected and 0 is the correction.
        expect(outcome.accepted).toBe(0);
        expect([...outcome.tokens]).toEqual([0]);
        expect(outcome.trace?.weights[1]).toBe(0);
        expect(outcome.trace?.weights[2]).toBe(0);
      }
    }
  });

  it.each(['gbv', 'spectr-gbv'] as const)('%s stays lossless on these rows by exact enumeration', (method) => {
    for (const K of [1, 2]) {
      const report = checkLossless(VERIFIERS[method], underflowPair, K, 2);
      expect(Math.abs(report.totalProbability - 1)).toBeLessThanOrEqual(1e-12);
      expect(report.maxError).toBeLessThanOrEqual(1e-12);
    }
  });
});
