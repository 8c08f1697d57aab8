import type { ModelPair } from '../../src/core/modelPair';

/** Probability that a correct sampler fails the bound below. */
const FALSE_ALARM = 1e-6;

/**
 * TV distance between sampled first-two-token pairs and the target's law of them, with a bound that a
 * lossless sampler exceeds with probability at most 1e-6: E[TV] ≤ ½Σ sqrt(p(1−p)/n) (Jensen), and TV
 * moves by at most 1/n per sample, so P(TV ≥ E[TV] + ε) ≤ exp(−2nε²) (McDiarmid).
 */
export function twoTokenTv(pair: ModelPair, counts: Float64Array, samples: number): { tv: number; bound: number } {
  const { V } = pair;
  const root = pair.target([]);
  let tv = 0;
  let expectedDeviation = 0;
  for (let first = 0; first < V; first++) {
    const next = pair.target([first]);
    for (let second = 0; second < V; second++) {
      const p = (root[first] as number) * (next[second] as number);
      tv += Math.abs((counts[first * V + second] as number) / samples - p) / 2;
      expectedDeviation += Math.sqrt((p * (1 - p)) / samples) / 2;
    }
  }
  return { tv, bound: expectedDeviation + Math.sqrt(Math.log(1 / FALSE_ALARM) / (2 * samples)) };
}
