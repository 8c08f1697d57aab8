/**
 * The conditional law of the accepted length given the drafts (the histogram overlay's expectation): averaged
 * over the drafts with their probabilities, it must give exactly the unconditional law that enumerating the
 * drafts and every verifier choice gives.
 */
import { describe, expect, it } from 'vitest';
import { enumerateOutcomes, EnumerationBudgetExceeded } from '../../src/core/enumerate';
import { lazyDraftView } from '../../src/core/modelPair';
import { acceptedLengthLaw } from '../../src/core/theory';
import { VERIFIERS, VERIFIER_IDS } from '../../src/core/verify';
import { treePair } from './verify/instances';

const CASES = [
  { V: 3, K: 1, L: 2 },
  { V: 3, K: 2, L: 2 },
  { V: 2, K: 3, L: 3 },
  { V: 4, K: 2, L: 1 },
];

describe('acceptedLengthLaw: P(accepted = j | drafts)', () => {
  it.each(VERIFIER_IDS.flatMap((method) => CASES.map((c) => ({ method, ...c }))))(
    '$method V=$V K=$K L=$L: averaged over the drafts, it is the exact law of the accepted length',
    ({ method, V, K, L }) => {
      const pair = treePair(V, L, 'dirichlet', 100 * V + 10 * K + L);
      const verifier = VERIFIERS[method];
      const unconditional = new Float64Array(L + 1);
      enumerateOutcomes(
        (source) => verifier(lazyDraftView(pair, [], K, L, source), source).accepted,
        (accepted, probability) => (unconditional[accepted] = (unconditional[accepted] as number) + probability),
      );
      const averaged = new Float64Array(L + 1);
      let draftMass = 0;
      enumerateOutcomes(
        (source) => {
          // Every draft token is sampled up front: the conditional law is then a function of the drafts alone.
          const view = lazyDraftView(pair, [], K, L, source);
          for (let k = 0; k < K; k++) view.token(k, L - 1);
          const law = acceptedLengthLaw(verifier, view, 10_000);
          expect(law.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
          return law;
        },
        (law, probability) => {
          draftMass += probability;
          law.forEach((p, j) => (averaged[j] = (averaged[j] as number) + probability * p));
        },
      );
      expect(draftMass).toBeCloseTo(1, 12);
      averaged.forEach((p, j) => expect(Math.abs(p - (unconditional[j] as number)), `length ${j}`).toBeLessThan(1e-12));
    },
  );

  it('is certain where the verifier has no choice: identical rows accept every token', () => {
    const row = Float64Array.from([0.5, 0.25, 0.25]);
    const view = { K: 2, L: 3, V: 3, token: () => 1, draftRow: () => row, targetRow: () => row };
    for (const method of VERIFIER_IDS)
      expect(Array.from(acceptedLengthLaw(VERIFIERS[method], view, 100)), method).toEqual([0, 0, 0, 1]);
  });

  it('refuses past its path budget instead of running on', () => {
    const pair = treePair(3, 3, 'dirichlet', 5);
    const view = lazyDraftView(pair, [], 3, 3, { bernoulli: () => true, categorical: () => 0 });
    expect(() => acceptedLengthLaw(VERIFIERS.spectr, view, 2)).toThrow(EnumerationBudgetExceeded);
  });
});
