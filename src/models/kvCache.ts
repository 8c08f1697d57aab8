/**
 * The key/value cache of one model as onnxruntime tensors, [batch, heads, length, headDim] per layer and
 * kind. The speculative loop needs two copies: `gather` picks source rows (select the chosen draft, or
 * broadcast the shared prefix to K rows) and keeps the first `length` positions (trim to the emitted
 * prefix); `keepPositions` keeps listed positions of one row (the emitted path through a token tree). On the
 * CPU they copy typed arrays; on WebGPU they record buffer copies on onnxruntime's own device, so the cache
 * never leaves the GPU.
 */
import type * as ort from 'onnxruntime-web';
import { USAGE } from '../gpu/kernel';

export interface KvLayout {
  layers: number;
  heads: number;
  headDim: number;
}

/** Source positions [start, start + count), copied as one block per head. */
type Run = readonly [start: number, count: number];

export class KvCache {
  private disposed = false;

  constructor(
    /** key0, value0, key1, value1, ... */
    readonly tensors: readonly ort.Tensor[],
    readonly layout: KvLayout,
    readonly batch: number,
    readonly length: number,
    private readonly runtime: typeof ort,
    /** onnxruntime's device when the tensors live in GPU buffers. */
    private readonly device: GPUDevice | null,
  ) {}

  static empty(runtime: typeof ort, layout: KvLayout, batch: number, device: GPUDevice | null): KvCache {
    const dims = [batch, layout.heads, 0, layout.headDim];
    // An empty past is a CPU tensor on either EP: onnxruntime uploads it (zero bytes) itself.
    const tensors = Array.from(
      { length: 2 * layout.layers },
      () => new runtime.Tensor('float32', new Float32Array(0), dims),
    );
    return new KvCache(tensors, layout, batch, 0, runtime, device);
  }

  /** A new cache whose row i is this cache's row rows[i], cut to its first `length` positions. */
  gather(rows: readonly number[], length: number): KvCache {
    this.checkLive('gather');
    if (!(length >= 0 && length <= this.length))
      throw new RangeError(`cannot keep ${length} positions of a cache holding ${this.length}`);
    for (const row of rows)
      if (!(row >= 0 && row < this.batch)) throw new RangeError(`row ${row} is outside a cache of batch ${this.batch}`);
    return this.copy(rows, length > 0 ? [[0, length]] : [], length);
  }

  /**
   * A new batch-1 cache holding this one's positions `positions` (strictly increasing, each below
   * `length`), in that order: the prompt and the emitted path of a token tree scored in one run.
   */
  keepPositions(positions: readonly number[]): KvCache {
    this.checkLive('keepPositions');
    if (this.batch !== 1) throw new RangeError(`keepPositions needs a cache of batch 1, got ${this.batch}`);
    const runs: [number, number][] = [];
    let previous = -1;
    for (const position of positions) {
      if (!(Number.isInteger(position) && position > previous && position < this.length)) {
        throw new RangeError(
          `positions must be strictly increasing integers below ${this.length}: ${position} after ${previous}`,
        );
      }
      const last = runs.at(-1);
      if (last && last[0] + last[1] === position) last[1]++;
      else runs.push([position, 1]);
      previous = position;
    }
    return this.copy([0], runs, positions.length);
  }

  private checkLive(operation: string): void {
    if (this.disposed) throw new Error(`KvCache.${operation} on a disposed cache`);
  }

  /** Row i of the result is source row rows[i] with the positions of `runs` laid end to end (`length` in all). */
  private copy(rows: readonly number[], runs: readonly Run[], length: number): KvCache {
    const { heads, headDim } = this.layout;
    const dims = [rows.length, heads, length, headDim];
    if (this.tensors[0]?.location === 'gpu-buffer' && this.device) return this.copyOnGpu(this.device, rows, runs, dims);
    const sourceHead = this.length * headDim;
    const targetHead = length * headDim;
    const tensors = this.tensors.map((tensor) => {
      const source = tensor.data as Float32Array;
      const out = new Float32Array(rows.length * heads * targetHead);
      rows.forEach((row, i) => {
        for (let h = 0; h < heads; h++) {
          const from = (row * heads + h) * sourceHead;
          let to = (i * heads + h) * targetHead;
          for (const [start, count] of runs) {
            out.set(source.subarray(from + start * headDim, from + (start + count) * headDim), to);
            to += count * headDim;
          }
        }
      });
      return new this.runtime.Tensor('float32', out, dims);
    });
    return new KvCache(tensors, this.layout, rows.length, length, this.runtime, this.device);
  }

  private copyOnGpu(device: GPUDevice, rows: readonly number[], runs: readonly Run[], dims: number[]): KvCache {
    const { heads, headDim } = this.layout;
    const length = dims[2] as number;
    const positionBytes = headDim * 4;
    const sourceHeadBytes = this.length * positionBytes;
    const targetHeadBytes = length * positionBytes;
    // WebGPU refuses zero-sized buffers; 4 bytes stand in for an empty cache.
    const size = Math.max(4, rows.length * heads * targetHeadBytes);
    const encoder = device.createCommandEncoder({ label: 'kv-copy' });
    const tensors = this.tensors.map((tensor) => {
      const target = device.createBuffer({ size, usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
      rows.forEach((row, i) => {
        for (let h = 0; h < heads; h++) {
          let to = (i * heads + h) * targetHeadBytes;
          for (const [start, count] of runs) {
            encoder.copyBufferToBuffer(
              tensor.gpuBuffer as GPUBuffer,
              (row * heads + h) * sourceHeadBytes + start * positionBytes,
              target,
              to,
              count * positionBytes,
            );
            to += count * positionBytes;
          }
        }
      });
      return this.runtime.Tensor.fromGpuBuffer(target, { dataType: 'float32', dims, dispose: () => target.destroy() });
    });
    device.queue.submit([encoder.finish()]);
    return new KvCache(tensors, this.layout, rows.length, length, this.runtime, this.device);
  }

  /** Row `row` alone: the draft the verifier chose. */
  selectRow(row: number, length = this.length): KvCache {
    return this.gather([row], length);
  }

  /** The single row repeated `rows` times: the shared prefix of K drafts. */
  broadcast(rows: number): KvCache {
    if (this.batch !== 1) throw new RangeError(`broadcast needs a cache of batch 1, got ${this.batch}`);
    return this.gather(new Array<number>(rows).fill(0), this.length);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const tensor of this.tensors) tensor.dispose();
  }
}
