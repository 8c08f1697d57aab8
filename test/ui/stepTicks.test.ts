/** The verification-step axis: every step of a short run, round whole numbers over a long one. */
import { describe, expect, it } from 'vitest';
import { stepTicks } from '../../src/ui/chartParts';

describe('stepTicks', () => {
  it('ticks every step of a run of up to 12 steps', () => {
    expect(stepTicks(1)).toEqual([1]);
    expect(stepTicks(6)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(stepTicks(12)).toHaveLength(12);
  });

  it('ticks a longer run at three to seven round whole numbers from 0, the last within one interval of its end', () => {
    expect(stepTicks(1000)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(stepTicks(512)).toEqual([0, 100, 200, 300, 400, 500]);
    expect(stepTicks(13)).toEqual([0, 5, 10]);
    for (let count = 13; count <= 100_000; count++) {
      const ticks = stepTicks(count);
      const size = ticks[1] as number;
      const round = [1, 2, 2.5, 5].some((factor) => Number.isInteger(Math.log10(size / factor)));
      expect(
        ticks.length >= 3 &&
          ticks.length <= 7 &&
          ticks.every((tick, i) => Number.isInteger(tick) && tick === i * size) &&
          round &&
          count - (ticks.at(-1) as number) < size,
        `${count} steps: ${ticks.join(', ')}`,
      ).toBe(true);
    }
  });
});
