import philoxWgsl from '../../../shaders/philox.wgsl?raw';
import uniformsWgsl from '../../../shaders/uniforms.wgsl?raw';
import { seedKey } from '../../core/rng';
import type { GpuContext } from '../device';
import { GpuInputError, GpuWork, checkBindingSize, checkDispatch, type KernelProgram } from '../kernel';

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

/** Records the kernel that writes words firstWord..firstWord+count of a Philox stream into a pooled buffer. */
export function encodeUniformWords(work: GpuWork, request: UniformWordsRequest): GPUBuffer {
  validateUniformsInputs(work.context, request);
  const [key0, key1] = seedKey(request.seed);
  const params = work.uniform('uniforms params', Uint32Array.of(key0, key1, request.stream, request.firstWord, request.count).buffer);
  const words = work.storage('uniform words', request.count * 4);
  work.dispatch(uniformsProgram, [params, words], Math.max(1, Math.ceil(request.count / uniformsProgram.workgroupSize)));
  return words;
}

export async function generateUniformWords(context: GpuContext, request: UniformWordsRequest): Promise<Uint32Array> {
  const work = new GpuWork(context, 'uniforms');
  const words = encodeUniformWords(work, request);
  const [data] = await work.finish([{ buffer: words, bytes: request.count * 4 }]);
  return new Uint32Array(data as ArrayBuffer);
}
