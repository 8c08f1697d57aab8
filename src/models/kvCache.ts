/**
 * The key/value cache of one model as onnxruntime tensors, [batch, heads, length, headDim] per layer and
 * kind. Every cache operation the speculative loop needs is one primitive, `gather`: pick source rows
 * (select the chosen draft, or broadcast the shared prefix to K rows) and keep the first `length`
 * positions (trim to the emitted prefix). On the CPU it copies typed arrays; on WebGPU it records buffer
 * copies on onnxruntime's own device, so the cache never leaves the GPU.
 */
import type * as ort from 'onnxruntime-web';

export interface KvLayout {
  layers: number;
  heads: number;
  headDim: number;
}

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
    const tensors = Array.from({ length: 2 * layout.layers }, () => new runtime.Tensor('float32', new Float32Array(0), dims));
    return new KvCache(tensors, layout, batch, 0, runtime, device);
  }

  /** A new cache whose row i is this cache's row rows[i], cut to its first `length` positions. */
  gather(rows: readonly number[], length: number): KvCache {
    if (this.disposed) throw new Error('KvCache.gather on a disposed cache');
    if (!(length >= 0 && length <= this.length)) throw new RangeError(`cannot keep ${length} positions of a cache holding ${this.length}`);
    for (const row of rows) if (!(row >= 0 && row < this.batch)) throw new RangeError(`row ${row} is outside a cache of batch ${this.batch}`);
    const { heads, headDim } = this.layout;
    const dims = [rows.length, heads, length, headDim];
    const runLength = length * headDim;
    const sourceRowStride = heads * this.length * headDim;
    const first = this.tensors[0];
    if (first?.location === 'gpu-buffer' && this.device) return this.gatherOnGpu(this.device, rows, length, dims);
    const tensors = this.tensors.map((tensor) => {
      const source = tensor.data as Float32Array;
      const out = new Float32Array(rows.length * heads * runLength);
      rows.forEach((row, i) => {
        for (let h = 0; h < heads; h++) {
          const from = row * sourceRowStride + h * this.length * headDim;
          out.set(source.subarray(from, from + runLength), (i * heads + h) * runLength);
        }
      });
      return new this.runtime.Tensor('float32', out, dims);
    });
    return new KvCache(tensors, this.layout, rows.length, length, this.runtime, this.device);
  }

  private gatherOnGpu(device: GPUDevice, rows: readonly number[], length: number, dims: number[]): KvCache {
    const { heads, headDim } = this.layout;
    const runBytes = length * headDim * 4;
    const sourceHeadBytes = this.length * headDim * 4;
    // WebGPU refuses zero-sized buffers; 4 bytes stand in for an empty cache.
    const size = Math.max(4, rows.length * heads * runBytes);
    const encoder = device.createCommandEncoder({ label: 'kv-gather' });
    const tensors = this.tensors.map((tensor) => {
      const target = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      if (runBytes > 0) {
        rows.forEach((row, i) => {
          for (let h = 0; h < heads; h++) {
            encoder.copyBufferToBuffer(tensor.gpuBuffer as GPUBuffer, (row * heads + h) * sourceHeadBytes, target, (i * heads + h) * runBytes, runBytes);
          }
        });
      }
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
