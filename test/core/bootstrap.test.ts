/** Bootstrap intervals, and the sweep's noise marks built on them. */
import { describe, expect, it } from 'vitest';
import { bootstrapInterval, contains, overlap } from '../../src/core/bootstrap';
import { sweepMarkdown, type SweepCell } from '../../src/contract/bench';
import { spreadOf } from '../../src/core/fairTiming';
import { emptyCounters, recordStep } from '../../src/core/metrics';

const cell = (K: number, L: number, speedups: number[]): SweepCell => ({
  K,
  L,
  seeds: speedups.length,
  runs: speedups.length,
  tokens: 10 * speedups.length,
  counters: recordStep(emptyCounters(L), {
    proposed: K * L,
    invalidated: 0,
    distinctProposed: K * L,
    distinctEligible: K * L,
    accepted: 1,
  }),
  tokensPerSecond: spreadOf(speedups.map((s) => 10 * s)),
  speedup: spreadOf(speedups),
  speedupInterval: bootstrapInterval(speedups),
  meanAcceptanceLength: spreadOf([2]),
  positionsPerStep: null,
});

describe('bootstrap intervals', () => {
  it('hold the median, narrow with more samples, are reproducible, and are the range below 3 samples', () => {
    const few = [1.1, 1.9, 1.4, 1.2, 1.6];
    const many = Array.from({ length: 40 }, (_, i) => few[i % few.length] as number);
    const a = bootstrapInterval(few);
    expect(contains(a, 1.4)).toBe(true);
    expect(bootstrapInterval(few)).toEqual(a);
    const b = bootstrapInterval(many);
    expect(b.high - b.low).toBeLessThan(a.high - a.low);
    expect(bootstrapInterval([2, 3])).toEqual({ low: 2, high: 3, level: 0.95, n: 2 });
    expect(overlap({ low: 1, high: 2, level: 0.95, n: 3 }, { low: 2.5, high: 3, level: 0.95, n: 3 })).toBe(false);
    expect(() => bootstrapInterval([])).toThrow(RangeError);
  });

  it('a sweep marks cells within noise and bolds the best only when it stands out', () => {
    const noisy = [cell(1, 2, [0.8, 1.6, 1.2, 0.9, 1.4]), cell(1, 4, [1.0, 2.2, 1.5, 1.1, 1.9])];
    const table = sweepMarkdown(noisy, 'speedup');
    expect(table).toContain('1.20 [0.80–1.60] ≈ ar, ≈ best');
    expect(
      table
        .split('\n')
        .filter((line) => line.startsWith('| 1 |'))
        .join('\n'),
    ).not.toContain('**');
    expect(table).toContain('No cell is bold');
    const clear = [cell(1, 2, [1.0, 1.05, 1.02, 1.01, 1.04]), cell(1, 4, [2.0, 2.1, 2.05, 2.02, 2.08])];
    const shown = sweepMarkdown(clear, 'speedup');
    expect(shown).toContain('**2.05 [2.00–2.10]**');
    expect(shown).toContain('1.02 [1.00–1.05] ≈ ar |');
    // Under the verdict rule's five samples a cell is marked as too few, never as faster or within noise.
    expect(sweepMarkdown([cell(1, 2, [0.8, 1.6, 1.2]), cell(1, 4, [2.0, 2.1, 2.05])], 'speedup')).toContain(
      '1.20 [0.80–1.60] too few samples (under 5)',
    );
  });
});
