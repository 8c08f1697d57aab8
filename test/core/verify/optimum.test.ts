/**
 * α* (transportOptimum) and the optimal-tree verifier that reaches it.
 * α* is checked against the exhaustive minimum cut (every token set H, not only the sorted prefixes the
 * closed form scans), and the verifier's flow is checked to be a feasible flow of the same value: a flow
 * and a cut of equal value are both optimal, so this certifies the optimum without trusting either side.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { simulate, DEFAULT_SIMULATION } from '../../../src/core/simulate';
import { exactOutcomeLaw, transportOptimum } from '../../../src/core/theory';
import { METHOD_IDS, VERIFIERS, VERIFIER_IDS } from '../../../src/core/verify';
import { MULTISET_BUDGET, transportPlan } from '../../../src/core/verify/optimalTree';
import { checkLossless } from './exactness';
import { ROW_KINDS, contextFreePair, treePair } from './instances';

/** 1 − max over all 2^V token sets H of [draft(H)^K − target(H)]: the exhaustive minimum cut. */
function exhaustiveMinCut(target: Float64Array, draft: Float64Array, K: number): number {
  let worst = 0;
  for (let set = 0; set < 1 << target.length; set++) {
    let draftMass = 0;
    let targetMass = 0;
    for (let x = 0; x < target.length; x++) {
      if (set & (1 << x)) {
        draftMass += draft[x] as number;
        targetMass += target[x] as number;
      }
    }
    worst = Math.max(worst, draftMass ** K - targetMass);
  }
  return 1 - worst;
}

const ROW_CASES = [2, 3, 4, 5, 6].flatMap((V) => [1, 2, 3].flatMap((K) => ROW_KINDS.map((kind) => ({ V, K, kind }))));

describe('transportOptimum: α* = 1 − max_H [draft(H)^K − target(H)]', () => {
  it.each(ROW_CASES)(
    'equals the exhaustive minimum cut and a feasible flow of the same value (V=$V K=$K $kind rows)',
    ({ V, K, kind }) => {
      for (let seed = 0; seed < 4; seed++) {
        const pair = treePair(V, 0, kind, 7919 * V + 97 * K + seed + 13 * ROW_KINDS.indexOf(kind));
        const target = pair.target([]);
        const draft = pair.draft([]);
        const optimum = transportOptimum(target, draft, K);
        expect(Math.abs(optimum - exhaustiveMinCut(target, draft, K))).toBeLessThan(1e-12);

        const plan = transportPlan(target, draft, K);
        expect(plan.exact).toBe(true);
        const inflow = new Float64Array(V);
        let total = 0;
        let multisetMass = 0;
        for (let r = 0; r < plan.probability.length; r++) {
          const probability = plan.probability[r] as number;
          multisetMass += probability;
          let out = 0;
          for (let slot = r * K; slot < (r + 1) * K; slot++) {
            const f = plan.flow[slot] as number;
            expect(f).toBeGreaterThanOrEqual(0);
            out += f;
            if (f > 0) {
              const token = plan.classTokens[plan.members[slot] as number] as number;
              inflow[token] = (inflow[token] as number) + f;
            }
          }
          expect(out).toBeLessThanOrEqual(probability + 1e-15);
          total += out;
        }
        expect(multisetMass).toBeCloseTo(1, 12);
        inflow.forEach((f, x) => expect(f).toBeLessThanOrEqual((target[x] as number) + 1e-15));
        expect(Math.abs(total - optimum)).toBeLessThan(1e-12);
        expect(Math.abs(plan.acceptance - optimum)).toBeLessThan(1e-12);
      }
    },
  );

  it('is 1 − TV at K = 1, never decreases in K, and is 1 when the rows are equal', () => {
    const target = Float64Array.from([0.5, 0.3, 0.2, 0]);
    const draft = Float64Array.from([0.1, 0.2, 0.3, 0.4]);
    expect(transportOptimum(target, draft, 1)).toBeCloseTo(1 - 0.5 * (0.4 + 0.1 + 0.1 + 0.4), 15);
    for (let K = 1; K < 8; K++)
      expect(transportOptimum(target, draft, K + 1)).toBeGreaterThanOrEqual(transportOptimum(target, draft, K));
    expect(transportOptimum(target, target, 3)).toBe(1);
  });

  it('rejects bad input with a clear error', () => {
    expect(() => transportOptimum([1], [0.5, 0.5], 2)).toThrow(/target has 1 tokens, draft 2/);
    expect(() => transportOptimum([1], [1], 0)).toThrow(/K must be a positive integer, got 0/);
  });
});

describe(`past ${MULTISET_BUDGET} multisets: a restricted flow or K-SEQ, whichever accepts more`, () => {
  // V = 22 tokens and K = 3: C(24, 3) = 2024 multisets, just over the budget.
  const V = 22;
  const normalise = (weights: number[]) => weights.map((w) => w / weights.reduce((a, b) => a + b, 0));
  const cases = [
    // Draft = target, spread over every token: K-SEQ accepts always, the flow's 20 tokens cannot.
    {
      name: 'equal spread rows use K-SEQ',
      target: normalise(Array.from({ length: V }, (_, x) => 1 + (x % 3))),
      draft: normalise(Array.from({ length: V }, (_, x) => 1 + (x % 3))),
      useKSeq: true,
    },
    // Mass on 16 tokens, crumbs elsewhere: the restricted flow keeps the tokens that matter and wins.
    {
      name: 'concentrated rows use the restricted flow',
      target: normalise(Array.from({ length: V }, (_, x) => (x < 16 ? 1 + ((7 * x) % 5) : 1e-3))),
      draft: normalise(Array.from({ length: V }, (_, x) => (x < 16 ? 1 + ((3 * x) % 7) : 1e-3))),
      useKSeq: false,
    },
  ];
  it.each(cases)('$name, lossless by exact enumeration, below α*', ({ target, draft, useKSeq }) => {
    const plan = transportPlan(Float64Array.from(target), Float64Array.from(draft), 3);
    expect(plan.exact).toBe(false);
    expect(plan.useKSeq).toBe(useKSeq);
    const report = checkLossless(VERIFIERS['optimal-tree'], contextFreePair(target, draft), 3, 1);
    // 22^3 draft paths add into each emitted pair: rounding reaches 1e-12 here, so the bound is 1e-11.
    expect(report.maxError).toBeLessThanOrEqual(1e-11);
    expect(Math.abs(report.totalProbability - 1)).toBeLessThanOrEqual(1e-11);
    expect(report.expectedAccepted).toBeLessThanOrEqual(transportOptimum(target, draft, 3) + 1e-11);
    if (!useKSeq) expect(Math.abs(report.expectedAccepted - plan.acceptance)).toBeLessThan(1e-12);
  });
});

describe('optimal-tree at K = 1 is token-wise (identical law)', () => {
  it.each([2, 3, 4].flatMap((V) => [1, 2, 3].map((L) => ({ V, L }))))('V=$V L=$L', ({ V, L }) => {
    const pair = treePair(V, L, 'mixed', 211 * V + L);
    const a = exactOutcomeLaw(VERIFIERS['optimal-tree'], pair, [], 1, L).emitted;
    const b = exactOutcomeLaw(VERIFIERS.tokenwise, pair, [], 1, L).emitted;
    for (const key of new Set([...a.keys(), ...b.keys()]))
      expect(Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0))).toBeLessThan(1e-12);
  });
});

// A sweep the simulator runs as `npm run sim -- --json` does: random vocabularies, draft counts, closeness.
const SWEEP = Array.from({ length: 60 }, (_, i) => {
  const rng = createRng(18, i);
  return {
    instance: i,
    V: 2 + Math.floor(rng.uniform() * 5),
    K: 1 + Math.floor(rng.uniform() * 3),
    closeness: Math.round(rng.uniform() * 100) / 100,
    temperature: 0.5 + Math.round(rng.uniform() * 100) / 100,
    seed: 1 + Math.floor(rng.uniform() * 1e6),
  };
});

describe(`a sweep of ${SWEEP.length} random instances (V ≤ 6, K ≤ 3)`, () => {
  // One context at L = 2: exact enumeration of K = 3 drafts of length 2 is the costly part of this file.
  const run = (instance: (typeof SWEEP)[number], L: number, methods: typeof VERIFIER_IDS) =>
    simulate({ ...DEFAULT_SIMULATION, ...instance, L, steps: 50, contexts: L === 1 ? 3 : 1, methods });

  it('at L = 1 optimal-tree reaches transportOptimum exactly and no method exceeds it', () => {
    for (const instance of SWEEP) {
      const report = run(instance, 1, VERIFIER_IDS);
      const optimal = report.methods.find((m) => m.method === 'optimal-tree');
      if (!optimal?.exactBlockEfficiency) throw new Error('optimal-tree has no exact figure');
      expect(
        Math.abs(optimal.exactBlockEfficiency - optimal.transportOptimum),
        `instance ${instance.instance}`,
      ).toBeLessThan(1e-9);
      for (const method of report.methods) {
        expect(method.exactBlockEfficiency, `${method.method} on instance ${instance.instance}`).toBeLessThanOrEqual(
          optimal.transportOptimum + 1e-12,
        );
        expect(method.exactBlockEfficiency).toBeLessThanOrEqual(method.transportOptimum + 1e-12);
      }
    }
  });

  it('at L = 2 optimal-tree accepts at least as much as SpecTr on every instance', () => {
    for (const instance of SWEEP) {
      const [spectr, optimal] = run(instance, 2, ['spectr', 'optimal-tree']).methods.map(
        (m) => m.exactBlockEfficiency as number,
      );
      expect(optimal, `instance ${JSON.stringify(instance)}`).toBeGreaterThanOrEqual((spectr as number) - 1e-12);
    }
  }, 300_000);
});

describe('the method list', () => {
  it('ships optimal-tree as a sixth verifier', () => {
    expect(METHOD_IDS).toContain('optimal-tree');
    expect(VERIFIER_IDS).toHaveLength(6);
  });
});
