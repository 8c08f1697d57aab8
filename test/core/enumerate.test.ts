import { describe, expect, it } from 'vitest';
import { EnumerationBudgetExceeded, enumerateOutcomes } from '../../src/core/enumerate';

describe('enumerateOutcomes', () => {
  it('visits every path once with its exact probability', () => {
    const seen = new Map<string, number>();
    const runs = enumerateOutcomes(
      (source) => {
        const coin = source.bernoulli(0.25);
        return coin ? `H${source.categorical([1, 0, 3])}` : 'T';
      },
      (result, probability) => seen.set(result, (seen.get(result) ?? 0) + probability),
    );
    expect(runs).toBe(3);
    expect(Object.fromEntries(seen)).toEqual({ H0: 0.0625, H2: 0.1875, T: 0.75 });
  });

  it('refuses Bernoulli parameters outside [0, 1]', () => {
    expect(() =>
      enumerateOutcomes(
        (source) => source.bernoulli(1 + 1e-15),
        () => undefined,
      ),
    ).toThrow(/outside \[0, 1\]/);
    expect(() =>
      enumerateOutcomes(
        (source) => source.bernoulli(NaN),
        () => undefined,
      ),
    ).toThrow(/outside \[0, 1\]/);
  });

  it('stops with a typed error past its run budget', () => {
    const experiment = (source: { categorical(w: number[]): number }) => source.categorical([1, 1, 1, 1]);
    expect(() => enumerateOutcomes(experiment, () => undefined, 3)).toThrow(EnumerationBudgetExceeded);
  });

  it('notices an experiment that is not deterministic given its choices', () => {
    let calls = 0;
    expect(() =>
      enumerateOutcomes(
        (source) => (calls++ === 0 ? source.bernoulli(0.5) : source.categorical([1, 1, 1])),
        () => undefined,
      ),
    ).toThrow(/not deterministic/);
  });
});
