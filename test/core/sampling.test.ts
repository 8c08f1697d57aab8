import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import {
  categoricalUnits,
  drawCategorical,
  drawThreshold,
  isTokenAllowed,
  logitsToProbs,
  logitsToProbsInto,
  maskFromAllowed,
  maskWordCount,
  summarizeDistribution,
} from '../../src/core/sampling';

const sum = (row: Float64Array) => row.reduce((a, b) => a + b, 0);

describe('logitsToProbs', () => {
  it('applies temperature to a max-subtracted softmax', () => {
    const probs = logitsToProbs([1, 2, 3], { temperature: 0.5 });
    const expected = [2, 4, 6].map((x) => Math.exp(x - 6));
    const total = expected.reduce((a, b) => a + b, 0);
    expected.forEach((value, i) => expect(probs[i]).toBeCloseTo(value / total, 14));
  });

  it('stays finite for huge logits', () => {
    const probs = logitsToProbs([1e308, 1e308 - 1e292, -1e308], { temperature: 1 });
    expect(probs.every(Number.isFinite)).toBe(true);
    expect(sum(probs)).toBeCloseTo(1, 12);
  });

  it('is greedy and one-hot at temperature 0, ties to the lowest id', () => {
    expect([...logitsToProbs([0, 5, 5, 1], { temperature: 0 })]).toEqual([0, 1, 0, 0]);
  });

  it('greedy respects the mask', () => {
    const mask = maskFromAllowed(4, [0, 3]);
    expect([...logitsToProbs([0, 5, 5, 1], { temperature: 0 }, mask)]).toEqual([0, 0, 0, 1]);
  });

  it('top-k keeps the k highest logits, ties to the lowest id', () => {
    const probs = logitsToProbs([3, 1, 3, 3, 0], { temperature: 1, topK: 2 });
    expect(probs[0]).toBeCloseTo(0.5, 14);
    expect(probs[2]).toBeCloseTo(0.5, 14);
    expect(probs[1]).toBe(0);
    expect(probs[3]).toBe(0);
  });

  it('top-p keeps the smallest nucleus that reaches p', () => {
    const logits = [0.5, 0.3, 0.15, 0.05].map(Math.log);
    expect([...logitsToProbs(logits, { temperature: 1, topP: 0.75 })].map((p) => +p.toFixed(12))).toEqual([
      0.625, 0.375, 0, 0,
    ]);
    expect(logitsToProbs(logits, { temperature: 1, topP: 0.1 })[0]).toBe(1);
  });

  it('applies the xgrammar bitmask: token j allowed iff bit j&31 of word j>>5 is set', () => {
    const V = 70;
    const mask = new Int32Array(maskWordCount(V));
    mask[1] = 1 << 31; // token 63
    mask[2] = 1 << 5; // token 69
    expect(isTokenAllowed(mask, 63)).toBe(true);
    const probs = logitsToProbs(new Float64Array(V), { temperature: 1 }, mask);
    expect(probs[63]).toBeCloseTo(0.5, 14);
    expect(probs[69]).toBeCloseTo(0.5, 14);
    expect(sum(probs)).toBeCloseTo(1, 14);
  });

  it('rejects an all-masked row, NaN, +Infinity, bad mask shapes and bad parameters', () => {
    expect(() => logitsToProbs([1, 2], { temperature: 1 }, new Int32Array(1))).toThrow(/every token is masked/);
    expect(() => logitsToProbs([-Infinity, -Infinity], { temperature: 1 })).toThrow(/every token is masked/);
    expect(() => logitsToProbs([1, NaN], { temperature: 1 })).toThrow(/token 1 is NaN/);
    expect(() => logitsToProbs([Infinity, 0], { temperature: 1 })).toThrow(/token 0 is Infinity/);
    expect(() => logitsToProbs([1, 2], { temperature: 1 }, new Int32Array(2))).toThrow(/needs 1/);
    expect(() => logitsToProbs([1, 2], { temperature: -1 })).toThrow(/temperature/);
    expect(() => logitsToProbs([1, 2], { temperature: 1, topK: 1.5 })).toThrow(/topK/);
    expect(() => logitsToProbs([1, 2], { temperature: 1, topP: 0 })).toThrow(/topP/);
    expect(() => maskFromAllowed(4, [4])).toThrow(/outside the vocabulary/);
    expect(() => logitsToProbsInto(new Float64Array(3), [1, 2], { temperature: 1 })).toThrow(/output row has 3/);
  });

  it('writes every entry of a reused row, zeros included, as a fresh row holds them', () => {
    const V = 1000;
    const rng = createRng(7, 0, 0);
    const logits = Float32Array.from({ length: V }, (_, token) => (token % 97 === 0 ? -Infinity : rng.uniform() * 8));
    const mask = maskFromAllowed(
      V,
      Array.from({ length: V }, (_, token) => token).filter((token) => token % 3 !== 0),
    );
    const settings = [
      { temperature: 1 },
      { temperature: 0.7, topK: 40 },
      { temperature: 1.3, topP: 0.9 },
      { temperature: 0 },
    ];
    for (const params of settings)
      for (const rowMask of [undefined, mask]) {
        const reused = new Float64Array(V).fill(Number.NaN);
        logitsToProbsInto(reused, logits, params, rowMask);
        expect(Array.from(reused)).toEqual(Array.from(logitsToProbs(logits, params, rowMask)));
        expect(reused.every((p) => p >= 0)).toBe(true);
      }
  });
});

/** The 64-bit uniform u · 2^64 (u a multiple of 2^-64 in [0, 1)) as its two words. */
const words = (u: number): [number, number] => {
  const scaled = BigInt(Math.round(u * 2 ** 53)) << 11n;
  return [Number(scaled >> 32n), Number(scaled & 0xffffffffn)];
};

describe('drawCategorical', () => {
  it('inverts the CDF on a 64-bit uniform and never returns a zero-weight entry', () => {
    const weights = [0, 0.25, 0, 0.75, 0];
    expect(drawCategorical(weights, ...words(0))).toBe(1);
    expect(drawCategorical(weights, ...words(0.2499))).toBe(1);
    expect(drawCategorical(weights, ...words(0.25))).toBe(3);
    expect(drawCategorical(weights, 0xffffffff, 0xffffffff)).toBe(3);
  });

  it('normalises unnormalised weights', () => {
    expect(drawCategorical([2, 6], ...words(0.3))).toBe(1);
    expect(drawCategorical([2, 6], ...words(0.2))).toBe(0);
  });

  it('reaches the tail a 24-bit uniform could not: tokens of 1e-8 after a heavy one', () => {
    const weights = [1 - 3e-8, 1e-8, 1e-8, 1e-8];
    // The last 3e-8 of the unit interval, in 2^-64 steps, belongs to tokens 1..3 in order.
    const units = categoricalUnits(weights);
    expect([...units.subarray(1)].every((u) => u > 0)).toBe(true);
    expect(drawCategorical(weights, 0xffffffff, 0xffffffff)).toBe(3);
    expect(drawCategorical(weights, ...words(1 - 2.5e-8))).toBe(1);
    expect(drawCategorical(weights, ...words(1 - 1.5e-8))).toBe(2);
    // The largest 24-bit uniform, 1 − 2^-24, still lies in token 0's share.
    expect(drawCategorical(weights, ...words(1 - 2 ** -24))).toBe(0);
  });

  it('gives the heaviest weight 2^45..2^46 units, whatever the scale (subnormal weights included)', () => {
    for (const scale of [1, 1e-300, 5e-324 * 2 ** 40, 1e300]) {
      const units = categoricalUnits([scale, scale / 4, 0]);
      expect(units[0]).toBeGreaterThanOrEqual(2 ** 45);
      expect(units[0]).toBeLessThan(2 ** 46);
      expect(units[1]).toBe(Math.floor((units[0] as number) / 4));
      expect(units[2]).toBe(0);
    }
  });

  it('thresholds floor(U · S / 2^64) in exact integers (against BigInt)', () => {
    expect(drawThreshold({ high: 0xffffffff, low: 0xffffffff }, { high: 0, low: 10 })).toEqual({ high: 0, low: 9 });
    expect(drawThreshold({ high: 0x80000000, low: 0 }, { high: 3, low: 0 })).toEqual({ high: 1, low: 0x80000000 });
    const rng = createRng(5);
    const big = (w: { high: number; low: number }) => (BigInt(w.high) << 32n) | BigInt(w.low);
    for (let trial = 0; trial < 2000; trial++) {
      const uniform = { high: rng.nextUint32(), low: rng.nextUint32() };
      const total = { high: rng.nextUint32() >>> (trial % 32), low: rng.nextUint32() };
      expect(big(drawThreshold(uniform, total))).toBe((big(uniform) * big(total)) >> 64n);
    }
  });

  it('draws the first token whose cumulative units exceed the threshold, across runs of many tokens (against BigInt)', () => {
    const rng = createRng(9);
    for (let trial = 0; trial < 300; trial++) {
      // Vocabularies that end inside, at and past runs of 128 tokens; some weights zero, some tiny.
      const V = [1, 127, 128, 129, 300, 1025][trial % 6] as number;
      const weights = Array.from({ length: V }, () => {
        const u = rng.nextUint32() / 2 ** 32;
        return u < 0.3 ? 0 : u < 0.4 ? u * 1e-12 : u ** 8;
      });
      weights[trial % V] = 0.5;
      const units = [...categoricalUnits(weights)].map(BigInt);
      const total = units.reduce((a, b) => a + b, 0n);
      const high = rng.nextUint32();
      const low = rng.nextUint32();
      const threshold = (((BigInt(high) << 32n) | BigInt(low)) * total) >> 64n;
      let cumulative = 0n;
      const expected = units.findIndex((unit) => (cumulative += unit) > threshold);
      expect(drawCategorical(weights, high, low)).toBe(expected);
    }
  });

  it('rejects empty, negative, NaN and infinite weights', () => {
    expect(() => drawCategorical([0, 0], 0, 0)).toThrow(/sum to 0/);
    expect(() => drawCategorical([1, -1], 0, 0)).toThrow(/weight 1/);
    expect(() => drawCategorical([1, NaN], 0, 0)).toThrow(/weight 1/);
    expect(() => drawCategorical([1, Infinity], 0, 0)).toThrow(/weight 1/);
  });
});

describe('summarizeDistribution', () => {
  it('normalises, keeps the heaviest entries heaviest first (ties by id), and counts the support', () => {
    const summary = summarizeDistribution([0, 3, 1, 0, 3, 2, 1], 3);
    expect(summary.support).toBe(5);
    expect(summary.top).toEqual([
      { token: 1, prob: 0.3 },
      { token: 4, prob: 0.3 },
      { token: 5, prob: 0.2 },
    ]);
  });

  it('agrees with a full sort on random rows, whatever the count', () => {
    let state = 12345;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 50; trial++) {
      const weights = Array.from({ length: 1 + Math.floor(next() * 60) }, () =>
        next() < 0.3 ? 0 : Math.floor(next() * 8),
      );
      if (!weights.some((w) => w > 0)) weights[0] = 1;
      const total = weights.reduce((a, b) => a + b, 0);
      const count = 1 + Math.floor(next() * 7);
      const sorted = weights
        .map((weight, token) => ({ token, prob: weight / total }))
        .filter((entry) => entry.prob > 0)
        .sort((a, b) => b.prob - a.prob || a.token - b.token);
      const summary = summarizeDistribution(weights, count);
      expect(summary.top).toEqual(sorted.slice(0, count));
      expect(summary.support).toBe(sorted.length);
    }
  });

  it('rejects empty, negative and NaN weights', () => {
    expect(() => summarizeDistribution([0, 0], 2)).toThrow(/sum to 0/);
    expect(() => summarizeDistribution([1, -1], 2)).toThrow(/weight 1/);
    expect(() => summarizeDistribution([NaN, 1], 2)).toThrow(/weight 0/);
  });
});
