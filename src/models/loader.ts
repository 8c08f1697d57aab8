/**
 * Loads a model directory laid out like a Hugging Face repository (tokenizer.json, onnx/model.onnx, and
 * either our manifest.json, whose sha256 values every file is checked against, or the Hub's config.json),
 * and opens the session. A pair is refused unless draft and target share one tokenizer.
 */
import type * as ort from 'onnxruntime-web';
import {
  ModelLoadError,
  checkFile,
  checkProvider,
  parseHubConfig,
  parseManifest,
  SUPPORTED_MODEL_TYPES,
  type ModelManifest,
} from './manifest';
import { externalDataFiles } from './onnxProto';
import { chatTemplateOf, type ChatTemplate } from './chatTemplate';
import type { ExecutionProvider, LoadPhase } from '../contract/protocol';
import { MANIFEST_LIMITS } from '../contract/limits';
import { ModelSession } from './session';
import { HeadSession } from './headSession';
import { TextTokenizer, checkSameTokenizer } from './tokenizer';
import { timed, timedSync } from '../core/timeline';

/**
 * Reads one file of a model directory; `onProgress` gets (bytes so far, total or null), and `maxBytes` (the
 * manifest's size, else the most any model file may be) stops a larger one at its first extra byte.
 */
export type FileReader = (
  path: string,
  onProgress?: (loaded: number, total: number | null) => void,
  maxBytes?: number,
) => Promise<Uint8Array>;

export interface LoadEvents {
  /** Bytes of one file so far, and its size when the server or the manifest says it. */
  onProgress?: (file: string, loaded: number, total: number | null) => void;
  /** A model entered a stage. */
  onPhase?: (phase: LoadPhase) => void;
}

export interface LoadedModel {
  name: string;
  /** Positions the model can attend to. */
  contextLength: number;
  /** Our manifest, whose sha256 values every file was checked against; null for a Hub directory. */
  manifest: ModelManifest | null;
  session: ModelSession;
  tokenizer: TextTokenizer;
  /** tokenizer_config.json's chat template, where the repository has one. */
  chatTemplate: ChatTemplate | null;
}

export interface ModelPairHandle {
  draft: LoadedModel;
  target: LoadedModel;
  tokenizer: TextTokenizer;
  /** The draft head beside the pair (drafters `head`, `head+grammar`), where one was loaded: only for a target that exports `features`. */
  head?: LoadedHead | null;
  /** Why the head beside the pair did not load (a damaged file): the pair works without it, its drafters say this. */
  headError?: string | null;
}

/** The draft head's manifest (format speclab-head/1, written by tools/train/train_head.py): what the loader relies on. */
export interface HeadManifest {
  name: string;
  format: 'speclab-head/1';
  architecture: { width: number; vocab_size: number; parameters: number };
  target: { name: string; weights_sha256: string };
  files: ModelManifest['files'];
}

export interface LoadedHead {
  name: string;
  manifest: HeadManifest;
  session: HeadSession;
}

function parseHeadManifest(json: unknown, source: string): HeadManifest {
  const root = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const architecture = (root.architecture ?? {}) as Record<string, unknown>;
  if (root.format !== 'speclab-head/1')
    throw new ModelLoadError(`${source}: format must be speclab-head/1, got ${JSON.stringify(root.format)}`);
  if (typeof root.name !== 'string') throw new ModelLoadError(`${source}: manifest field name must be a string`);
  for (const key of ['width', 'vocab_size']) {
    const value = architecture[key];
    if (!(typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MANIFEST_LIMITS.vocabSize.max))
      throw new ModelLoadError(`${source}: manifest field architecture.${key} must be a positive integer`);
  }
  if (!Array.isArray(root.files) || !root.files.some((file) => (file as { path?: unknown }).path === MODEL_FILE))
    throw new ModelLoadError(`${source}: the manifest lists no ${MODEL_FILE}`);
  return json as HeadManifest;
}

/** A draft head's files, read and checked against its manifest's sha256, before its session opens. */
interface HeadFiles {
  manifest: HeadManifest;
  bytes: Uint8Array;
}

async function fetchHead(read: FileReader, events: LoadEvents): Promise<HeadFiles> {
  const manifest = parseHeadManifest(
    parseJson(await read('manifest.json', undefined, MANIFEST_LIMITS.descriptionBytes), 'head/manifest.json'),
    'head/manifest.json',
  );
  events.onPhase?.('download');
  const listed = manifest.files.find((file) => file.path === MODEL_FILE)?.bytes ?? null;
  const bytes = await timed('fetch head', () =>
    read(
      MODEL_FILE,
      (loaded, total) => events.onProgress?.(`${manifest.name}/${MODEL_FILE}`, loaded, total ?? listed),
      listed ?? MANIFEST_LIMITS.fileBytes,
    ),
  );
  events.onPhase?.('hash');
  await timed('sha256 head', () => checkFile(manifest as unknown as ModelManifest, MODEL_FILE, bytes));
  return { manifest, bytes };
}

/** The head's session on the pair's provider, refused where the target has no `features` output or the vocabularies differ. */
async function openHead(
  runtime: typeof ort,
  { manifest, bytes }: HeadFiles,
  provider: ExecutionProvider,
  target: LoadedModel,
  events: LoadEvents,
): Promise<LoadedHead> {
  if (!target.session.hasFeatures)
    throw new ModelLoadError(`${manifest.name}: the target ${target.name} has no features output for the head to read`);
  if (manifest.architecture.vocab_size !== target.session.shape.vocab) {
    throw new ModelLoadError(
      `${manifest.name}: the head scores ${manifest.architecture.vocab_size} tokens but the target ${target.session.shape.vocab}`,
    );
  }
  events.onPhase?.('session');
  const session = await timed('session head', () =>
    HeadSession.create(runtime, bytes, {
      name: manifest.name,
      provider,
      width: manifest.architecture.width,
      vocab: manifest.architecture.vocab_size,
    }),
  );
  await timed('finite head', () => checkFiniteHead(session, manifest.architecture.width));
  return { name: manifest.name, manifest, session };
}

/**
 * Loads a draft head beside a loaded target: its manifest, its model file checked against the manifest's
 * sha256, its session on the pair's provider. Refused where the target has no `features` output or the
 * vocabularies differ.
 */
export async function loadHead(
  runtime: typeof ort,
  read: FileReader,
  provider: ExecutionProvider,
  target: LoadedModel,
  events: LoadEvents = {},
): Promise<LoadedHead> {
  return openHead(runtime, await fetchHead(read, events), provider, target, events);
}

/** The head's first forward (zero features, token 0) must give finite logits, as the pair's models must. */
async function checkFiniteHead(session: HeadSession, width: number): Promise<void> {
  try {
    const { logits } = await session.run(new Float32Array(width), [0], 1);
    if (!logits.every(Number.isFinite))
      throw new ModelLoadError("the draft head's logits are not finite: the model file is damaged");
  } catch (error) {
    await session.release();
    throw error;
  }
}

export const MODEL_FILE = 'onnx/model.onnx';
const TOKENIZER_FILE = 'tokenizer.json';

/** A read that reports a missing file as ModelFileMissingError (HTTP 404, ENOENT). */
export class ModelFileMissingError extends ModelLoadError {
  override name = 'ModelFileMissingError';
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new ModelLoadError(`${what} is not JSON: ${(error as Error).message}`);
  }
}

interface Description {
  name: string;
  contextLength: number;
  manifest: ModelManifest | null;
  /** The stop token's text, or (Hub config) the stop tokens' ids. */
  stop: string | readonly number[];
  shape: { heads?: number; headDim?: number; vocab?: number };
}

/**
 * Our manifest when the directory has one; otherwise a Hugging Face config.json (GPT-2 or Llama
 * field names), whose files cannot be hash-checked.
 */
async function describe(read: FileReader, label: string): Promise<Description> {
  try {
    const manifest = parseManifest(
      parseJson(await read('manifest.json', undefined, MANIFEST_LIMITS.descriptionBytes), `${label}/manifest.json`),
      `${label}/manifest.json`,
    );
    const { heads, head_dim: headDim, vocab_size: vocab, context_length: contextLength } = manifest.architecture;
    return {
      name: manifest.name,
      contextLength,
      manifest,
      stop: manifest.tokenizer.stop_token,
      shape: { heads, headDim, vocab },
    };
  } catch (error) {
    if (!(error instanceof ModelFileMissingError)) throw error;
  }
  const source = `${label}/config.json`;
  const configJson = parseJson(await read('config.json', undefined, MANIFEST_LIMITS.descriptionBytes), source);
  const config = parseHubConfig(configJson, source, await generationEos(read, label));
  if (config === null) {
    throw new ModelLoadError(
      `${label}: neither manifest.json nor a config.json with n_positions (or max_position_embeddings) and eos_token_id`,
    );
  }
  const { contextLength, eosTokenIds, vocabSize, modelType } = config;
  if (modelType !== null && !SUPPORTED_MODEL_TYPES.includes(modelType)) {
    throw new ModelLoadError(
      `${label}: model_type ${JSON.stringify(modelType.slice(0, 40))} is not a family SpecLab runs (${SUPPORTED_MODEL_TYPES.join(', ')})`,
    );
  }
  return {
    name: label,
    contextLength,
    manifest: null,
    stop: eosTokenIds,
    shape: vocabSize === null ? {} : { vocab: vocabSize },
  };
}

/** A JSON file a Hub repository may lack (generation_config.json, tokenizer_config.json): undefined where it does. */
async function optionalJson(read: FileReader, path: string, label: string): Promise<unknown> {
  try {
    return parseJson(await read(path, undefined, MANIFEST_LIMITS.descriptionBytes), `${label}/${path}`);
  } catch (error) {
    if (error instanceof ModelFileMissingError) return undefined;
    throw error;
  }
}

/** generation_config.json's eos_token_id, where the repository has one (the stop tokens generation uses). */
async function generationEos(read: FileReader, label: string): Promise<unknown> {
  const json = await optionalJson(read, 'generation_config.json', label);
  return typeof json === 'object' && json !== null ? (json as Record<string, unknown>).eos_token_id : undefined;
}

const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';

/**
 * tokenizer_config.json, where the model has one. A manifest lists every file of its model, so a model with one
 * is asked for it only where the manifest lists it (and it is checked against its sha256 like the others):
 * asking for a file that is not there costs a 404 online, and offline a failed load, since the service worker
 * has nothing to answer it with. A Hub directory lists nothing: there it is asked for, and may be missing.
 */
async function tokenizerConfigOf(read: FileReader, { name, manifest }: Description): Promise<unknown> {
  if (!manifest) return optionalJson(read, TOKENIZER_CONFIG_FILE, name);
  const listed = manifest.files.find((file) => file.path === TOKENIZER_CONFIG_FILE);
  if (!listed) return undefined;
  const bytes = await read(TOKENIZER_CONFIG_FILE, undefined, listed.bytes);
  await checkFile(manifest, TOKENIZER_CONFIG_FILE, bytes);
  return parseJson(bytes, `${name}/${TOKENIZER_CONFIG_FILE}`);
}

/** A model directory's files, read and checked, not yet opened. */
interface FetchedModel {
  label: string;
  description: Description;
  tokenizerBytes: Uint8Array;
  modelBytes: Uint8Array;
  /** The files the model's weights live in beside it (onnx/model.onnx_data), by the name the model gives them. */
  externalData: { path: string; data: Uint8Array }[];
  /** tokenizer_config.json, where the repository has one. */
  tokenizerConfig: unknown;
}

async function fetchModel(
  read: FileReader,
  label: string,
  provider: ExecutionProvider,
  events: LoadEvents,
  modelFile: string,
): Promise<FetchedModel> {
  const { onProgress, onPhase } = events;
  onPhase?.('download');
  const description = await timed(`fetch ${label}/manifest`, () => describe(read, label));
  const { name, manifest } = description;
  // Before the model's bytes are read: a provider the manifest rules out is refused at once.
  if (manifest) checkProvider(manifest, provider);
  const [tokenizerBytes, modelBytes] = await Promise.all(
    [manifest?.tokenizer.file ?? TOKENIZER_FILE, modelFile].map(async (path) => {
      // The manifest knows each file's size before the server says it.
      const listed = manifest?.files.find((file) => file.path === path)?.bytes ?? null;
      onProgress?.(`${name}/${path}`, 0, listed);
      // A file the manifest does not size (a Hub directory) is still bounded, by the largest size a manifest may list.
      const maxBytes = listed ?? MANIFEST_LIMITS.fileBytes;
      const bytes = await timed(`fetch ${label}/${path}`, () =>
        read(path, (loaded, total) => onProgress?.(`${name}/${path}`, loaded, total ?? listed), maxBytes),
      );
      if (manifest) {
        onPhase?.('hash');
        await timed(`sha256 ${label}/${path}`, () => checkFile(manifest, path, bytes));
      }
      return bytes;
    }),
  );
  const externalData = await fetchExternalData(read, name, modelFile, modelBytes as Uint8Array, events);
  return {
    label,
    description,
    tokenizerConfig: await tokenizerConfigOf(read, description),
    tokenizerBytes: tokenizerBytes as Uint8Array,
    modelBytes: modelBytes as Uint8Array,
    externalData,
  };
}

/**
 * The files a model's weights live in beside it (onnx/model.onnx_data), as its initializers name them: a
 * large export keeps its weights there, and onnxruntime cannot open the model without them.
 */
async function fetchExternalData(
  read: FileReader,
  name: string,
  modelFile: string,
  modelBytes: Uint8Array,
  events: LoadEvents,
): Promise<{ path: string; data: Uint8Array }[]> {
  let files: string[];
  try {
    files = externalDataFiles(modelBytes);
  } catch (error) {
    throw new ModelLoadError(`${name}/${modelFile} is not an ONNX model: ${(error as Error).message}`);
  }
  const folder = modelFile.includes('/') ? modelFile.slice(0, modelFile.lastIndexOf('/') + 1) : '';
  return Promise.all(
    files.map(async (file) => {
      // A location is a file beside the model: no folder, no way up.
      if (file === '' || file.includes('/') || file.includes('\\') || file === '..' || file === '.')
        throw new ModelLoadError(
          `${name}/${modelFile} names its weights file ${JSON.stringify(file.slice(0, 80))}, which is not a file beside it`,
        );
      const path = `${folder}${file}`;
      events.onProgress?.(`${name}/${path}`, 0, null);
      try {
        const data = await timed(`fetch ${name}/${path}`, () =>
          read(
            path,
            (loaded, total) => events.onProgress?.(`${name}/${path}`, loaded, total),
            MANIFEST_LIMITS.fileBytes,
          ),
        );
        return { path: file, data };
      } catch (error) {
        if (error instanceof ModelFileMissingError)
          throw new ModelLoadError(
            `${name}: ${modelFile} keeps its weights in ${path}, which the repository lacks (${error.message})`,
          );
        throw error;
      }
    }),
  );
}

async function openModel(
  runtime: typeof ort,
  fetched: FetchedModel,
  provider: ExecutionProvider,
  events: LoadEvents,
): Promise<LoadedModel> {
  const { label, description, tokenizerBytes, modelBytes, externalData, tokenizerConfig } = fetched;
  const { name, manifest } = description;
  events.onPhase?.('session');
  const tokenizer = timedSync(`tokenizer ${label}`, () =>
    TextTokenizer.fromJson(
      parseJson(tokenizerBytes, `${name}/${TOKENIZER_FILE}`),
      `${name}/${TOKENIZER_FILE}`,
      description.stop,
    ),
  );
  const session = await timed(`session ${label}`, () =>
    ModelSession.create(runtime, modelBytes, { name, provider, fallbackShape: description.shape, externalData }),
  );
  if (session.shape.vocab !== tokenizer.vocabSize) {
    throw new ModelLoadError(
      `${name}: the model scores ${session.shape.vocab} tokens but its tokenizer has ${tokenizer.vocabSize}`,
    );
  }
  await timed(`finite ${label}`, () => checkFiniteLogits(session, label));
  const chatTemplate = chatTemplateOf(tokenizerConfig, `${name}/tokenizer_config.json`);
  return { name, contextLength: description.contextLength, manifest, session, tokenizer, chatTemplate };
}

/**
 * One forward of one token before the model counts as loaded: a NaN or an infinity in its weights (a file
 * damaged before its hash was taken, or a bad export) shows in the logits of that first forward. The embedding
 * is tied to the output, so a non-finite entry of any token's embedding row reaches that token's logit.
 */
async function checkFiniteLogits(session: ModelSession, label: string): Promise<void> {
  const past = session.emptyCache(1);
  try {
    const { logits, cache } = await session.forward([0], 1, 1, past);
    cache.dispose();
    if (!logits.every(Number.isFinite))
      throw new ModelLoadError(`the ${label}'s logits are not finite: the model file is damaged`);
  } catch (error) {
    await session.release();
    throw error;
  } finally {
    past.dispose();
  }
}

export async function loadModel(
  runtime: typeof ort,
  read: FileReader,
  provider: ExecutionProvider,
  label: string,
  events: LoadEvents = {},
  modelFile = MODEL_FILE,
): Promise<LoadedModel> {
  return openModel(runtime, await fetchModel(read, label, provider, events, modelFile), provider, events);
}

/**
 * Both models' files are read and checked before either session opens: opening one runs onnxruntime's
 * wasm on this thread for seconds, and a download whose body is not read meanwhile stalls. `runtime` may
 * still be on its way (imported while the files download). The draft opens first, so that its timeline
 * phase carries onnxruntime's own start-up and the target's does not.
 */
export async function loadPair(
  runtime: typeof ort | Promise<typeof ort>,
  readers: { draft: FileReader; target: FileReader; head?: FileReader },
  provider: ExecutionProvider,
  events: LoadEvents = {},
  modelFile = MODEL_FILE,
): Promise<ModelPairHandle> {
  // The head's files download beside the models' (not after the target's session): only its session waits.
  // A head that fails its own checks is reported below (headError), never failing the pair's download: its
  // rejection is awaited there, so it is marked handled here.
  const headFiles = readers.head ? fetchHead(readers.head, events) : null;
  headFiles?.catch(() => undefined);
  const [draftFiles, targetFiles] = await Promise.all([
    fetchModel(readers.draft, 'draft', provider, events, modelFile),
    fetchModel(readers.target, 'target', provider, events, modelFile),
  ]);
  const draft = await openModel(await runtime, draftFiles, provider, events);
  let target: LoadedModel | null = null;
  try {
    target = await openModel(await runtime, targetFiles, provider, events);
    checkSameTokenizer(draft.tokenizer, target.tokenizer, draft.name, target.name);
    // The head only beside a target that exports features: elsewhere the head drafters are not offered. A
    // damaged head costs only the head drafters: the pair loads without it and they say why.
    let head: LoadedHead | null = null;
    let headError: string | null = null;
    if (headFiles && target.session.hasFeatures) {
      try {
        head = await openHead(await runtime, await headFiles, provider, target, events);
      } catch (error) {
        if (!(error instanceof ModelLoadError)) throw error;
        headError = `the draft head did not load: ${error.message}`;
      }
    }
    return { draft, target, tokenizer: target.tokenizer, head, headError };
  } catch (error) {
    // A refused pair holds no sessions.
    await draft.session.release();
    await target?.session.release();
    throw error;
  }
}
