import { describe, expect, it } from 'vitest';
import { exactOutcomeLaw, tokenwiseExpectedAccepted, universalAcceptanceBound } from '../../../src/core/theory';
import { VERIFIERS, VERIFIER_IDS, draftsUsed, type VerifierId } from '../../../src/core/verify';
import { optimalRho } from '../../../src/core/verify/spectr';
import type { ModelPair } from '../../../src/core/modelPair';
import { contextFreePair, treePair } from './instances';

const expectedAccepted = (method: VerifierId, pair: ModelPair, K: number, L: number) =>
  exactOutcomeLaw(VERIFIERS[method], pair, [], K, L).expectedAccepted;

function maxLawDifference(a: Map<string, number>, b: Map<string, number>): number {
  let worst = 0;
  for (const key of new Set([...a.keys(), ...b.keys()]))
    worst = Math.max(worst, Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0)));
  return worst;
}

const INSTANCES = [2, 3, 4].flatMap((V) => [1, 2, 3].map((L) => ({ V, L, seed: 77 * V + L })));

describe('the toy instance of spec §2 (V=2, draft (2/3,1/3), target (1/3,2/3), context-free, L=2)', () => {
  const toy = contextFreePair([1 / 3, 2 / 3], [2 / 3, 1 / 3]);
  it('token-wise accepts 10/9 tokens on average', () => {
    expect(Math.abs(expectedAccepted('tokenwise', toy, 1, 2) - 10 / 9)).toBeLessThan(1e-12);
  });
  it('GBV accepts 11/9', () => {
    expect(Math.abs(expectedAccepted('gbv', toy, 1, 2) - 11 / 9)).toBeLessThan(1e-12);
  });
});

describe('closed forms', () => {
  it.each(INSTANCES)('token-wise matches Σ_i Σ_x Π min(draft, target) (V=$V L=$L)', ({ V, L, seed }) => {
    const pair = treePair(V, L, 'dirichlet', seed);
    expect(Math.abs(expectedAccepted('tokenwise', pair, 1, L) - tokenwiseExpectedAccepted(pair, [], L))).toBeLessThan(
      1e-12,
    );
  });

  it.each([1, 2, 3, 4])('K-SEQ accepts at one node with probability 1 − (1 − β(ρ*))^K (K=%i)', (K) => {
    for (const seed of [1, 2, 3]) {
      const pair = treePair(4, 1, 'dirichlet', seed);
      const target = pair.target([]);
      const draft = pair.draft([]);
      const rho = optimalRho(target, draft, K);
      const beta = draft.reduce((acc, q, x) => acc + Math.min(q, (target[x] as number) / rho), 0);
      expect(Math.abs(expectedAccepted('spectr', pair, K, 1) - (1 - (1 - beta) ** K))).toBeLessThan(1e-12);
      // ρ* is the smallest feasible ρ: slightly below it the constraint fails (unless ρ* = 1).
      if (rho > 1 + 1e-9) {
        const below = rho - 1e-9;
        const betaBelow = draft.reduce((acc, q, x) => acc + Math.min(q, (target[x] as number) / below), 0);
        expect(1 - (1 - betaBelow) ** K).toBeGreaterThan(below * betaBelow);
      }
    }
  });

  it.each(INSTANCES)('GBV accepts at least as much as token-wise (V=$V L=$L)', ({ V, L, seed }) => {
    const pair = treePair(V, L, 'dirichlet', seed);
    expect(expectedAccepted('gbv', pair, 1, L)).toBeGreaterThanOrEqual(
      expectedAccepted('tokenwise', pair, 1, L) - 1e-12,
    );
  });

  it.each(INSTANCES)('recursive GBV never accepts less with more drafts (V=$V L=$L)', ({ V, L, seed }) => {
    const pair = treePair(V, L, 'mixed', seed);
    const byK = [1, 2, 3].map((K) => expectedAccepted('spectr-gbv', pair, K, L));
    expect(byK[1]).toBeGreaterThanOrEqual((byK[0] as number) - 1e-12);
    expect(byK[2]).toBeGreaterThanOrEqual((byK[1] as number) - 1e-12);
  });

  it.each(INSTANCES)('no method beats the universal bound (V=$V L=$L)', ({ V, L, seed }) => {
    const pair = treePair(V, L, 'dirichlet', seed);
    for (const K of [1, 2, 3]) {
      for (const method of VERIFIER_IDS) {
        const bound = universalAcceptanceBound(pair, [], draftsUsed(method, K), L);
        expect(expectedAccepted(method, pair, K, L)).toBeLessThanOrEqual(bound + 1e-12);
      }
    }
  });

  it('the universal bound is tight where drafts equal the target: L tokens', () => {
    const pair = treePair(3, 2, 'equal', 5);
    expect(universalAcceptanceBound(pair, [], 1, 2)).toBeCloseTo(2, 12);
    expect(expectedAccepted('gbv', pair, 1, 2)).toBeCloseTo(2, 12);
  });
});

describe('reductions give identical laws', () => {
  const law = (method: VerifierId, pair: ModelPair, K: number, L: number) =>
    exactOutcomeLaw(VERIFIERS[method], pair, [], K, L).emitted;

  it.each(INSTANCES)('recursive GBV at K=1 is GBV (V=$V L=$L)', ({ V, L, seed }) => {
    const pair = treePair(V, L, 'mixed', seed);
    expect(maxLawDifference(law('spectr-gbv', pair, 1, L), law('gbv', pair, 1, L))).toBeLessThan(1e-12);
  });

  it.each(INSTANCES)('the SpecTr tree at K=1 is token-wise (V=$V L=$L)', ({ V, L, seed }) => {
    const pair = treePair(V, L, 'mixed', seed);
    expect(maxLawDifference(law('spectr', pair, 1, L), law('tokenwise', pair, 1, L))).toBeLessThan(1e-12);
  });

  it.each([2, 3, 4].flatMap((V) => [1, 2, 3].map((K) => ({ V, K }))))(
    'recursive GBV at L=1 is recursive rejection (V=$V K=$K)',
    ({ V, K }) => {
      const pair = treePair(V, 1, 'mixed', 31 * V + K);
      expect(maxLawDifference(law('spectr-gbv', pair, K, 1), law('recursive-rejection', pair, K, 1))).toBeLessThan(
        1e-12,
      );
    },
  );
});
