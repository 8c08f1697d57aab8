/** The bundled model pair, read from public/models on disk, for Node tools and tests (wasm EP). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { ModelFileMissingError, loadPair, type FileReader, type ModelPairHandle } from '../src/models/loader';
import { httpReader } from '../src/models/httpReader';

export const BUNDLED_DRAFT_DIR = 'public/models/speclab-draft';
/** The bundled pair's target: the float32 target below with int8 weight products (tools/train/quantize.py). */
export const BUNDLED_TARGET_DIR = 'public/models/speclab-target-int8';
/** The float32 target the int8 one is quantized from; the page offers it as a second bundled pair. */
export const FLOAT_TARGET_DIR = 'public/models/speclab-target';
/** The draft head (drafters head, head+grammar), trained on the float32 target's features; loaded beside either target. */
export const BUNDLED_HEAD_DIR = 'public/models/speclab-head';

// One thread: Node has no cross-origin isolation to negotiate, and benchmarks compare like with like.
ort.env.wasm.numThreads = 1;
export { ort };

export const directoryReader =
  (dir: string): FileReader =>
  async (path) => {
    try {
      return new Uint8Array(await readFile(join(dir, path)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new ModelFileMissingError(`${join(dir, path)}: no such file`);
      throw error;
    }
  };

/** A model directory on disk, or over http(s) (no Cache API in Node: read each time). */
export const readerAt = (location: string): FileReader =>
  /^https?:\/\//i.test(location) ? httpReader(location, false) : directoryReader(location);

/** A pair in the Hub layout (tools/cli/pair.ts reads `--pair`), each model a directory or a URL, on the wasm EP. */
export function loadPairAt(location: { draft: string; target: string; head?: string }): Promise<ModelPairHandle> {
  return loadPair(
    ort,
    {
      draft: readerAt(location.draft),
      target: readerAt(location.target),
      ...(location.head ? { head: readerAt(location.head) } : {}),
    },
    'wasm',
  );
}

export function loadBundledPair(): Promise<ModelPairHandle> {
  return loadPairAt({ draft: BUNDLED_DRAFT_DIR, target: BUNDLED_TARGET_DIR, head: BUNDLED_HEAD_DIR });
}
