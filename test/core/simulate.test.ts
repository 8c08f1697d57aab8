import { describe, expect, it } from 'vitest';
import { DEFAULT_SIMULATION, simulate } from '../../src/core/simulate';

describe('simulate', () => {
  const report = simulate({ ...DEFAULT_SIMULATION, V: 4, K: 2, L: 2, steps: 8000, contexts: 2, seed: 9 });

  it('reports every method with an empirical figure consistent with its exact expectation', () => {
    expect(report.methods.map((m) => m.method)).toEqual(DEFAULT_SIMULATION.methods);
    for (const m of report.methods) {
      expect(m.exactBlockEfficiency).not.toBeNull();
      // Five standard errors: a correct simulator fails this about once in 1.7 million runs.
      expect(Math.abs(m.blockEfficiency - (m.exactBlockEfficiency as number))).toBeLessThan(5 * m.standardError);
      expect(m.exactBlockEfficiency as number).toBeLessThanOrEqual((m.universalBound as number) + 1e-12);
      expect(m.histogram.reduce((a, b) => a + b, 0)).toBe(m.steps);
    }
  });

  it('uses one draft for the single-draft methods and K for the others', () => {
    expect(Object.fromEntries(report.methods.map((m) => [m.method, m.draftsUsed]))).toEqual({
      tokenwise: 1,
      gbv: 1,
      spectr: 2,
      'spectr-gbv': 2,
      'optimal-tree': 2,
      'recursive-rejection': 2,
    });
  });

  it('replays exactly from the same seed', () => {
    const again = simulate({ ...DEFAULT_SIMULATION, V: 4, K: 2, L: 2, steps: 8000, contexts: 2, seed: 9 });
    expect(again.methods.map((m) => m.blockEfficiency)).toEqual(report.methods.map((m) => m.blockEfficiency));
  });

  it('gives up on exact enumeration, not on the run, when the instance is too large', () => {
    const large = simulate({
      ...DEFAULT_SIMULATION,
      V: 64,
      K: 4,
      L: 4,
      steps: 50,
      contexts: 1,
      methods: ['spectr-gbv'],
    });
    expect(large.methods[0]?.exactBlockEfficiency).toBeNull();
    expect(large.methods[0]?.universalBound).toBeNull();
    expect(large.methods[0]?.blockEfficiency).toBeGreaterThanOrEqual(1);
    expect(large.methods[0]?.skipped).toEqual({
      exact: 'one draft alone has V^L = 64^4 paths, more than 500,000 runs',
      blockOptimum: 'no LP solver was given',
      universalBound: 'the prefix tree has more than 300,000 nodes per context',
    });
  });

  it('skips the exact figures past their time budget, saying so, and keeps the simulation (V = 12, K = 8, L = 2 took 95 s)', () => {
    const small = { ...DEFAULT_SIMULATION, V: 4, K: 2, L: 2, steps: 8000, contexts: 2, seed: 9 };
    const spent = simulate(small, null, { exactBudgetMs: 0 });
    for (const [i, m] of spent.methods.entries()) {
      expect(m.exactBlockEfficiency).toBeNull();
      expect(m.universalBound).toBeNull();
      expect(m.skipped.exact).toBe('not started: the 0 s budget for exact figures was spent');
      expect(m.skipped.universalBound).toBe('not started: the 0 s budget for exact figures was spent');
      expect(m.blockEfficiency).toBe(report.methods[i]?.blockEfficiency);
    }
    for (const m of report.methods)
      expect(m.skipped).toEqual({ exact: null, blockOptimum: 'no LP solver was given', universalBound: null });
  });

  it.each([
    [{ K: 0 }, /K must be an integer in 1\.\.8, got 0/],
    [{ V: 1 }, /V must be an integer in 2\.\.4096/],
    [{ contexts: 50, V: 4 }, /contexts must be an integer in 1\.\.16/],
    [{ methods: ['fast'] as never }, /unknown method 'fast'/],
    [{ closeness: 2 }, /closeness must lie in \[0, 1\]/],
  ])('rejects bad options %j', (override, message) => {
    expect(() => simulate({ ...DEFAULT_SIMULATION, steps: 10, ...override })).toThrow(message);
  });
});
