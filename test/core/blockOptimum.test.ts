/**
 * The block optimum (src/core/blockOptimum.ts): the linear program's value is the known optimum where one is
 * known (1 + α* at L = 1; GBV at K = 1, which is optimal for one draft), and no shipped verifier exceeds it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { blockOptimum, blockOptimumProgram, loadLpSolver, type LpSolver } from '../../src/core/blockOptimum';
import { exactOutcomeLaw, transportOptimum } from '../../src/core/theory';
import { VERIFIERS, VERIFIER_IDS, draftsUsed } from '../../src/core/verify';
import { contextFreePair, treePair, type RowKind } from './verify/instances';

let solver: LpSolver;
beforeAll(async () => {
  solver = await loadLpSolver();
});

const exact = (method: (typeof VERIFIER_IDS)[number], pair: ReturnType<typeof treePair>, K: number, L: number) =>
  1 + exactOutcomeLaw(VERIFIERS[method], pair, [], draftsUsed(method, K), L).expectedAccepted;

describe('the block optimum', () => {
  it.each([
    { V: 2, K: 2, kind: 'dirichlet' },
    { V: 3, K: 2, kind: 'sparse' },
    { V: 3, K: 3, kind: 'mixed' },
    { V: 4, K: 3, kind: 'dirichlet' },
    { V: 4, K: 1, kind: 'disjoint' },
  ] as const)('at L = 1 it is 1 + α* (V=$V K=$K, $kind rows)', ({ V, K, kind }) => {
    const pair = treePair(V, 1, kind as RowKind, 4400 + 10 * V + K);
    const optimum = blockOptimum(solver, pair, [], K, 1) as number;
    expect(Math.abs(optimum - (1 + transportOptimum(pair.target([]), pair.draft([]), K)))).toBeLessThan(1e-9);
  });

  it.each([
    { V: 2, L: 2, kind: 'dirichlet' },
    { V: 2, L: 3, kind: 'mixed' },
    { V: 3, L: 2, kind: 'sparse' },
    { V: 3, L: 3, kind: 'dirichlet' },
    { V: 4, L: 2, kind: 'mixed' },
  ] as const)('at K = 1 it is GBV’s exact block efficiency (V=$V L=$L, $kind rows)', ({ V, L, kind }) => {
    const pair = treePair(V, L, kind as RowKind, 4500 + 10 * V + L);
    const optimum = blockOptimum(solver, pair, [], 1, L) as number;
    expect(Math.abs(optimum - exact('gbv', pair, 1, L))).toBeLessThan(1e-9);
  });

  it('is 1 + 11/9 on the spec’s toy instance (GBV’s; the full-information coupling’s 12/9 is not reachable)', () => {
    const pair = contextFreePair([1 / 3, 2 / 3], [2 / 3, 1 / 3]);
    expect(Math.abs((blockOptimum(solver, pair, [], 1, 2) as number) - (1 + 11 / 9))).toBeLessThan(1e-9);
  });

  it.each([
    { V: 2, K: 2, L: 2, kind: 'dirichlet' },
    { V: 3, K: 2, L: 2, kind: 'mixed' },
    { V: 2, K: 3, L: 3, kind: 'sparse' },
    { V: 3, K: 3, L: 2, kind: 'dirichlet' },
  ] as const)('no shipped verifier exceeds it (V=$V K=$K L=$L, $kind rows)', ({ V, K, L, kind }) => {
    const pair = treePair(V, L, kind as RowKind, 4600 + 100 * V + 10 * K + L);
    const optimum = blockOptimum(solver, pair, [], K, L) as number;
    for (const method of VERIFIER_IDS) expect(exact(method, pair, K, L)).toBeLessThanOrEqual(optimum + 1e-9);
    expect(optimum).toBeGreaterThanOrEqual(exact('spectr-gbv', pair, K, L) - 1e-9);
  });

  it('builds nothing past the column budget', () => {
    const pair = treePair(3, 2, 'dirichlet', 4700);
    expect(blockOptimumProgram(pair, [], 3, 2, 100)).toBeNull();
    expect(blockOptimum(solver, pair, [], 3, 2, 100)).toBeNull();
    expect(blockOptimumProgram(pair, [], 3, 2)?.columns).toBeGreaterThan(100);
  });

  it.each([
    { V: 4096, K: 8, L: 8 },
    { V: 50, K: 8, L: 6 },
    { V: 12, K: 8, L: 2 },
  ])('checks its budget before listing V^L draft paths (V = $V, K = $K, L = $L hung `npm run sim`)', ({ V, K, L }) => {
    const uniform = new Float64Array(V).fill(1 / V);
    let rows = 0;
    const pair = {
      V,
      target: () => uniform,
      draft: () => {
        if (++rows > 1000) throw new Error('listed more than 1000 rows of V^L draft paths');
        return uniform;
      },
    };
    expect(blockOptimum(solver, pair, [0, 0], K, L)).toBeNull();
    expect(rows).toBeLessThanOrEqual(L + 1);
  });
});
