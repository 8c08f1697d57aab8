/**
 * Loads a model directory laid out like a Hugging Face repository (manifest.json, tokenizer.json,
 * onnx/model.onnx), checks every file against the manifest's sha256, and opens the session. A pair is
 * refused unless draft and target share one tokenizer.
 */
import type * as ort from 'onnxruntime-web';
import { ModelLoadError, checkFile, parseManifest, type ModelManifest } from './manifest';
import { ModelSession, type ExecutionProvider } from './session';
import { TextTokenizer, checkSameTokenizer } from './tokenizer';

/** Reads one file of a model directory; `onProgress` gets (bytes so far, total or null). */
export type FileReader = (path: string, onProgress?: (loaded: number, total: number | null) => void) => Promise<Uint8Array>;

export interface LoadedModel {
  manifest: ModelManifest;
  session: ModelSession;
  tokenizer: TextTokenizer;
}

export interface ModelPairHandle {
  draft: LoadedModel;
  target: LoadedModel;
  tokenizer: TextTokenizer;
}

export const MODEL_FILE = 'onnx/model.onnx';

export async function loadModel(
  runtime: typeof ort,
  read: FileReader,
  provider: ExecutionProvider,
  onProgress?: (file: string, loaded: number, total: number | null) => void,
): Promise<LoadedModel> {
  const manifestBytes = await read('manifest.json');
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse(new TextDecoder().decode(manifestBytes));
  } catch (error) {
    throw new ModelLoadError(`manifest.json is not JSON: ${(error as Error).message}`);
  }
  const manifest = parseManifest(manifestJson, 'manifest.json');
  const [tokenizerBytes, modelBytes] = await Promise.all(
    [manifest.tokenizer.file, MODEL_FILE].map(async (path) => {
      const bytes = await read(path, (loaded, total) => onProgress?.(`${manifest.name}/${path}`, loaded, total));
      await checkFile(manifest, path, bytes);
      return bytes;
    }),
  );
  const tokenizer = TextTokenizer.fromJson(JSON.parse(new TextDecoder().decode(tokenizerBytes)), `${manifest.name}/${manifest.tokenizer.file}`, manifest.tokenizer.stop_token);
  const { heads, head_dim: headDim, vocab_size: vocab } = manifest.architecture;
  const session = await ModelSession.create(runtime, modelBytes as Uint8Array, { name: manifest.name, provider, fallbackShape: { heads, headDim, vocab } });
  if (session.shape.vocab !== tokenizer.vocabSize) {
    throw new ModelLoadError(`${manifest.name}: the model scores ${session.shape.vocab} tokens but its tokenizer has ${tokenizer.vocabSize}`);
  }
  return { manifest, session, tokenizer };
}

export async function loadPair(
  runtime: typeof ort,
  readers: { draft: FileReader; target: FileReader },
  provider: ExecutionProvider,
  onProgress?: (file: string, loaded: number, total: number | null) => void,
): Promise<ModelPairHandle> {
  const [draft, target] = await Promise.all([loadModel(runtime, readers.draft, provider, onProgress), loadModel(runtime, readers.target, provider, onProgress)]);
  checkSameTokenizer(draft.tokenizer, target.tokenizer, draft.manifest.name, target.manifest.name);
  return { draft, target, tokenizer: target.tokenizer };
}
