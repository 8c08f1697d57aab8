/**
 * Percentile-bootstrap confidence intervals: how far a figure measured over a few runs (seeds, rounds)
 * could move on another draw of the same runs. Seeded (src/core/rng.ts), so a report is reproducible.
 * Used to say when a difference between sweep cells, or a speedup over ar, is noise.
 */
import { createRng } from './rng';

export interface Interval {
  low: number;
  high: number;
  /** The coverage asked for, e.g. 0.95. */
  level: number;
  /** Samples the interval was drawn from: with fewer than 3 it is the samples' own range. */
  n: number;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** The `level` percentile-bootstrap interval of `statistic` (the median by default) over `samples`. */
export function bootstrapInterval(
  samples: readonly number[],
  options: {
    statistic?: (values: readonly number[]) => number;
    resamples?: number;
    level?: number;
    seed?: number;
  } = {},
): Interval {
  const { statistic = median, resamples = 2000, level = 0.95, seed = 1 } = options;
  if (samples.length === 0) throw new RangeError('a bootstrap needs at least one sample');
  if (!samples.every(Number.isFinite))
    throw new RangeError(`samples must be finite numbers, got ${samples.join(', ')}`);
  const n = samples.length;
  if (n < 3) return { low: Math.min(...samples), high: Math.max(...samples), level, n };
  const rng = createRng(seed);
  const draws: number[] = [];
  const resample = new Array<number>(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) resample[i] = samples[Math.floor(rng.uniform() * n)] as number;
    draws.push(statistic(resample));
  }
  draws.sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  const at = (q: number) =>
    draws[Math.min(draws.length - 1, Math.max(0, Math.round(q * (draws.length - 1))))] as number;
  return { low: at(tail), high: at(1 - tail), level, n };
}

export const contains = (interval: Interval, value: number): boolean => interval.low <= value && value <= interval.high;
export const overlap = (a: Interval, b: Interval): boolean => a.low <= b.high && b.low <= a.high;
