import { describe, expect, it } from 'vitest';
import { createRng, streamWord } from '../../src/core/rng';
import { generateUniformWords } from '../../src/gpu/kernels/uniforms';
import { suiteDevices } from '../support/gpu';

describe('Philox in WGSL (Node, Dawn on SwiftShader)', () => {
  const devices = suiteDevices();

  it.each([
    { seed: 0, stream: 0, firstWord: 0, count: 4096 },
    { seed: 2 ** 40 + 7, stream: 3, firstWord: 1_000_001, count: 1000 },
    { seed: 2 ** 53 - 1, stream: 2 ** 32 - 1, firstWord: 2 ** 32 - 64, count: 64 },
  ])('is bit-identical to src/core/rng for seed $seed, stream $stream, words from $firstWord', async (request) => {
    const gpuWords = await generateUniformWords(await devices.context(), request);
    const rng = createRng(request.seed, request.stream);
    const cpuWords = Array.from({ length: request.count }, (_, i) => streamWord(request.seed, request.stream, request.firstWord + i));
    expect([...gpuWords]).toEqual(cpuWords);
    if (request.firstWord === 0) expect([...gpuWords]).toEqual(Array.from({ length: request.count }, () => rng.nextUint32()));
  });

  it('names the limit when a request is too large', async () => {
    const context = await devices.context();
    const words = context.limits.maxStorageBufferBindingSize / 4 + 1;
    await expect(generateUniformWords(context, { seed: 1, stream: 0, firstWord: 0, count: words })).rejects.toThrow(
      /maxStorageBufferBindingSize of \d+ bytes/,
    );
  });
});
