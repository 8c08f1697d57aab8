import type { Rng } from './rng';
import { drawCategorical } from './sampling';
import type { DecisionNote } from './trace';

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

/**
 * Production randomness: each choice consumes the next uniform of the stream. 'f64' (the default) takes
 * two words per uniform; 'f32' takes one, exactly as the GPU kernels do, so the CPU twin and the GPU
 * consume the same words in the same order and can be compared decision by decision.
 */
export function rngSource(rng: Rng, precision: 'f64' | 'f32' = 'f64'): RandomSource {
  const uniform = precision === 'f32' ? () => rng.uniformF32() : () => rng.uniform();
  return {
    bernoulli(p) {
      assertProbability(p);
      return uniform() < p;
    },
    categorical(weights) {
      return drawCategorical(weights, uniform());
    },
  };
}
