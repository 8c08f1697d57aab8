import { describe, expect, it } from 'vitest';
import { cpuVerifier, type VerifyInput } from '../../src/contract/stepVerifier';
import { GpuDeviceLostError, GpuDeviceManager, GpuUncapturedError } from '../../src/gpu/device';
import { gpuStepVerifier } from '../../src/gpu/stepVerifier';
import { nodeGpu } from '../support/gpu';

const V = 8;
const L = 2;

/** One draft of L tokens over uniform logits (draft and target alike). */
function stepInput(seed: number): VerifyInput {
  return {
    method: 'gbv',
    problem: {
      K: 1,
      L,
      V,
      drafts: Int32Array.from({ length: L }, (_, j) => j),
      draftProbs: new Float64Array(L * V).fill(1 / V),
      targetProbs: new Float64Array((L + 1) * V).fill(1 / V),
    },
    targetLogits: new Float32Array((L + 1) * V),
    draftLogits: new Float32Array(L * V),
    targetLogitsOnGpu: null,
    targetMasks: null,
    draftMasks: null,
    sampling: { temperature: 1 },
    seed,
    firstWord: 0,
  };
}

describe('a GPU step verifier whose device is lost (Node, Dawn on SwiftShader)', () => {
  it('fails every later step with a typed GpuDeviceLostError that says so, and the CPU twin takes the same input', async () => {
    const manager = new GpuDeviceManager({ gpu: nodeGpu() });
    const verifier = gpuStepVerifier(manager);
    const before = await verifier.verify(stepInput(1));
    expect(before.outcome.tokens.length).toBeGreaterThan(0);
    (await manager.context()).device.destroy();
    const failure = await verifier.verify(stepInput(2)).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GpuDeviceLostError);
    expect((failure as Error).message).toMatch(/^the GPU device was lost: .*\(destroyed\)$/);
    // It stays failed, even though the manager would hand out a fresh device.
    await expect(verifier.verify(stepInput(3))).rejects.toBe(failure);
    const fallback = await cpuVerifier.verify(stepInput(2));
    expect(fallback.outcome.tokens.length).toBeGreaterThan(0);
    await manager.dispose();
  }, 300_000);

  it('fails with a GpuUncapturedError after an error no scope caught', async () => {
    const manager = new GpuDeviceManager({ gpu: nodeGpu() });
    const verifier = gpuStepVerifier(manager);
    const { device } = await manager.context();
    const reported = new Promise((resolve) => manager.addEventListener('error', resolve, { once: true }));
    // A buffer larger than any device allows, outside an error scope.
    device.createBuffer({ size: 2 ** 52, usage: 0x80 });
    await reported;
    await expect(verifier.verify(stepInput(4))).rejects.toBeInstanceOf(GpuUncapturedError);
    await manager.dispose();
  });
});
