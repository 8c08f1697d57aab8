import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/models/manifest';
import { FLOAT_TARGET_DIR, ort } from '../support/models';
import { maxAbsDifference } from '../support/modelChecks';

const HEAD_DIR = 'public/models/speclab-head';

interface HeadManifest {
  format: string;
  target: { name: string };
  io: { inputs: string[]; outputs: string[] };
  files: { path: string; bytes: number; sha256: string }[];
  golden: {
    rows: { input_ids: number[]; features_in: number[]; input_id: number; logits: number[]; features_out: number[] }[];
  };
}

const manifest = JSON.parse(readFileSync(`${HEAD_DIR}/manifest.json`, 'utf8')) as HeadManifest;
const session = (dir: string) =>
  ort.InferenceSession.create(new Uint8Array(readFileSync(`${dir}/onnx/model.onnx`)), { executionProviders: ['wasm'] });
const int64 = (values: number[], dims: number[]) =>
  new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);

describe('the bundled draft head (public/models/speclab-head)', () => {
  it('has files whose sha256 and sizes match its manifest, and declares the inputs and outputs its session has', async () => {
    expect(manifest.format).toBe('speclab-head/1');
    for (const file of manifest.files) {
      const bytes = new Uint8Array(readFileSync(`${HEAD_DIR}/${file.path}`));
      expect(bytes.length).toBe(file.bytes);
      expect(await sha256Hex(bytes)).toBe(file.sha256);
    }
    const head = await session(HEAD_DIR);
    expect([...head.inputNames]).toEqual(manifest.io.inputs);
    expect([...head.outputNames]).toEqual(manifest.io.outputs);
  });

  it('reproduces its golden torch rows within 1e-4 on the wasm EP, as one sequence and as a batch', async () => {
    const head = await session(HEAD_DIR);
    const rows = manifest.golden.rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const dims of [
      [1, rows.length],
      [rows.length, 1],
    ]) {
      const out = await head.run({
        features: new ort.Tensor('float32', Float32Array.from(rows.flatMap((row) => row.features_in)), [...dims, 256]),
        input_ids: int64(
          rows.map((row) => row.input_id),
          dims,
        ),
      });
      expect(out.logits?.dims).toEqual([...dims, 1025]);
      expect(
        maxAbsDifference(
          out.logits?.data as Float32Array,
          rows.flatMap((row) => row.logits),
        ),
      ).toBeLessThan(1e-4);
      expect(
        maxAbsDifference(
          out.features_out?.data as Float32Array,
          rows.flatMap((row) => row.features_out),
        ),
      ).toBeLessThan(1e-4);
    }
  });

  it("reads the feature the float32 target exports: its `features` output at the prompt's second-to-last position", async () => {
    const target = await session(FLOAT_TARGET_DIR);
    expect(target.outputNames.at(-1)).toBe('features');
    expect(manifest.target.name).toBe('speclab-target');
    for (const row of manifest.golden.rows) {
      const n = row.input_ids.length;
      const feeds: Record<string, ort.Tensor> = {
        input_ids: int64(row.input_ids, [1, n]),
        attention_mask: int64(
          row.input_ids.map(() => 1),
          [1, n],
        ),
        position_ids: int64(
          row.input_ids.map((_, i) => i),
          [1, n],
        ),
        tree_attention_mask: int64(new Array<number>(n * n).fill(1), [1, n, n]),
      };
      for (let layer = 0; layer < 6; layer++)
        for (const kind of ['key', 'value'])
          feeds[`past_key_values.${layer}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [1, 8, 0, 32]);
      const features = (await target.run(feeds)).features?.data as Float32Array;
      expect(row.input_id).toBe(row.input_ids[n - 1]);
      expect(maxAbsDifference(features.subarray((n - 2) * 256, (n - 1) * 256), row.features_in)).toBeLessThan(1e-4);
    }
  });
});
