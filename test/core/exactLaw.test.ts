import { describe, expect, it } from 'vitest';
import { drawCategorical } from '../../src/core/sampling';
import { boundaryTokens, exactCategoricalLaw, gaussianProbs, totalVariation, wordsOf } from './exactLaw';

const V = 50_257;

// The law of the production draw, computed exactly from its 2^64-point word grid, at GPT-2's vocabulary.
describe.each([1, 4])('the exact law of drawCategorical at V = 50,257, Gaussian logits σ = %i', (sigma) => {
  const weights = gaussianProbs(V, sigma, 40 + sigma);
  const { counts, first } = exactCategoricalLaw(weights);

  it('is within 1e-6 of the target in total variation, and reaches every token with p ≥ 2^-40', () => {
    expect(counts.reduce((a, b) => a + b, 0n)).toBe(1n << 64n);
    const distance = totalVariation(counts, weights);
    console.info(
      `σ = ${sigma}: total variation ${distance.toExponential(2)}, smallest p ${Math.min(...weights).toExponential(2)}`,
    );
    expect(distance).toBeLessThanOrEqual(1e-6);
    const unreachable = [...weights].filter((p, i) => p >= 2 ** -40 && counts[i] === 0n);
    expect(unreachable).toEqual([]);
  });

  it('is the law the decision function follows: at each sampled boundary the draw changes token', () => {
    const tokens = boundaryTokens(weights, counts, 100);
    const previousReachable = (token: number) => {
      let previous = token - 1;
      while (previous >= 0 && counts[previous] === 0n) previous--;
      return previous;
    };
    for (const token of tokens) {
      const start = first[token] as bigint;
      expect(drawCategorical(weights, ...wordsOf(start))).toBe(token);
      expect(drawCategorical(weights, ...wordsOf(start + (counts[token] as bigint) - 1n))).toBe(token);
      if (start > 0n) expect(drawCategorical(weights, ...wordsOf(start - 1n))).toBe(previousReachable(token));
    }
  });
});

it('σ = 4 puts tokens below 2^-24 (which a 24-bit uniform drew never or at twice their probability) in the tail; each is drawn to within its bound', () => {
  const weights = gaussianProbs(V, 4, 44);
  const { counts } = exactCategoricalLaw(weights);
  const tail = [...weights].flatMap((p, i) => (p < 2 ** -24 ? [i] : []));
  expect(tail.length).toBeGreaterThan(10_000);
  // Each token is off by less than one unit (2^-45 of the largest weight) plus one grid point.
  const bound = 2 ** -45 * Math.max(...weights) + 2 ** -64;
  for (const token of tail) {
    expect(Math.abs(Number(counts[token]) / 2 ** 64 - (weights[token] as number))).toBeLessThan(bound);
  }
});
