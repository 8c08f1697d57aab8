/**
 * The shared verdict rule (src/core/verdict.ts). One fixed workload, its decisions deterministic (every
 * contender's true speed is fixed) and its timings noisy the way a shared 2-core machine is (a slow drift in
 * load, and bursts that hit single runs), is "run" five times with fresh noise: no two verdicts may
 * contradict. Timings are synthetic, so the test takes milliseconds and asserts no wall-clock time.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import {
  MIN_SAMPLES_FOR_VERDICT,
  comparePairs,
  compareRatios,
  formatComparison,
  verdictOf,
  type PairedComparison,
} from '../../src/core/verdict';

/**
 * One run of the workload: `pairs` pairs of (contender, baseline) tokens/s, the two of a pair next to each
 * other in time. Load drifts slowly (both sides of a pair see nearly the same), each run jitters by a few
 * percent, and bursts (a neighbour's job: a tenth of runs start one, which then lasts about three runs) halve
 * or third the speed of the runs they cover, often only one side of a pair at a burst's edges.
 */
function timedPairs(trueRatio: number, pairs: number, noiseSeed: number): { contender: number[]; baseline: number[] } {
  const rng = createRng(noiseSeed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - rng.uniform())) * Math.cos(2 * Math.PI * rng.uniform());
  let load = 1;
  let burst = 1;
  const one = (rate: number) => {
    load = Math.min(3, Math.max(0.4, load * Math.exp(0.15 * gaussian())));
    burst = burst > 1 ? (rng.uniform() < 0.7 ? burst : 1) : rng.uniform() < 0.1 ? 2 + rng.uniform() : 1;
    return (rate * Math.exp(0.04 * gaussian())) / (load * burst);
  };
  const contender: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < pairs; i++) {
    // Which side goes first alternates, as the bench's pairs do.
    if (i % 2 === 0) {
      contender.push(one(600 * trueRatio));
      baseline.push(one(600));
    } else {
      baseline.push(one(600));
      contender.push(one(600 * trueRatio));
    }
  }
  return { contender, baseline };
}

/** The fixed workload: contenders with their true speed over the baseline, and the pairs each is timed over. */
const WORKLOAD = [
  { name: 'tokenwise K = 1', trueRatio: 1.35, pairs: 8 },
  // The same decisions as tokenwise K = 1 (identical counters): it must not be judged otherwise.
  { name: 'spectr-gbv K = 1', trueRatio: 1.35, pairs: 8 },
  { name: 'schema on over off', trueRatio: 1.0, pairs: 8 },
  { name: 'a small gain', trueRatio: 1.04, pairs: 8 },
  { name: 'spectr K = 3', trueRatio: 0.8, pairs: 8 },
  // Three pairs, the scorecard's old default: its verdicts flipped; now always too few samples.
  { name: 'three samples', trueRatio: 1.0, pairs: 3 },
] as const;

const runWorkload = (repeat: number): Record<string, PairedComparison> =>
  Object.fromEntries(
    WORKLOAD.map(({ name, trueRatio, pairs }, i) => {
      const { contender, baseline } = timedPairs(trueRatio, pairs, 1000 * repeat + i + 1);
      return [name, comparePairs(contender, baseline)];
    }),
  );

/** Two verdicts contradict when one is faster and the other slower, or one is significant and the other's median is on the opposite side of 1. */
function contradicts(a: PairedComparison, b: PairedComparison): boolean {
  const signs = (x: PairedComparison, y: PairedComparison) =>
    (x.verdict === 'faster' && (y.verdict === 'slower' || y.ratio < 1)) ||
    (x.verdict === 'slower' && (y.verdict === 'faster' || y.ratio > 1));
  return signs(a, b) || signs(b, a);
}

describe('the verdict rule', () => {
  it('one fixed workload run five times: no two verdicts contradict, and identical decisions are judged alike', () => {
    const runs = [1, 2, 3, 4, 5].map(runWorkload);
    for (const { name } of WORKLOAD) {
      const comparisons = runs.map((run) => run[name] as PairedComparison);
      comparisons.forEach((a, i) =>
        comparisons
          .slice(i + 1)
          .forEach((b) =>
            expect(contradicts(a, b), `${name}: ${formatComparison(a)} against ${formatComparison(b)}`).toBe(false),
          ),
      );
    }
    const same = runs.flatMap((run) => [run['tokenwise K = 1'], run['spectr-gbv K = 1']] as PairedComparison[]);
    same.forEach((a, i) => same.slice(i + 1).forEach((b) => expect(contradicts(a, b)).toBe(false)));
    // The workload is not all noise: the clear gain and the clear loss are called in most runs.
    const called = (name: string, verdict: string) => runs.filter((run) => run[name]?.verdict === verdict).length;
    expect(called('tokenwise K = 1', 'faster')).toBeGreaterThanOrEqual(3);
    expect(called('spectr K = 3', 'slower')).toBeGreaterThanOrEqual(3);
    expect(runs.map((run) => run['three samples']?.verdict)).toEqual(Array(5).fill('too few samples'));
  });

  it('with no true difference, says faster or slower rarely (a few runs in a hundred)', () => {
    const called = Array.from({ length: 200 }, (_, run) => {
      const { contender, baseline } = timedPairs(1, 8, 77 + run);
      return comparePairs(contender, baseline).verdict;
    }).filter((verdict) => verdict === 'faster' || verdict === 'slower').length;
    expect(called).toBeLessThanOrEqual(12);
  });

  it('needs the minimum of pairs, compares with a threshold, and refuses unpaired lists', () => {
    const faster = [1.2, 1.3, 1.25, 1.4, 1.22, 1.31];
    expect(compareRatios(faster.slice(0, MIN_SAMPLES_FOR_VERDICT - 1)).verdict).toBe('too few samples');
    expect(compareRatios(faster.slice(0, MIN_SAMPLES_FOR_VERDICT)).verdict).toBe('faster');
    expect(compareRatios(faster.map((ratio) => 1 / ratio)).verdict).toBe('slower');
    expect(compareRatios([0.9, 1.1, 1.05, 0.97, 1.2, 1.01]).verdict).toBe('within noise');
    // Against a goal of 1.6× the same pairs are slower than the goal; against 1.1× faster.
    expect(compareRatios(faster, 1.6).verdict).toBe('slower');
    expect(compareRatios(faster, 1.1).verdict).toBe('faster');
    expect(verdictOf({ low: 1.01, high: 1.2, level: 0.95, n: 2 })).toBe('too few samples');
    expect(() => comparePairs([1, 2], [1])).toThrow(/pairs/);
    expect(formatComparison(compareRatios(faster))).toBe('1.27× [1.21–1.35] faster');
  });
});
