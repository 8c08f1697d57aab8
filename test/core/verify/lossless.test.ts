import { describe, expect, it } from 'vitest';
import { VERIFIERS, VERIFIER_IDS } from '../../../src/core/verify';
import { checkLossless } from './exactness';
import { ROW_KINDS, treePair } from './instances';

const VOCABULARY_SIZES = [2, 3, 4];
const DRAFT_LENGTHS = [1, 2, 3];
const DRAFT_COUNTS = [1, 2, 3];

// Spec §5: every method, V ∈ {2,3,4}, L ∈ {1,2,3}, K ∈ {1,2,3}, every edge-row kind, error ≤ 1e-12.
// Every Bernoulli parameter is checked to lie in [0, 1] by the enumerating source itself (it throws).
describe.each(VERIFIER_IDS)('%s is lossless by exact enumeration', (method) => {
  const cases = VOCABULARY_SIZES.flatMap((V) =>
    DRAFT_LENGTHS.flatMap((L) => DRAFT_COUNTS.flatMap((K) => ROW_KINDS.map((kind) => ({ V, L, K, kind })))),
  );
  it.each(cases)('V=$V L=$L K=$K $kind rows', ({ V, L, K, kind }) => {
    const seed = 1000 * V + 100 * L + 10 * K + ROW_KINDS.indexOf(kind);
    const report = checkLossless(VERIFIERS[method], treePair(V, L, kind, seed), K, L);
    expect(Math.abs(report.totalProbability - 1)).toBeLessThanOrEqual(1e-12);
    expect(report.maxError).toBeLessThanOrEqual(1e-12);
  });
});
