import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, streamWord } from '../../src/core/rng';
import type { GpuContext, GpuDeviceManager } from '../../src/gpu/device';
import { generateUniformWords } from '../../src/gpu/kernels/uniforms';
import { nodeDeviceManager } from '../support/gpu';

describe('Philox in WGSL (Node, Dawn on SwiftShader)', () => {
  let manager: GpuDeviceManager;
  let context: GpuContext;
  beforeAll(async () => {
    manager = nodeDeviceManager();
    context = await manager.context();
  });
  afterAll(() => manager.dispose());

  it.each([
    { seed: 0, stream: 0, firstWord: 0, count: 4096 },
    { seed: 2 ** 40 + 7, stream: 3, firstWord: 1_000_001, count: 1000 },
    { seed: 2 ** 53 - 1, stream: 2 ** 32 - 1, firstWord: 2 ** 32 - 64, count: 64 },
  ])('is bit-identical to src/core/rng for seed $seed, stream $stream, words from $firstWord', async (request) => {
    const gpuWords = await generateUniformWords(context, request);
    const rng = createRng(request.seed, request.stream);
    const cpuWords = Array.from({ length: request.count }, (_, i) => streamWord(request.seed, request.stream, request.firstWord + i));
    expect([...gpuWords]).toEqual(cpuWords);
    if (request.firstWord === 0) expect([...gpuWords]).toEqual(Array.from({ length: request.count }, () => rng.nextUint32()));
  });

  it('names the limit when a request is too large', async () => {
    const words = context.device.limits.maxStorageBufferBindingSize / 4 + 1;
    await expect(generateUniformWords(context, { seed: 1, stream: 0, firstWord: 0, count: words })).rejects.toThrow(
      /maxStorageBufferBindingSize of \d+ bytes/,
    );
  });
});
