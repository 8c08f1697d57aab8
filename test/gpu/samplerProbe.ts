import { seedKey } from '../../src/core/rng';
import type { GpuContext } from '../../src/gpu/device';
import { GpuWork, workgroupSizeFor, type KernelProgram } from '../../src/gpu/kernel';
import { PHILOX, SAMPLE, composeWgsl } from '../../src/gpu/shaders';
import probeWgsl from './samplerProbe.wgsl?raw';

const code = composeWgsl(PHILOX, SAMPLE, { name: 'samplerProbe', code: probeWgsl, requires: [PHILOX, SAMPLE] });
const program = (entryPoint: string, workgroupSize: number, sizeIsOverridable = false): KernelProgram => ({
  name: `samplerProbe.${entryPoint}`,
  code,
  entryPoint,
  workgroupSize,
  sizeIsOverridable,
});
const drawProbe = program('draw_probe', 256, true);
const bernoulliProbe = program('bernoulli_probe', 64);
const philoxProbe = program('philox_probe', 64);

const uniformWords = (uniforms: readonly bigint[]) =>
  Uint32Array.from(uniforms.flatMap((u) => [Number(u >> 32n), Number(u & 0xffffffffn)]));

async function runProbe(
  context: GpuContext,
  kernel: KernelProgram,
  inputs: {
    row: Float32Array<ArrayBuffer>;
    uniforms: readonly bigint[];
    params: number[];
    count: number;
    scratch?: boolean;
  },
  workgroups: number,
  workgroupSize = kernel.workgroupSize,
): Promise<Uint32Array> {
  const work = new GpuWork(context, kernel.name);
  const results = work.storage('probe results', inputs.count * 4);
  const queries = inputs.uniforms.length > 0 ? work.upload('probe queries', uniformWords(inputs.uniforms)) : null;
  const row = inputs.row.length > 0 ? work.upload('probe row', inputs.row) : null;
  const params = work.upload('probe params', Uint32Array.from(inputs.params));
  const scratch = inputs.scratch ? work.storage('probe scratch', 4) : null;
  work.dispatch(kernel, [queries, row, results, params, scratch], workgroups, workgroupSize);
  const [data] = await work.finish([{ buffer: results, bytes: inputs.count * 4 }]);
  return new Uint32Array(data as ArrayBuffer);
}

/** The WGSL `draw` on the row `weights`, once per 64-bit uniform. */
export function gpuDraws(
  context: GpuContext,
  weights: Float32Array<ArrayBuffer>,
  uniforms: readonly bigint[],
): Promise<Uint32Array> {
  const count = uniforms.length;
  const params = [weights.length, 0, 0, 0, 0, count];
  return runProbe(
    context,
    drawProbe,
    { row: weights, uniforms, params, count, scratch: true },
    count,
    workgroupSizeFor(context, weights.length),
  );
}

/** The WGSL `bernoulli_from_words(p[i], uniforms[i])`, as 0 or 1. */
export function gpuBernoullis(
  context: GpuContext,
  p: Float32Array<ArrayBuffer>,
  uniforms: readonly bigint[],
): Promise<Uint32Array> {
  const count = uniforms.length;
  return runProbe(
    context,
    bernoulliProbe,
    { row: p, uniforms, params: [0, 0, 0, 0, 0, count], count },
    Math.ceil(count / 64),
  );
}

/** The WGSL `philox_word` for words firstWord..firstWord+count of a stream. */
export function gpuPhiloxWords(
  context: GpuContext,
  seed: number,
  stream: number,
  firstWord: number,
  count: number,
): Promise<Uint32Array> {
  const [key0, key1] = seedKey(seed);
  return runProbe(
    context,
    philoxProbe,
    { row: new Float32Array(0), uniforms: [], params: [0, key0, key1, stream, firstWord, count], count },
    Math.ceil(count / 64),
  );
}
