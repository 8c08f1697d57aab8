import { createRng } from '../../src/core/rng';
import { categoricalUnits, logitsToProbs } from '../../src/core/sampling';

const TWO_POW_64 = 1n << 64n;

/**
 * The exact law of drawCategorical on `weights`, from its word grid: token i is drawn for the 64-bit
 * uniforms U in [first_i, first_{i+1}), where first_i = ceil(C_{i−1} · 2^64 / S) with C its cumulative
 * units and S their total (floor(U · S / 2^64) ≥ C ⟺ U ≥ C · 2^64 / S). Counts are exact integers.
 */
export function exactCategoricalLaw(weights: ArrayLike<number>): { counts: bigint[]; first: bigint[] } {
  const units = categoricalUnits(weights);
  let total = 0n;
  for (const u of units) total += BigInt(u);
  const firstUniform = (cumulative: bigint) => (cumulative * TWO_POW_64 + total - 1n) / total;
  const first: bigint[] = [];
  const counts: bigint[] = [];
  let cumulative = 0n;
  for (const u of units) {
    const start = firstUniform(cumulative);
    cumulative += BigInt(u);
    first.push(start);
    counts.push(firstUniform(cumulative) - start);
  }
  return { counts, first };
}

/** Total variation between the exact law (counts out of 2^64) and the normalised weights. */
export function totalVariation(counts: readonly bigint[], weights: ArrayLike<number>): number {
  let mass = 0;
  for (let i = 0; i < weights.length; i++) mass += weights[i] as number;
  let distance = 0;
  counts.forEach((count, i) => {
    distance += Math.abs(Number(count) / 2 ** 64 - (weights[i] as number) / mass);
  });
  return distance / 2;
}

/** The two words of a 64-bit uniform. */
export const wordsOf = (uniform: bigint): [number, number] => [Number(uniform >> 32n), Number(uniform & 0xffffffffn)];

/** Softmax of V Gaussian logits of spread σ (Box–Muller on a fixed Philox stream). */
export function gaussianProbs(V: number, sigma: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const logits = Float64Array.from({ length: V }, () => {
    const radius = Math.sqrt(-2 * Math.log(1 - rng.uniform()));
    return sigma * radius * Math.cos(2 * Math.PI * rng.uniform());
  });
  return logitsToProbs(logits, { temperature: 1 });
}

/**
 * Tokens whose grid boundaries a test evaluates the decision function at: the smallest reachable ones (the
 * tail a coarse grid loses), the heaviest, and an even spread over the rest.
 */
export function boundaryTokens(weights: ArrayLike<number>, counts: readonly bigint[], spread: number): number[] {
  const reachable = counts.flatMap((count, i) => (count > 0n ? [i] : []));
  const byWeight = [...reachable].sort((a, b) => (weights[a] as number) - (weights[b] as number));
  const step = Math.max(1, Math.floor(reachable.length / spread));
  const picked = new Set([
    ...byWeight.slice(0, spread),
    ...byWeight.slice(-8),
    ...reachable.filter((_, n) => n % step === 0),
  ]);
  return [...picked].sort((a, b) => a - b);
}
