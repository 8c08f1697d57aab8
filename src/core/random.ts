import type { Rng } from './rng';
import { sampleCategorical } from './sampling';
import type { DecisionNote } from './decisions';

/**
 * Every random choice a verifier makes goes through this interface, so one implementation serves both
 * production (driven by the seeded RNG) and the exact-enumeration proofs (which branch on every choice).
 */
export interface RandomSource {
  /** True with probability p; p must lie in [0, 1]. */
  bernoulli(p: number): boolean;
  /** An index i with probability weights[i] / sum(weights); weights are non-negative with a positive sum. */
  categorical(weights: ArrayLike<number>): number;
  /**
   * For the step inspector (src/core/trace.ts): what the next draw decides. Call it as
   * `source.explain?.({...})`, so that sources without it (production, the proofs) never build the note.
   */
  explain?(note: DecisionNote): void;
  /** For the step inspector: a choice the verifier made without drawing. */
  note?(note: DecisionNote): void;
}

export function assertProbability(p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`Bernoulli parameter ${p} is outside [0, 1]`);
}

const TWO_POW_32 = 4294967296;

/**
 * True for the 64-bit uniform U = (high, low) when U < p · 2^64, compared exactly (p · 2^32 splits into
 * whole and fractional parts without rounding), so P(true) = ceil(p · 2^64) / 2^64: a bias below 2^-64.
 * A 24-bit uniform would be biased by up to 2^-24 per decision, which is several decisions per step and
 * within sight of the 1e-6 per draw we promise; two words are cheap, so every choice takes two.
 */
export function bernoulliFromWords(p: number, high: number, low: number): boolean {
  if (p === 1) return true;
  const scaled = p * TWO_POW_32;
  const whole = Math.floor(scaled);
  return high < whole || (high === whole && low < (scaled - whole) * TWO_POW_32);
}

/**
 * Production randomness: each choice consumes the next two words of the stream as one 64-bit uniform
 * (bernoulliFromWords, drawCategorical), exactly as the GPU kernels do, so the CPU twin and the GPU
 * consume the same words in the same order and can be compared decision by decision.
 */
export function rngSource(rng: Rng): RandomSource {
  return {
    bernoulli(p) {
      assertProbability(p);
      const high = rng.nextUint32();
      return bernoulliFromWords(p, high, rng.nextUint32());
    },
    categorical(weights) {
      return sampleCategorical(weights, rng);
    },
  };
}
