import philoxWgsl from '../../../shaders/philox.wgsl?raw';
import uniformsWgsl from '../../../shaders/uniforms.wgsl?raw';
import { seedKey } from '../../core/rng';
import type { GpuContext } from '../device';
import { GpuInputError, checkBindingSize, checkDispatch, pipelineFor, readBack, storageBuffer, uniformBuffer, type KernelProgram } from '../kernel';

export const uniformsProgram: KernelProgram = {
  name: 'uniforms',
  code: `${philoxWgsl}\n${uniformsWgsl}`,
  entryPoint: 'main',
  workgroupSize: 64,
};

export interface UniformWordsRequest {
  seed: number;
  stream: number;
  /** Index of the first word of the stream to produce. */
  firstWord: number;
  count: number;
}

export function validateUniformsInputs(context: GpuContext, request: UniformWordsRequest): void {
  const { stream, firstWord, count } = request;
  seedKey(request.seed);
  for (const [name, value] of Object.entries({ stream, firstWord, count })) {
    if (!(Number.isInteger(value) && value >= 0 && value < 2 ** 32)) {
      throw new GpuInputError(`uniforms: ${name} must be an integer in [0, 2^32), got ${value}`);
    }
  }
  if (firstWord + count > 2 ** 32) throw new GpuInputError('uniforms: words past index 2^32 are not addressable on the GPU');
  checkBindingSize(context, 'uniforms', `${count} words`, count * 4);
  checkDispatch(context, 'uniforms', `${count} words`, Math.ceil(count / uniformsProgram.workgroupSize));
}

/** Records the kernel that writes words firstWord..firstWord+count of a Philox stream into a new buffer. */
export function encodeUniformWords(context: GpuContext, encoder: GPUCommandEncoder, request: UniformWordsRequest): GPUBuffer {
  validateUniformsInputs(context, request);
  const [key0, key1] = seedKey(request.seed);
  const params = uniformBuffer(context, 'uniforms params', Uint32Array.of(key0, key1, request.stream, request.firstWord, request.count).buffer);
  const words = storageBuffer(context, 'uniform words', request.count * 4, false);
  const pipeline = pipelineFor(context, uniformsProgram);
  const pass = encoder.beginComputePass({ label: 'uniforms' });
  pass.setPipeline(pipeline);
  pass.setBindGroup(
    0,
    context.device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: params } },
        { binding: 1, resource: { buffer: words } },
      ],
    }),
  );
  pass.dispatchWorkgroups(Math.max(1, Math.ceil(request.count / uniformsProgram.workgroupSize)));
  pass.end();
  return words;
}

export async function generateUniformWords(context: GpuContext, request: UniformWordsRequest): Promise<Uint32Array> {
  const encoder = context.device.createCommandEncoder({ label: 'uniforms' });
  const words = encodeUniformWords(context, encoder, request);
  context.device.queue.submit([encoder.finish()]);
  const [data] = await readBack(context, [{ buffer: words, bytes: request.count * 4 }]);
  words.destroy();
  return new Uint32Array(data as ArrayBuffer);
}
