/**
 * KvCache's copies on both of its paths: typed arrays (wasm) and buffer copies on a WebGPU device (Dawn on
 * SwiftShader here, onnxruntime's device in the app). Every value encodes its (row, head, position, lane), so
 * a wrong offset shows as a wrong value.
 */
import { describe, expect, it } from 'vitest';
import { KvCache, type KvLayout } from '../../src/models/kvCache';
import { USAGE } from '../../src/gpu/kernel';
import { ort } from '../support/models';
import { suiteDevices } from '../support/gpu';

const layout: KvLayout = { layers: 2, heads: 3, headDim: 4 };

const valueAt = (tensor: number, row: number, head: number, position: number, lane: number) =>
  tensor * 1e4 + row * 1e3 + head * 100 + position + lane / 10;

/** The values of cache tensor `tensor` for rows × heads × positions × headDim. */
function values(tensor: number, rows: readonly number[], positions: readonly number[]): number[] {
  const out: number[] = [];
  for (const row of rows) {
    for (let head = 0; head < layout.heads; head++) {
      for (const position of positions)
        for (let lane = 0; lane < layout.headDim; lane++) out.push(valueAt(tensor, row, head, position, lane));
    }
  }
  return out;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function cpuCache(batch: number, length: number): KvCache {
  const dims = [batch, layout.heads, length, layout.headDim];
  const tensors = range(2 * layout.layers).map(
    (t) => new ort.Tensor('float32', Float32Array.from(values(t, range(batch), range(length))), dims),
  );
  return new KvCache(tensors, layout, batch, length, ort, null);
}

function gpuCache(device: GPUDevice, batch: number, length: number): KvCache {
  const dims = [batch, layout.heads, length, layout.headDim];
  const tensors = range(2 * layout.layers).map((t) => {
    const data = Float32Array.from(values(t, range(batch), range(length)));
    const buffer = device.createBuffer({
      size: data.byteLength,
      usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST,
    });
    device.queue.writeBuffer(buffer, 0, data);
    return ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims, dispose: () => buffer.destroy() });
  });
  return new KvCache(tensors, layout, batch, length, ort, device);
}

async function readBack(device: GPUDevice, tensor: ort.Tensor, floats: number): Promise<number[]> {
  const staging = device.createBuffer({ size: Math.max(4, floats * 4), usage: USAGE.MAP_READ | USAGE.COPY_DST });
  const encoder = device.createCommandEncoder();
  if (floats > 0) encoder.copyBufferToBuffer(tensor.gpuBuffer as GPUBuffer, 0, staging, 0, floats * 4);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(1);
  const out = Array.from(new Float32Array(staging.getMappedRange()).subarray(0, floats));
  staging.destroy();
  return out;
}

// Runs of several positions, single positions, the first and the last position, and nothing at all.
const KEPT = [range(10), [0, 1, 2, 3, 4, 5, 7, 8], [0, 1, 2, 3, 4, 6, 9], [3], [9], []];

describe('KvCache.keepPositions', () => {
  it.each(KEPT.map((positions) => ({ positions })))(
    'keeps the listed positions in order on the CPU ($positions)',
    ({ positions }) => {
      const cache = cpuCache(1, 10);
      const kept = cache.keepPositions(positions);
      expect([kept.batch, kept.length]).toEqual([1, positions.length]);
      kept.tensors.forEach((tensor, t) => {
        expect(tensor.dims).toEqual([1, layout.heads, positions.length, layout.headDim]);
        expect(Array.from(tensor.data as Float32Array)).toEqual(values(t, [0], positions).map(Math.fround));
      });
      // The source is untouched and still usable: the caller owns both.
      expect(Array.from(cache.keepPositions([2]).tensors[1]?.data as Float32Array)).toEqual(
        values(1, [0], [2]).map(Math.fround),
      );
    },
  );

  it('refuses a batched cache, positions out of order, repeated or out of range, and a disposed cache', () => {
    expect(() => cpuCache(2, 4).keepPositions([0])).toThrow(RangeError);
    const cache = cpuCache(1, 4);
    for (const bad of [[1, 0], [1, 1], [4], [-1], [0.5]]) expect(() => cache.keepPositions(bad)).toThrow(RangeError);
    cache.dispose();
    expect(() => cache.keepPositions([0])).toThrow(/disposed/);
  });

  describe('on a WebGPU device', () => {
    const devices = suiteDevices();

    it('keeps the listed positions in order with buffer copies, leaving the cache on the GPU', async () => {
      const { device } = await devices.context();
      for (const positions of KEPT) {
        const cache = gpuCache(device, 1, 10);
        const kept = cache.keepPositions(positions);
        expect([kept.batch, kept.length]).toEqual([1, positions.length]);
        for (const [t, tensor] of kept.tensors.entries()) {
          expect(tensor.location).toBe('gpu-buffer');
          expect(tensor.dims).toEqual([1, layout.heads, positions.length, layout.headDim]);
          expect(await readBack(device, tensor, layout.heads * positions.length * layout.headDim)).toEqual(
            values(t, [0], positions).map(Math.fround),
          );
        }
        kept.dispose();
        cache.dispose();
      }
    });

    it('gathers rows and trims as the CPU path does', async () => {
      const { device } = await devices.context();
      const cache = gpuCache(device, 3, 6);
      const gathered = cache.gather([2, 0, 2], 4);
      for (const [t, tensor] of gathered.tensors.entries()) {
        expect(await readBack(device, tensor, 3 * layout.heads * 4 * layout.headDim)).toEqual(
          values(t, [2, 0, 2], range(4)).map(Math.fround),
        );
      }
      expect(Array.from(cpuCache(3, 6).gather([2, 0, 2], 4).tensors[3]?.data as Float32Array)).toEqual(
        values(3, [2, 0, 2], range(4)).map(Math.fround),
      );
      gathered.dispose();
      cache.dispose();
    });
  });
});
