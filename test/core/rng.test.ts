import { describe, expect, it } from 'vitest';
import { createRng, mulHi32, philox4x32_10, uniformF64FromWords } from '../../src/core/rng';

// Known-answer vectors published with Random123 (kat_vectors): counter[4], key[2] -> output[4].
const KNOWN_ANSWERS: [number[], number[], number[]][] = [
  [
    [0, 0, 0, 0],
    [0, 0],
    [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
  ],
  [
    [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
    [0xffffffff, 0xffffffff],
    [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
  ],
  [
    [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
    [0xa4093822, 0x299f31d0],
    [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
  ],
];

describe('Philox4x32-10', () => {
  it.each(KNOWN_ANSWERS)('matches the Random123 known answer for counter %j', (counter, key, expected) => {
    expect(philox4x32_10(counter as [number, number, number, number], key as [number, number])).toEqual(expected);
  });

  it('computes the high word of 32×32-bit products exactly', () => {
    const rng = createRng(99);
    for (let i = 0; i < 2000; i++) {
      const a = rng.nextUint32();
      const b = i % 7 === 0 ? 0xffffffff : rng.nextUint32();
      expect(mulHi32(a, b)).toBe(Number((BigInt(a) * BigInt(b)) >> 32n));
    }
  });

  it('lays the stream out as documented: block b = philox(counter [b, 0, stream, 0], key [seed lo, seed hi])', () => {
    const seed = 2 ** 40 + 12345;
    const rng = createRng(seed, 7);
    const words = Array.from({ length: 12 }, () => rng.nextUint32());
    const key: [number, number] = [12345, 256];
    const expected = [0, 1, 2].flatMap((block) => philox4x32_10([block, 0, 7, 0], key));
    expect(words).toEqual(expected);
    expect(rng.position).toBe(12);
  });

  it('replays exactly from the same seed and differs across seeds and streams', () => {
    const draw = (seed: number, stream = 0) => {
      const rng = createRng(seed, stream);
      return Array.from({ length: 64 }, () => rng.uniform());
    };
    expect(draw(5)).toEqual(draw(5));
    expect(draw(5)).not.toEqual(draw(6));
    expect(draw(5, 0)).not.toEqual(draw(5, 1));
  });

  it('rejects seeds that are not non-negative safe integers', () => {
    expect(() => createRng(-1)).toThrow(/seed/);
    expect(() => createRng(1.5)).toThrow(/seed/);
    expect(() => createRng(1, 2 ** 32)).toThrow(/stream/);
  });
});

describe('float recipes', () => {
  it('f64: 27 bits of the first word over 26 of the second, scaled by 2^-53', () => {
    expect(uniformF64FromWords(0, 0)).toBe(0);
    expect(uniformF64FromWords(0xffffffff, 0xffffffff)).toBe(1 - 2 ** -53);
    expect(uniformF64FromWords(0x80000000, 0)).toBe(0.5);
    expect(uniformF64FromWords(0, 0x40)).toBe(2 ** -53);
  });

  it('gives uniforms whose mean and spread match U(0,1)', () => {
    const rng = createRng(3);
    const n = 200_000;
    let sum = 0;
    let sumSquares = 0;
    for (let i = 0; i < n; i++) {
      const u = rng.uniform();
      sum += u;
      sumSquares += u * u;
    }
    // Standard errors: mean 1/sqrt(12n) ≈ 6.5e-4, so 6 sigma is about 4e-3.
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(4e-3);
    expect(Math.abs(sumSquares / n - 1 / 3)).toBeLessThan(4e-3);
  });
});

describe('starting mid-stream', () => {
  it('createRng(seed, stream, start) continues exactly where a generator at that position would', () => {
    const full = createRng(8, 2);
    const words = Array.from({ length: 23 }, () => full.nextUint32());
    for (const start of [0, 1, 5, 8, 22]) {
      const resumed = createRng(8, 2, start);
      expect(Array.from({ length: 23 - start }, () => resumed.nextUint32())).toEqual(words.slice(start));
    }
  });
});
