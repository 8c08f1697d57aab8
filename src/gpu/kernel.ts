import type { GpuContext } from './device';

// The WebGPU spec's flag values, spelled out so no GPUBufferUsage/GPUMapMode global is needed (Node has none).
export const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;
const MAP_MODE_READ = 0x1;

/**
 * A kernel's declared program (onnxruntime-web's style): its WGSL, entry point and default workgroup size.
 * Kernels whose WGSL declares `override WG` can be built at other power-of-two sizes.
 */
export interface KernelProgram {
  readonly name: string;
  readonly code: string;
  readonly entryPoint: string;
  readonly workgroupSize: number;
  readonly sizeIsOverridable?: boolean;
}

/**
 * The workgroup size for rows of V tokens. On a real GPU: about 16 tokens per invocation, between 32 and
 * 256. On a software adapter (SwiftShader) every barrier is paid per invocation, so 4 (its SIMD width)
 * measured fastest at every V: 0.8 ms per step at V = 4096 against 11 ms at 256.
 */
export function workgroupSizeFor(context: GpuContext, V: number): number {
  if (context.software) return 4;
  return Math.min(256, Math.max(32, 2 ** Math.ceil(Math.log2(Math.max(1, V / 16)))));
}

export class GpuInputError extends RangeError {
  override readonly name = 'GpuInputError';
}

export function pipelineFor(
  context: GpuContext,
  program: KernelProgram,
  workgroupSize = program.workgroupSize,
): GPUComputePipeline {
  if (workgroupSize !== program.workgroupSize && !program.sizeIsOverridable) {
    throw new GpuInputError(`${program.name}: its workgroup size is fixed at ${program.workgroupSize}`);
  }
  const key = `${program.name}@${workgroupSize}`;
  let pipeline = context.pipelines.get(key);
  if (!pipeline) {
    const module = context.device.createShaderModule({ label: program.name, code: program.code });
    pipeline = context.device.createComputePipeline({
      label: key,
      layout: 'auto',
      compute: {
        module,
        entryPoint: program.entryPoint,
        ...(program.sizeIsOverridable ? { constants: { WG: workgroupSize } } : {}),
      },
    });
    context.pipelines.set(key, pipeline);
  }
  return pipeline;
}

/** Checks a binding against maxStorageBufferBindingSize, naming the limit and the sizes. */
export function checkBindingSize(context: GpuContext, kernel: string, what: string, bytes: number): void {
  const limit = context.limits.maxStorageBufferBindingSize;
  if (bytes > limit) {
    throw new GpuInputError(
      `${kernel}: ${what} needs ${bytes} bytes, above this device's maxStorageBufferBindingSize of ${limit} bytes`,
    );
  }
}

/** Checks a dispatch against maxComputeWorkgroupsPerDimension, naming the limit and the sizes. */
export function checkDispatch(context: GpuContext, kernel: string, what: string, workgroups: number): void {
  const limit = context.limits.maxComputeWorkgroupsPerDimension;
  if (workgroups > limit) {
    throw new GpuInputError(
      `${kernel}: ${what} needs ${workgroups} workgroups, above this device's maxComputeWorkgroupsPerDimension of ${limit}`,
    );
  }
}

/**
 * Reuses buffers across steps: a decode loop asks for the same sizes every step, and creating buffers is
 * far from free. Sizes round up to a power of two so that nearby sizes share buffers.
 */
export class BufferPool {
  private readonly free = new Map<string, GPUBuffer[]>();

  constructor(private readonly device: GPUDevice) {}

  acquire(label: string, bytes: number, usage: number): GPUBuffer {
    const size = Math.max(256, 2 ** Math.ceil(Math.log2(Math.max(bytes, 4))));
    const reused = this.free.get(`${usage}:${size}`)?.pop();
    if (reused) {
      reused.label = label;
      return reused;
    }
    return this.device.createBuffer({ label, size, usage });
  }

  release(buffer: GPUBuffer): void {
    const key = `${buffer.usage}:${buffer.size}`;
    const list = this.free.get(key) ?? [];
    list.push(buffer);
    this.free.set(key, list);
  }
}

const pools = new WeakMap<GPUDevice, BufferPool>();

export function poolFor(context: GpuContext): BufferPool {
  let pool = pools.get(context.device);
  if (!pool) {
    pool = new BufferPool(context.device);
    pools.set(context.device, pool);
  }
  return pool;
}

/**
 * One batch of GPU work: the passes it records, the pooled buffers it borrowed, and the one readback that
 * ends it. Borrowed buffers go back to the pool when the readback is done. A validation error scope spans
 * the batch, so a shader that fails to compile or a bad binding fails `finish` loudly instead of reading
 * back zeros; batches on one device must therefore not interleave (callers run them one after another).
 */
export class GpuWork {
  readonly encoder: GPUCommandEncoder;
  private readonly borrowed: GPUBuffer[] = [];
  private readonly pool: BufferPool;

  constructor(
    readonly context: GpuContext,
    label: string,
  ) {
    context.device.pushErrorScope('validation');
    this.encoder = context.device.createCommandEncoder({ label });
    this.pool = poolFor(context);
  }

  private borrow(label: string, bytes: number, usage: number): GPUBuffer {
    const buffer = this.pool.acquire(label, bytes, usage);
    this.borrowed.push(buffer);
    return buffer;
  }

  storage(label: string, bytes: number): GPUBuffer {
    return this.borrow(label, bytes, USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST);
  }

  upload(label: string, data: ArrayBufferView<ArrayBuffer> | ArrayBuffer): GPUBuffer {
    const buffer = this.storage(label, data.byteLength);
    this.context.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }

  uniform(label: string, data: ArrayBuffer): GPUBuffer {
    const buffer = this.borrow(label, data.byteLength, USAGE.UNIFORM | USAGE.COPY_DST);
    this.context.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }

  /** `bindings[i]` goes to binding i; null skips a binding the entry point does not use. */
  dispatch(
    program: KernelProgram,
    bindings: readonly (GPUBuffer | null)[],
    workgroups: number,
    workgroupSize = program.workgroupSize,
  ): void {
    const pipeline = pipelineFor(this.context, program, workgroupSize);
    const pass = this.encoder.beginComputePass({ label: program.name });
    pass.setPipeline(pipeline);
    pass.setBindGroup(
      0,
      this.context.device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: bindings.flatMap((buffer, binding) => (buffer ? [{ binding, resource: { buffer } }] : [])),
      }),
    );
    pass.dispatchWorkgroups(workgroups);
    pass.end();
  }

  /** Submits the work, reads `bytes` of each source back, and returns the borrowed buffers to the pool. */
  async finish(sources: { buffer: GPUBuffer; bytes: number }[]): Promise<ArrayBuffer[]> {
    const staging = sources.map(({ buffer, bytes }) => {
      const target = this.borrow(`${buffer.label} readback`, bytes, USAGE.MAP_READ | USAGE.COPY_DST);
      this.encoder.copyBufferToBuffer(buffer, 0, target, 0, Math.ceil(bytes / 4) * 4);
      return target;
    });
    this.context.device.queue.submit([this.encoder.finish()]);
    const validationError = await this.context.device.popErrorScope();
    try {
      if (validationError) throw new Error(`WebGPU validation failed: ${validationError.message}`);
      return await Promise.all(
        staging.map(async (target, i) => {
          await target.mapAsync(MAP_MODE_READ);
          const copy = target.getMappedRange().slice(0, (sources[i] as { bytes: number }).bytes);
          target.unmap();
          return copy;
        }),
      );
    } finally {
      for (const buffer of this.borrowed) this.pool.release(buffer);
      this.borrowed.length = 0;
    }
  }
}
