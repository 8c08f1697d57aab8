import { describe, expect, it } from 'vitest';
import type { RandomSource } from '../../../src/core/random';
import { VERIFIERS } from '../../../src/core/verify';
import { emittedTokens, sumOf, type DraftBlockView } from '../../../src/core/verify/view';
import type { VerifyOutcome } from '../../../src/core/verify/types';
import { checkLossless } from './exactness';
import { treePair } from './instances';

/**
 * The two broken GBV variants of spec §2, written here only to prove that the exact check catches them.
 * `scan: 'early-stop'` stops at the first failed h_i; `weights: 'uncapped'` uses min(1, Π target/draft).
 */
function brokenGbv(variant: { scan: 'all' | 'early-stop'; weights: 'capped' | 'uncapped' }) {
  return (view: DraftBlockView, source: RandomSource): VerifyOutcome => {
    const { L } = view;
    const weights = [1];
    let joint = 1;
    for (let i = 1; i <= L; i++) {
      const token = view.token(0, i - 1);
      const ratio = (view.targetRow(0, i - 1)[token] as number) / (view.draftRow(0, i - 1)[token] as number);
      joint *= ratio;
      weights.push(Math.min(1, variant.weights === 'capped' ? (weights[i - 1] as number) * ratio : joint));
    }
    const residualAt = (i: number) =>
      view.targetRow(0, i).map((t, x) => Math.max(0, (weights[i] as number) * t - (view.draftRow(0, i)[x] as number)));
    const h = (i: number) => {
      if (i === L) return weights[L] as number;
      const mass = sumOf(residualAt(i));
      const denominator = mass + (1 - (weights[i] as number));
      return denominator === 0 ? 1 : mass / denominator;
    };
    let tau = 0;
    if (variant.scan === 'early-stop') {
      while (tau < L && source.bernoulli(h(tau + 1))) tau++;
    } else {
      for (let i = L; i >= 1 && tau === 0; i--) if (source.bernoulli(h(i))) tau = i;
    }
    const residual = tau < L ? residualAt(tau) : null;
    const finalToken =
      residual && sumOf(residual) > 0 ? source.categorical(residual) : source.categorical(view.targetRow(0, tau));
    return { draft: 0, accepted: tau, tokens: emittedTokens(view, 0, tau, finalToken) };
  };
}

const INSTANCES = [2, 3, 4].flatMap((V) =>
  [2, 3].map((L) => ({ V, L, pair: treePair(V, L, 'dirichlet', 500 + 10 * V + L) })),
);

describe('negative controls: broken GBV variants fail the exact check', () => {
  it('the correct GBV rule passes on these instances (the check itself is sound)', () => {
    for (const { L, pair } of INSTANCES) expect(checkLossless(VERIFIERS.gbv, pair, 1, L).maxError).toBeLessThan(1e-12);
  });

  it('the control written here reproduces the shipped rule when unbroken', () => {
    const correct = brokenGbv({ scan: 'all', weights: 'capped' });
    for (const { L, pair } of INSTANCES) expect(checkLossless(correct, pair, 1, L).maxError).toBeLessThan(1e-12);
  });

  it('stopping at the first failed h_i is not lossless', () => {
    const worst = Math.max(
      ...INSTANCES.map(
        ({ L, pair }) => checkLossless(brokenGbv({ scan: 'early-stop', weights: 'capped' }), pair, 1, L).maxError,
      ),
    );
    expect(worst).toBeGreaterThan(1e-3);
  });

  it('the uncapped joint ratio min(1, Π target/draft) is not lossless', () => {
    const worst = Math.max(
      ...INSTANCES.map(
        ({ L, pair }) => checkLossless(brokenGbv({ scan: 'all', weights: 'uncapped' }), pair, 1, L).maxError,
      ),
    );
    expect(worst).toBeGreaterThan(1e-3);
  });
});
