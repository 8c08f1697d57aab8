import { describe, expect, it } from 'vitest';
import { bernoulliFromWords } from '../../src/core/random';
import { createRng, streamWord } from '../../src/core/rng';
import { boundaryTokens, exactCategoricalLaw, gaussianProbs, totalVariation } from '../core/exactLaw';
import { suiteDevices } from '../support/gpu';
import { gpuBernoullis, gpuDraws, gpuPhiloxWords } from './samplerProbe';

const V = 50_257;

describe('the WGSL sampler follows the exact law of the CPU twin (Node, Dawn on SwiftShader)', () => {
  const devices = suiteDevices();

  // The kernel's decision function, evaluated on the word grid at the boundaries of the exact law: at the
  // first and last uniform of each sampled token, and the uniform just before it. Integer arithmetic leaves
  // no ties, so every one must agree; the law itself is held to TV ≤ 1e-6 and reachability here too.
  it.each([1, 4])(
    'draws at V = 50,257 (σ = %i) land where the exact law puts them',
    async (sigma) => {
      const weights = Float32Array.from(gaussianProbs(V, sigma, 40 + sigma));
      const { counts, first } = exactCategoricalLaw(weights);
      expect(totalVariation(counts, weights)).toBeLessThanOrEqual(1e-6);
      expect([...weights].filter((p, i) => p >= 2 ** -40 && counts[i] === 0n)).toEqual([]);
      const tokens = boundaryTokens(weights, counts, 60);
      const queries: bigint[] = [];
      const expected: number[] = [];
      for (const token of tokens) {
        const start = first[token] as bigint;
        queries.push(start, start + (counts[token] as bigint) - 1n);
        expected.push(token, token);
        if (start > 0n) {
          queries.push(start - 1n);
          // The reachable token just before: scan back over the unreachable ones.
          let previous = token - 1;
          while (counts[previous] === 0n) previous--;
          expected.push(previous);
        }
      }
      const draws = await gpuDraws(await devices.context(), weights, queries);
      expect([...draws]).toEqual(expected);
    },
    300_000,
  );

  it('decides Bernoullis exactly as the CPU twin, at both sides of ceil(p · 2^64)', async () => {
    const rng = createRng(9);
    const p = Float32Array.from({ length: 512 }, (_, i) =>
      i < 8
        ? ([0, 1, 2 ** -149, 2 ** -60, 2 ** -40, 2 ** -33, 0.5, 1 - 2 ** -24][i] as number)
        : rng.uniform() ** (1 + 30 * rng.uniform()),
    );
    const uniforms: bigint[] = [];
    const probabilities: number[] = [];
    const expected: number[] = [];
    for (const value of p) {
      // p is an f32, so p · 2^64 is exact in f64, and ceil is exact below 2^53 (an integer above).
      const scaled = value * 2 ** 64;
      const ceiling = scaled >= 2 ** 53 ? BigInt(scaled) : BigInt(Math.ceil(scaled));
      for (const u of [ceiling - 1n, ceiling]) {
        if (u < 0n || u >= 1n << 64n) continue;
        uniforms.push(u);
        probabilities.push(value);
        expected.push(u < ceiling ? 1 : 0);
      }
    }
    const decisions = await gpuBernoullis(await devices.context(), Float32Array.from(probabilities), uniforms);
    const cpu = uniforms.map((u, i) =>
      bernoulliFromWords(probabilities[i] as number, Number(u >> 32n), Number(u & 0xffffffffn)) ? 1 : 0,
    );
    expect(cpu).toEqual(expected);
    // WGSL may flush subnormal f32 values to zero (SwiftShader does): a subnormal p (< 2^-126) is then
    // never true on the GPU, a difference far below anything the twins could observe.
    const flushed = (value: number) => value > 0 && value < 2 ** -126;
    const mismatches = [...decisions].flatMap((decision, i) => {
      const value = probabilities[i] as number;
      return decision === expected[i] || (flushed(value) && decision === 0)
        ? []
        : [`p = ${value}, U = ${uniforms[i]}: ${decision}`];
    });
    expect(mismatches).toEqual([]);
  });

  it.each([
    { seed: 0, stream: 0, firstWord: 0, count: 4096 },
    { seed: 2 ** 40 + 7, stream: 3, firstWord: 1_000_001, count: 1000 },
    { seed: 2 ** 53 - 1, stream: 2 ** 32 - 1, firstWord: 2 ** 32 - 64, count: 64 },
  ])(
    'Philox words are bit-identical to src/core/rng for seed $seed, stream $stream, from word $firstWord',
    async ({ seed, stream, firstWord, count }) => {
      const words = await gpuPhiloxWords(await devices.context(), seed, stream, firstWord, count);
      expect([...words]).toEqual(Array.from({ length: count }, (_, i) => streamWord(seed, stream, firstWord + i)));
    },
  );
});
