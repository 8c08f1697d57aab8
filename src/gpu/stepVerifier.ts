/**
 * The engine's GPU verifier: runs the probs and accept kernels (GpuVerifier) on a step's logits and masks.
 * When the target ran on onnxruntime's WebGPU EP on the same device, its logits are bound where the model
 * left them; otherwise (the wasm EP, or the first step of a run) they are written into one reused buffer.
 */
import { VERIFY_STREAM, type StepVerifier, type VerifyInput } from '../contract/stepVerifier';
import type { GpuDeviceManager } from './device';
import { USAGE } from './kernel';
import { GpuVerifier } from './verifier';

/** `sharedDevice`: onnxruntime's device, when `devices` shares it, so that its logits can be read in place. */
export function gpuStepVerifier(devices: GpuDeviceManager, sharedDevice: GPUDevice | null = null): StepVerifier {
  const verifier = new GpuVerifier(devices);
  let staging: { device: GPUDevice; buffer: GPUBuffer } | null = null;
  const bufferFor = (device: GPUDevice, bytes: number): GPUBuffer => {
    if (!staging || staging.device !== device || staging.buffer.size < bytes) {
      staging?.buffer.destroy();
      staging = { device, buffer: device.createBuffer({ label: 'engine step inputs', size: Math.max(bytes, 1 << 16), usage: USAGE.STORAGE | USAGE.COPY_DST | USAGE.COPY_SRC }) };
    }
    return staging.buffer;
  };
  return {
    kind: 'gpu',
    async verify(input: VerifyInput) {
      const { method, problem, targetLogits, draftLogits, targetMasks, draftMasks, sampling, seed, firstWord } = input;
      const { device } = await devices.context();
      // The model's own buffer can be bound only on the device that owns it (onnxruntime's, when shared).
      const inPlace = input.targetLogitsOnGpu !== null && device === sharedDevice;
      // Layout, in 4-byte elements: target logits (unless read in place), draft logits, target masks, draft masks.
      const parts = [inPlace ? new Float32Array(0) : targetLogits, draftLogits, targetMasks ?? new Int32Array(0), draftMasks ?? new Int32Array(0)];
      const offsets: number[] = [];
      let elements = 0;
      for (const part of parts) {
        offsets.push(elements);
        elements += part.length;
      }
      const buffer = bufferFor(device, elements * 4);
      parts.forEach((part, i) => {
        if (part.length > 0) device.queue.writeBuffer(buffer, (offsets[i] as number) * 4, part);
      });
      const outcome = await verifier.verify({
        method,
        K: problem.K,
        L: problem.L,
        V: problem.V,
        drafts: problem.drafts,
        targetLogits: inPlace && input.targetLogitsOnGpu ? input.targetLogitsOnGpu : { buffer, offset: offsets[0] as number },
        draftLogits: { buffer, offset: offsets[1] as number },
        targetMasks: targetMasks ? { buffer, offset: offsets[2] as number } : null,
        draftMasks: draftMasks ? { buffer, offset: offsets[3] as number } : null,
        targetSampling: sampling,
        draftSampling: sampling,
        seed,
        stream: VERIFY_STREAM,
        firstWord,
      });
      return { outcome, wordsUsed: outcome.wordsUsed, path: inPlace ? ('gpu-in-place' as const) : ('gpu-upload' as const), finalLaw: null };
    },
  };
}
