/**
 * Fair timed comparisons: every contender runs once untimed (JIT, allocations, caches), then the timed
 * rounds rotate the order so that no contender always goes first (or last), and each figure is a median
 * with its spread over the rounds. The CLI race, the app's race and the sweeps all schedule through here.
 */

/** A sample's median with its spread: min–max and the interquartile range, over n samples. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  q1: number;
  q3: number;
  n: number;
}

/** Linear interpolation between closest ranks (the usual "type 7" quantile). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low);
}

export function spreadOf(samples: readonly number[]): Spread {
  if (samples.length === 0) throw new RangeError('a spread needs at least one sample');
  if (!samples.every(Number.isFinite))
    throw new RangeError(`samples must be finite numbers, got ${samples.join(', ')}`);
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0] as number,
    max: sorted.at(-1) as number,
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    n: sorted.length,
  };
}

export interface ScheduledRun<T> {
  item: T;
  /** The item's index in the list scheduled. */
  index: number;
  /** −1 for the untimed warm-up pass, else the timed round 0..repeats−1. */
  round: number;
  timed: boolean;
}

/**
 * One untimed warm-up of each item, then `repeats` timed rounds; round r runs the items rotated by r, so
 * with `repeats` a multiple of the number of items every item holds every position equally often.
 */
export function fairSchedule<T>(items: readonly T[], repeats: number): ScheduledRun<T>[] {
  if (items.length === 0) throw new RangeError('nothing to schedule');
  if (!(Number.isInteger(repeats) && repeats >= 1))
    throw new RangeError(`repeats must be a positive integer, got ${repeats}`);
  const schedule: ScheduledRun<T>[] = items.map((item, index) => ({ item, index, round: -1, timed: false }));
  for (let round = 0; round < repeats; round++) {
    for (let i = 0; i < items.length; i++) {
      const index = (i + round) % items.length;
      schedule.push({ item: items[index] as T, index, round, timed: true });
    }
  }
  return schedule;
}

/**
 * Runs `run` on the schedule and returns, per item (in the given order), its timed results by round.
 * `signal` stops between runs; `onProgress` counts finished runs out of the schedule's length.
 */
export async function runFairly<T, R>(
  items: readonly T[],
  repeats: number,
  run: (item: T, timed: boolean, round: number) => Promise<R>,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<R[][]> {
  const schedule = fairSchedule(items, repeats);
  const results = items.map(() => new Array<R>(repeats));
  for (const [done, entry] of schedule.entries()) {
    options.signal?.throwIfAborted();
    const result = await run(entry.item, entry.timed, entry.round);
    if (entry.timed) (results[entry.index] as R[])[entry.round] = result;
    options.onProgress?.(done + 1, schedule.length);
  }
  return results;
}

/** Whether two spreads' ranges overlap: their medians then cannot be told apart by these rounds. */
export function spreadsOverlap(a: Spread, b: Spread): boolean {
  return a.min <= b.max && b.min <= a.max;
}
