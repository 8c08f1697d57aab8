import type { GpuContext } from './device';

// The WebGPU spec's flag values, spelled out so no GPUBufferUsage/GPUMapMode global is needed (Node has none).
const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;
const MAP_MODE_READ = 0x1;

/** A kernel's declared program: its WGSL, entry point and workgroup size (onnxruntime-web's style). */
export interface KernelProgram {
  readonly name: string;
  readonly code: string;
  readonly entryPoint: string;
  readonly workgroupSize: number;
}

export class GpuInputError extends RangeError {
  override readonly name = 'GpuInputError';
}

export function pipelineFor(context: GpuContext, program: KernelProgram): GPUComputePipeline {
  let pipeline = context.pipelines.get(program.name);
  if (!pipeline) {
    const module = context.device.createShaderModule({ label: program.name, code: program.code });
    pipeline = context.device.createComputePipeline({
      label: program.name,
      layout: 'auto',
      compute: { module, entryPoint: program.entryPoint },
    });
    context.pipelines.set(program.name, pipeline);
  }
  return pipeline;
}

/** Checks a binding against maxStorageBufferBindingSize, naming the limit and the sizes. */
export function checkBindingSize(context: GpuContext, kernel: string, what: string, bytes: number): void {
  const limit = context.device.limits.maxStorageBufferBindingSize;
  if (bytes > limit) {
    throw new GpuInputError(
      `${kernel}: ${what} needs ${bytes} bytes, above this device's maxStorageBufferBindingSize of ${limit} bytes`,
    );
  }
}

/** Checks a dispatch against maxComputeWorkgroupsPerDimension, naming the limit and the sizes. */
export function checkDispatch(context: GpuContext, kernel: string, what: string, workgroups: number): void {
  const limit = context.device.limits.maxComputeWorkgroupsPerDimension;
  if (workgroups > limit) {
    throw new GpuInputError(
      `${kernel}: ${what} needs ${workgroups} workgroups, above this device's maxComputeWorkgroupsPerDimension of ${limit}`,
    );
  }
}

export function storageBuffer(context: GpuContext, label: string, bytes: number, copyDst = true): GPUBuffer {
  return context.device.createBuffer({
    label,
    size: Math.max(4, Math.ceil(bytes / 4) * 4),
    usage: USAGE.STORAGE | USAGE.COPY_SRC | (copyDst ? USAGE.COPY_DST : 0),
  });
}

export function uploadBuffer(context: GpuContext, label: string, data: ArrayBufferView<ArrayBuffer>): GPUBuffer {
  const buffer = storageBuffer(context, label, data.byteLength);
  context.device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

export function uniformBuffer(context: GpuContext, label: string, data: ArrayBuffer): GPUBuffer {
  const buffer = context.device.createBuffer({
    label,
    size: Math.ceil(data.byteLength / 16) * 16,
    usage: USAGE.UNIFORM | USAGE.COPY_DST,
  });
  context.device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

/** Copies `bytes` of each buffer to the CPU after the submitted work; the only readback path. */
export async function readBack(context: GpuContext, sources: { buffer: GPUBuffer; bytes: number }[]): Promise<ArrayBuffer[]> {
  const encoder = context.device.createCommandEncoder({ label: 'readback' });
  const staging = sources.map(({ buffer, bytes }) => {
    const target = context.device.createBuffer({
      label: `${buffer.label} readback`,
      size: Math.max(4, Math.ceil(bytes / 4) * 4),
      usage: USAGE.MAP_READ | USAGE.COPY_DST,
    });
    encoder.copyBufferToBuffer(buffer, 0, target, 0, target.size);
    return target;
  });
  context.device.queue.submit([encoder.finish()]);
  return Promise.all(
    staging.map(async (target, i) => {
      await target.mapAsync(MAP_MODE_READ);
      const copy = target.getMappedRange().slice(0, (sources[i] as { bytes: number }).bytes);
      target.unmap();
      target.destroy();
      return copy;
    }),
  );
}
