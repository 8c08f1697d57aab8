import { loadModel, type LoadedModel, type ModelPairHandle } from '../../src/models/loader';
import { directoryReader, loadBundledPair, ort } from '../../tools/bundled';

export { BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, FLOAT_TARGET_DIR, directoryReader, ort } from '../../tools/bundled';

export const loadBundledModel = (dir: string): Promise<LoadedModel> =>
  loadModel(ort, directoryReader(dir), 'wasm', dir);

let pair: Promise<ModelPairHandle> | undefined;
/** The bundled pair on the wasm EP, loaded once per test file. */
export function bundledPair(): Promise<ModelPairHandle> {
  pair ??= loadBundledPair();
  return pair;
}
