/**
 * The one verdict rule for every speed comparison (bench, sweep, scorecard, the CLI and the app's race):
 * a comparison is a list of pairs, each the contender and its baseline on the same seeds, run next to each
 * other in time, so that whatever load the machine had then hits both sides of the pair alike. The figure is
 * the median of the pairs' ratios, its interval a 95% percentile bootstrap over the pairs (seeded, so the
 * same pairs always give the same interval), and the verdict compares that interval with a threshold (1×
 * for "faster than", a goal for a goal line):
 * - fewer than MIN_SAMPLES_FOR_VERDICT pairs: "too few samples", never faster or slower;
 * - the whole interval above the threshold: "faster"; the whole interval below: "slower";
 * - otherwise "within noise".
 * At the minimum of five pairs the interval is the pairs' own range, so faster means every pair faster: under
 * no true difference that happens 1 time in 32, and faster then slower on a rerun about 1 time in 1,000.
 */
import { bootstrapInterval, median, type Interval } from './bootstrap';
import { spreadOf, type Spread } from './fairTiming';

export type Verdict = 'faster' | 'slower' | 'within noise' | 'too few samples';

/** Below this many pairs no verdict is faster or slower. */
export const MIN_SAMPLES_FOR_VERDICT = 5;

export interface PairedComparison {
  /** The median over pairs of contender / baseline. */
  ratio: number;
  /** Every pair's ratio, with min–max and quartiles. */
  spread: Spread;
  /** The median ratio's 95% bootstrap interval over the pairs. */
  interval: Interval;
  /** What the interval says against `threshold`. */
  verdict: Verdict;
  threshold: number;
}

/** The verdict an interval over `interval.n` pairs gives against `threshold` (1 by default). */
export function verdictOf(interval: Interval, threshold = 1): Verdict {
  if (interval.n < MIN_SAMPLES_FOR_VERDICT) return 'too few samples';
  if (interval.low > threshold) return 'faster';
  if (interval.high < threshold) return 'slower';
  return 'within noise';
}

/** Pair by pair, contender / baseline: the two lists are the same pairs in the same order. */
export function pairRatios(contender: readonly number[], baseline: readonly number[]): number[] {
  if (contender.length !== baseline.length)
    throw new RangeError(
      `${contender.length} contender samples against ${baseline.length} baseline samples: a comparison is made of pairs`,
    );
  return contender.map((value, i) => value / (baseline[i] as number));
}

/** The comparison of already-paired ratios (each contender / baseline on the same seeds, adjacent in time) against `threshold`. */
export function compareRatios(ratios: readonly number[], threshold = 1): PairedComparison {
  const interval = bootstrapInterval(ratios, { statistic: median });
  return {
    ratio: median(ratios),
    spread: spreadOf(ratios),
    interval,
    verdict: verdictOf(interval, threshold),
    threshold,
  };
}

/** Contender against baseline, pair by pair (for speeds: tokens/s, so a ratio above 1 is faster). */
export function comparePairs(
  contender: readonly number[],
  baseline: readonly number[],
  threshold = 1,
): PairedComparison {
  return compareRatios(pairRatios(contender, baseline), threshold);
}

/** How a verdict reads in a table, a goal line or the app. */
export const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  faster: 'faster',
  slower: 'slower',
  'within noise': 'within noise',
  'too few samples': `too few samples (under ${MIN_SAMPLES_FOR_VERDICT})`,
};

/** The rule in one sentence, for help texts and table notes. */
export const VERDICT_RULE = `the median of paired ratios (same seeds, run next to each other) with its 95% bootstrap interval over the pairs: faster or slower only when the whole interval is on one side, within noise when it holds the threshold, too few samples under ${MIN_SAMPLES_FOR_VERDICT} pairs`;

/** "1.23× [1.10–1.31] faster": a comparison as a table cell. */
export function formatComparison(comparison: PairedComparison, digits = 2): string {
  const { ratio, interval, verdict } = comparison;
  return `${ratio.toFixed(digits)}× [${interval.low.toFixed(digits)}–${interval.high.toFixed(digits)}] ${VERDICT_TEXT[verdict]}`;
}
