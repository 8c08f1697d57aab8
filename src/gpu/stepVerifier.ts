/**
 * The engine's GPU verifier: runs the probs and accept kernels (GpuVerifier) on a step's logits and masks.
 * When the target ran on onnxruntime's WebGPU EP on the same device, its logits are bound where the model
 * left them; otherwise (the wasm EP, or the first step of a run) they are written into one reused buffer.
 * Once its device is lost or reports an uncaptured error, every call fails with that typed error
 * (GpuDeviceLostError, GpuUncapturedError): the caller falls back to the CPU twin rather than trust it.
 */
import { VERIFY_STREAM, type StepVerifier, type VerifyInput } from '../contract/stepVerifier';
import { GpuDeviceLostError, describeDeviceLoss, type GpuDeviceManager } from './device';
import { USAGE } from './kernel';
import { GpuVerifier } from './verifier';

/** `sharedDevice`: onnxruntime's device, when `devices` shares it, so that its logits can be read in place. */
export function gpuStepVerifier(devices: GpuDeviceManager, sharedDevice: GPUDevice | null = null): StepVerifier {
  const verifier = new GpuVerifier(devices);
  let staging: { device: GPUDevice; buffer: GPUBuffer } | null = null;
  const bufferFor = (device: GPUDevice, bytes: number): GPUBuffer => {
    if (!staging || staging.device !== device || staging.buffer.size < bytes) {
      staging?.buffer.destroy();
      staging = {
        device,
        buffer: device.createBuffer({
          label: 'engine step inputs',
          size: Math.max(bytes, 1 << 16),
          usage: USAGE.STORAGE | USAGE.COPY_DST | USAGE.COPY_SRC,
        }),
      };
    }
    return staging.buffer;
  };
  let failure: Error | null = null;
  devices.addEventListener('error', (event) => {
    failure ??= (event as CustomEvent<Error>).detail;
  });
  const verifyOnGpu = async (input: VerifyInput, device: GPUDevice) => {
    const { method, problem, targetLogits, draftLogits, targetMasks, draftMasks, sampling, seed, firstWord } = input;
    // The model's own buffer can be bound only on the device that owns it (onnxruntime's, when shared).
    const inPlace = input.targetLogitsOnGpu !== null && device === sharedDevice;
    // Layout, in 4-byte elements: target logits (unless read in place), draft logits, target masks, draft masks.
    const parts = [
      inPlace ? new Float32Array(0) : targetLogits,
      draftLogits,
      targetMasks ?? new Int32Array(0),
      draftMasks ?? new Int32Array(0),
    ];
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
      targetLogits:
        inPlace && input.targetLogitsOnGpu ? input.targetLogitsOnGpu : { buffer, offset: offsets[0] as number },
      draftLogits: { buffer, offset: offsets[1] as number },
      targetMasks: targetMasks ? { buffer, offset: offsets[2] as number } : null,
      draftMasks: draftMasks ? { buffer, offset: offsets[3] as number } : null,
      targetSampling: sampling,
      draftSampling: sampling,
      seed,
      stream: VERIFY_STREAM,
      firstWord,
    });
    return {
      outcome,
      wordsUsed: outcome.wordsUsed,
      path: inPlace ? ('gpu-in-place' as const) : ('gpu-upload' as const),
      finalLaw: null,
    };
  };
  return {
    kind: 'gpu',
    async verify(input: VerifyInput) {
      if (failure) throw failure;
      const { device } = await devices.context();
      // Work in flight on a lost device may fail (a readback is refused) or never settle at all, and
      // device.lost may settle before or after: race the two, so the loss is what the caller sees.
      const loss = device.lost.then((info) => {
        failure ??= new GpuDeviceLostError(describeDeviceLoss(info));
        throw failure;
      });
      // A step that finished leaves `loss` pending; its later rejection is expected, not unhandled.
      loss.catch(() => undefined);
      try {
        return await Promise.race([verifyOnGpu(input, device), loss]);
      } catch (error) {
        const lost = await Promise.race([
          loss.catch(() => true),
          new Promise<false>((resolve) => setTimeout(resolve, LOSS_SETTLE_MS, false)),
        ]);
        throw lost && failure ? failure : error;
      }
    },
  };
}

/** How long a failed step waits for device.lost to settle before reporting the failure as it came. */
const LOSS_SETTLE_MS = 250;
