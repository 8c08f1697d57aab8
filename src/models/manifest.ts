/**
 * The bundled models' manifest (written by tools/train/train.py) and the integrity checks a loader runs
 * before a byte of a model reaches onnxruntime.
 */
import { MANIFEST_LIMITS } from '../contract/limits';
import type { ExecutionProvider } from '../contract/protocol';

export class ModelLoadError extends Error {
  override name = 'ModelLoadError';
}

/** A model whose manifest rules out the execution provider it was asked to run on. */
export class ProviderUnsupportedError extends ModelLoadError {
  override name = 'ProviderUnsupportedError';
}

export interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface GoldenPrompt {
  preset: string;
  input_ids: number[];
  last_logits: number[];
}

export interface ModelManifest {
  name: string;
  architecture: {
    vocab_size: number;
    context_length: number;
    width: number;
    layers: number;
    heads: number;
    head_dim: number;
    parameters: number;
  };
  tokenizer: { file: string; vocab_size: number; stop_token: string; stop_token_id: number };
  io: { inputs: string[]; outputs: string[] };
  files: ManifestFile[];
  training: Record<string, unknown>;
  golden: { prompts: GoldenPrompt[] };
  /** The execution providers the model gives the right logits on, and why only those; absent: every one. */
  runs_on?: { providers: ExecutionProvider[]; why: string };
}

function field(value: unknown, path: string, source: string, kind: 'number' | 'string' | 'object' | 'array'): unknown {
  const ok = kind === 'array' ? Array.isArray(value) : typeof value === kind && value !== null;
  if (!ok)
    throw new ModelLoadError(
      `${source}: manifest field ${path} must be ${kind === 'array' ? 'an array' : `a ${kind}`}`,
    );
  return value;
}

function inRange(
  value: number,
  range: { min: number; max: number },
  path: string,
  source: string,
  noun = 'manifest field',
): void {
  if (!(Number.isInteger(value) && value >= range.min && value <= range.max)) {
    throw new ModelLoadError(
      `${source}: ${noun} ${path} must be an integer from ${range.min} to ${range.max}, got ${value}`,
    );
  }
}

/** A file named by the manifest must lie in the model's own directory: no other site, no way up. */
function relativePath(path: string, name: string, source: string): void {
  if (
    path === '' ||
    path.startsWith('/') ||
    path.includes('\\') ||
    /^[a-z][a-z0-9+.-]*:/i.test(path) ||
    path.split('/').some((part) => part === '..' || part === '.')
  ) {
    throw new ModelLoadError(
      `${source}: manifest field ${name} must be a file in the model's own directory, got ${JSON.stringify(path.slice(0, 80))}`,
    );
  }
}

/** Checks the fields the runtime relies on, naming the first one that is missing or malformed. */
export function parseManifest(json: unknown, source: string): ModelManifest {
  const root = field(json, '(root)', source, 'object') as Record<string, unknown>;
  field(root.name, 'name', source, 'string');
  const architecture = field(root.architecture, 'architecture', source, 'object') as Record<string, unknown>;
  for (const key of ['vocab_size', 'context_length', 'layers', 'heads', 'head_dim']) {
    const range =
      key === 'vocab_size'
        ? MANIFEST_LIMITS.vocabSize
        : key === 'context_length'
          ? MANIFEST_LIMITS.contextLength
          : MANIFEST_LIMITS.dimension;
    inRange(
      field(architecture[key], `architecture.${key}`, source, 'number') as number,
      range,
      `architecture.${key}`,
      source,
    );
  }
  const tokenizer = field(root.tokenizer, 'tokenizer', source, 'object') as Record<string, unknown>;
  relativePath(field(tokenizer.file, 'tokenizer.file', source, 'string') as string, 'tokenizer.file', source);
  // The loader looks the stop token up by this text.
  field(tokenizer.stop_token, 'tokenizer.stop_token', source, 'string');
  field(tokenizer.stop_token_id, 'tokenizer.stop_token_id', source, 'number');
  const io = field(root.io, 'io', source, 'object') as Record<string, unknown>;
  field(io.inputs, 'io.inputs', source, 'array');
  field(io.outputs, 'io.outputs', source, 'array');
  const files = field(root.files, 'files', source, 'array') as unknown[];
  files.forEach((file, i) => {
    const entry = field(file, `files[${i}]`, source, 'object') as Record<string, unknown>;
    relativePath(field(entry.path, `files[${i}].path`, source, 'string') as string, `files[${i}].path`, source);
    if (entry.bytes !== undefined)
      inRange(
        field(entry.bytes, `files[${i}].bytes`, source, 'number') as number,
        { min: 1, max: MANIFEST_LIMITS.fileBytes },
        `files[${i}].bytes`,
        source,
      );
    field(entry.sha256, `files[${i}].sha256`, source, 'string');
  });
  if (root.runs_on !== undefined) {
    const runsOn = field(root.runs_on, 'runs_on', source, 'object') as Record<string, unknown>;
    const providers = field(runsOn.providers, 'runs_on.providers', source, 'array') as unknown[];
    if (providers.length === 0 || !providers.every((provider) => provider === 'wasm' || provider === 'webgpu')) {
      throw new ModelLoadError(`${source}: manifest field runs_on.providers must list 'wasm' or 'webgpu'`);
    }
    field(runsOn.why, 'runs_on.why', source, 'string');
  }
  return json as ModelManifest;
}

/** What the loader takes from a Hugging Face config.json (GPT-2, Llama, Qwen or Gemma field names), which has no manifest. */
export interface HubConfig {
  contextLength: number;
  /** The stop tokens' ids: eos_token_id, a number or (Llama 3) a list; the first is the EOS. */
  eosTokenIds: number[];
  vocabSize: number | null;
  /** model_type, where the config names one. */
  modelType: string | null;
}

/** The model types whose exports the loader has been proven on (random-weight replicas, docs/models.md). */
export const SUPPORTED_MODEL_TYPES: readonly string[] = ['gpt2', 'llama', 'qwen2', 'qwen3', 'gemma3_text'];

/** eos_token_id as a list: a number, or a non-empty list of numbers; null where it is neither. */
export function eosIds(value: unknown): number[] | null {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((id) => typeof id === 'number')) return value as number[];
  return null;
}

/**
 * Reads a Hub config.json's fields in the same ranges as a manifest's; null when it lacks the context length
 * or the stop token (where generation_config.json's `eos_token_id`, passed as `generationEos`, does not give it).
 */
export function parseHubConfig(json: unknown, source: string, generationEos: unknown = undefined): HubConfig | null {
  const config = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const numberKey = (...keys: string[]) => keys.find((key) => typeof config[key] === 'number');
  const contextKey = numberKey('n_positions', 'max_position_embeddings');
  const number = (key: string | undefined) => (key === undefined ? undefined : (config[key] as number));
  const contextLength = number(contextKey);
  // generation_config.json is what generation reads (Llama 3.2 Instruct lists <|eot_id|> there, Qwen3 <|endoftext|>).
  const eosTokenIds = eosIds(generationEos) ?? eosIds(config.eos_token_id);
  if (contextKey === undefined || contextLength === undefined || eosTokenIds === null) return null;
  inRange(contextLength, MANIFEST_LIMITS.contextLength, contextKey, source, 'field');
  const vocabSize = number(numberKey('vocab_size')) ?? null;
  if (vocabSize !== null) inRange(vocabSize, MANIFEST_LIMITS.vocabSize, 'vocab_size', source, 'field');
  // Ids the vocabulary has: below vocab_size where the config gives it.
  for (const id of eosTokenIds)
    inRange(id, { min: 0, max: (vocabSize ?? MANIFEST_LIMITS.vocabSize.max) - 1 }, 'eos_token_id', source, 'field');
  const modelType = typeof config.model_type === 'string' ? config.model_type : null;
  return { contextLength, eosTokenIds, vocabSize, modelType };
}

/** Throws ProviderUnsupportedError where the manifest rules `provider` out. */
export function checkProvider(manifest: ModelManifest, provider: ExecutionProvider): void {
  const runsOn = manifest.runs_on;
  if (runsOn && !runsOn.providers.includes(provider)) {
    throw new ProviderUnsupportedError(`${manifest.name} runs on ${runsOn.providers.join(' or ')} only: ${runsOn.why}`);
  }
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Throws unless `bytes` are the file the manifest lists under `path`, byte for byte. */
export async function checkFile(manifest: ModelManifest, path: string, bytes: Uint8Array): Promise<void> {
  const entry = manifest.files.find((file) => file.path === path);
  if (!entry) throw new ModelLoadError(`${manifest.name}: the manifest lists no file ${path}`);
  const actual = await sha256Hex(bytes);
  if (actual !== entry.sha256) {
    throw new ModelLoadError(
      `${manifest.name}/${path}: sha256 ${actual} does not match the manifest's ${entry.sha256} (${bytes.length} bytes, expected ${entry.bytes})`,
    );
  }
}
