/**
 * The decoder graphs of the field's model families, written as plain ONNX (opset 17, no contrib ops, so the
 * same file runs on onnxruntime-web's wasm and WebGPU EPs), with the inputs and outputs an onnx-community /
 * Optimum export has: input_ids, attention_mask, [position_ids], past_key_values.N.key|value
 * [batch_size, num_key_value_heads, past_sequence_length, head_dim] → logits, present.N.key|value.
 * Llama, Qwen2, Qwen3 and Gemma share one block (RMSNorm, rotary positions, grouped-query attention, a gated
 * MLP) with their differences as switches; GPT-2 has learned positions, LayerNorm and a fused QKV.
 */
import { GraphBuilder, float16Raw, float32Raw, type GraphIo, type ModelFiles, type TensorValue } from './onnx';
import { createRng, type Rng } from '../../src/core/rng';

export type Arch = 'llama' | 'qwen2' | 'qwen3' | 'gemma' | 'gpt2';
export const ARCHES: readonly Arch[] = ['llama', 'qwen2', 'qwen3', 'gemma', 'gpt2'];

export interface GraphShape {
  arch: Arch;
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  /** Rows of the embedding and columns of the logits: the config's vocab_size (it may exceed the tokenizer's). */
  vocab: number;
  /** GPT-2's learned position table; the others' config max_position_embeddings. */
  positions: number;
  ropeTheta: number;
  eps: number;
  tieEmbeddings: boolean;
}

export type WeightFormat = 'float32' | 'float16' | 'uint8';

export interface GraphOptions {
  seed: number;
  /** float32 or float16 weights (the latter cast to float32 in the graph), or uint8 + DequantizeLinear (model_quantized). */
  weights: WeightFormat;
  externalData?: string | undefined;
}

/** Random weights: uniform in ±scale from Philox, one stream per tensor so each tensor is reproducible alone. */
class Weights {
  private stream = 0;
  constructor(
    private readonly builder: GraphBuilder,
    private readonly seed: number,
    private readonly format: WeightFormat,
  ) {}

  private values(count: number, scale: number, rng: Rng): Float32Array {
    const values = new Float32Array(count);
    for (let i = 0; i < count; i++) values[i] = (2 * rng.uniform() - 1) * scale;
    return values;
  }

  /** A weight of `dims`, read in the graph as float32 whatever its stored format. */
  random(name: string, dims: readonly number[], scale: number): string {
    const count = dims.reduce((product, dim) => product * dim, 1);
    const values = this.values(count, scale, createRng(this.seed, this.stream++));
    return this.stored(name, dims, values);
  }

  /** A norm's weight or a bias: ones plus a little noise, so that a wrong axis shows in the logits. */
  near(name: string, dims: readonly number[], center: number): string {
    const values = this.values(
      dims.reduce((product, dim) => product * dim, 1),
      0.1,
      createRng(this.seed, this.stream++),
    ).map((value) => value + center);
    return this.builder.initializer(name, { type: 'float', dims, raw: float32Raw(values) });
  }

  private stored(name: string, dims: readonly number[], values: Float32Array): string {
    const b = this.builder;
    if (this.format === 'float32') return b.initializer(name, { type: 'float', dims, raw: float32Raw(values) });
    if (this.format === 'float16') {
      b.initializer(`${name}_fp16`, { type: 'float16', dims, raw: float16Raw(values) });
      return b.node('Cast', [`${name}_fp16`], { to: 1 }, `${name}_cast`);
    }
    // Per-tensor asymmetric uint8, as a weight-only quantized export stores it.
    let min = 0;
    let max = 0;
    for (const value of values) {
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    const scale = (max - min) / 255 || 1;
    const zeroPoint = Math.round(-min / scale);
    const quantized = Uint8Array.from(values, (value) =>
      Math.min(255, Math.max(0, Math.round(value / scale) + zeroPoint)),
    );
    const tensor: TensorValue = { type: 'uint8', dims, raw: quantized };
    b.initializer(`${name}_quantized`, tensor);
    const scaleName = b.float([scale], []);
    const zeroName = b.initializer(b.name('zero_point'), { type: 'uint8', dims: [], raw: Uint8Array.of(zeroPoint) });
    return b.node('DequantizeLinear', [`${name}_quantized`, scaleName, zeroName], {}, `${name}_dequantized`);
  }
}

const kvDims = (shape: GraphShape, length: string): GraphIo['dims'] => [
  'batch_size',
  shape.kvHeads,
  length,
  shape.headDim,
];

/** The graph's inputs and outputs, named and shaped as the family's Hub exports have them. */
export function graphIo(shape: GraphShape): { inputs: GraphIo[]; outputs: GraphIo[] } {
  const inputs: GraphIo[] = [
    { name: 'input_ids', type: 'int64', dims: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', type: 'int64', dims: ['batch_size', 'total_sequence_length'] },
  ];
  // GPT-2's exports (Xenova/gpt2, distilgpt2) take no position_ids: positions follow the past's length.
  if (shape.arch !== 'gpt2')
    inputs.push({ name: 'position_ids', type: 'int64', dims: ['batch_size', 'sequence_length'] });
  const outputs: GraphIo[] = [{ name: 'logits', type: 'float', dims: ['batch_size', 'sequence_length', shape.vocab] }];
  for (let layer = 0; layer < shape.layers; layer++) {
    for (const kind of ['key', 'value']) {
      inputs.push({
        name: `past_key_values.${layer}.${kind}`,
        type: 'float',
        dims: kvDims(shape, 'past_sequence_length'),
      });
      outputs.push({ name: `present.${layer}.${kind}`, type: 'float', dims: kvDims(shape, 'total_sequence_length') });
    }
  }
  return { inputs, outputs };
}

function scalarDim(b: GraphBuilder, tensor: string, axis: number): string {
  return b.node('Squeeze', [b.node('Shape', [tensor], { start: axis, end: axis + 1 }), b.int64([0])]);
}

/** The new tokens' positions [seq]: past_sequence_length … total_sequence_length − 1. */
function newPositions(b: GraphBuilder): string {
  const total = scalarDim(b, 'attention_mask', 1);
  const past = b.node('Sub', [total, scalarDim(b, 'input_ids', 1)]);
  return b.node('Range', [past, total, b.int64([1], [])]);
}

/** The additive attention mask [batch, 1, seq, total]: 0 where a query may attend, -3.4e38 where it may not. */
function attentionBias(b: GraphBuilder): string {
  const total = scalarDim(b, 'attention_mask', 1);
  const keyPositions = b.node('Unsqueeze', [
    b.node('Range', [b.int64([0], []), total, b.int64([1], [])]),
    b.int64([0]),
  ]);
  const queryPositions = b.node('Unsqueeze', [newPositions(b), b.int64([1])]);
  // A key after the query's own position is the future: blocked, as is a key the attention mask zeroes.
  const future = b.node('Unsqueeze', [b.node('Greater', [keyPositions, queryPositions]), b.int64([0, 1])]);
  const padding = b.node('Unsqueeze', [b.node('Equal', ['attention_mask', b.int64([0], [])]), b.int64([1, 2])]);
  const blocked = b.node('Or', [future, padding]);
  return b.node('Where', [blocked, b.float([-3.4028234663852886e38], []), b.float([0], [])], {}, 'attention_bias');
}

/** [batch, seq, heads·dim] → [batch, heads, seq, dim]. */
function splitHeads(b: GraphBuilder, x: string, heads: number, headDim: number): string {
  return b.node('Transpose', [b.node('Reshape', [x, b.int64([0, 0, heads, headDim])])], { perm: [0, 2, 1, 3] });
}

/**
 * Attention with grouped-query heads: the heads·seq queries of each key/value head attend to its keys in
 * one MatMul ([batch, kv, groups·seq, dim] × [batch, kv, dim, total]), the mask tiled over the groups.
 */
function attend(
  b: GraphBuilder,
  shape: GraphShape,
  q: string,
  k: string,
  v: string,
  bias: string,
  scale: number,
): string {
  const groups = shape.heads / shape.kvHeads;
  const grouped = b.node('Reshape', [q, b.int64([0, shape.kvHeads, -1, shape.headDim])]);
  const scores = b.node('MatMul', [grouped, b.node('Transpose', [k], { perm: [0, 1, 3, 2] })]);
  const tiledBias = groups === 1 ? bias : b.node('Tile', [bias, b.int64([1, 1, groups, 1])]);
  const weights = b.node('Softmax', [b.node('Add', [b.node('Mul', [scores, b.float([scale], [])]), tiledBias])], {
    axis: -1,
  });
  const context = b.node('Reshape', [b.node('MatMul', [weights, v]), b.int64([0, shape.heads, -1, shape.headDim])]);
  return b.node('Reshape', [
    b.node('Transpose', [context], { perm: [0, 2, 1, 3] }),
    b.int64([0, 0, shape.heads * shape.headDim]),
  ]);
}

function rmsNorm(b: GraphBuilder, x: string, weight: string, eps: number): string {
  const meanSquare = b.node('ReduceMean', [b.node('Mul', [x, x])], { axes: [-1], keepdims: 1 });
  const inverse = b.node('Reciprocal', [b.node('Sqrt', [b.node('Add', [meanSquare, b.float([eps], [])])])]);
  return b.node('Mul', [b.node('Mul', [x, inverse]), weight], {}, 'rms_norm');
}

/** x·cos + rotate_half(x)·sin, rotate_half(x) = [−x₂, x₁] over the head's two halves (Llama's layout). */
function rotary(b: GraphBuilder, x: string, cos: string, sin: string, headDim: number): string {
  const half = b.int64([headDim / 2, headDim / 2]);
  const first = b.name('rotary_first');
  const second = b.name('rotary_second');
  b.nodeTo('Split', [x, half], [first, second], { axis: -1 });
  const rotated = b.node('Concat', [b.node('Neg', [second]), first], { axis: -1 });
  return b.node('Add', [b.node('Mul', [x, cos]), b.node('Mul', [rotated, sin])], {}, 'rotary');
}

/** cos and sin of position × inverse frequency, [batch, 1, seq, head_dim], from position_ids. */
function rotaryTables(b: GraphBuilder, shape: GraphShape): { cos: string; sin: string } {
  const inverse = Array.from({ length: shape.headDim / 2 }, (_, i) => shape.ropeTheta ** ((-2 * i) / shape.headDim));
  const positions = b.node('Unsqueeze', [b.node('Cast', ['position_ids'], { to: 1 }), b.int64([2])]);
  const angles = b.node('Mul', [positions, b.float(inverse)]);
  const full = b.node('Unsqueeze', [b.node('Concat', [angles, angles], { axis: -1 }), b.int64([1])]);
  return { cos: b.node('Cos', [full]), sin: b.node('Sin', [full]) };
}

/** gelu_pytorch_tanh / gelu_new: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
function geluTanh(b: GraphBuilder, x: string): string {
  const cube = b.node('Mul', [b.node('Mul', [x, x]), x]);
  const inner = b.node('Mul', [
    b.node('Add', [x, b.node('Mul', [cube, b.float([0.044715], [])])]),
    b.float([Math.sqrt(2 / Math.PI)], []),
  ]);
  const gate = b.node('Add', [b.node('Tanh', [inner]), b.float([1], [])]);
  return b.node('Mul', [b.node('Mul', [x, gate]), b.float([0.5], [])], {}, 'gelu');
}

function linear(
  b: GraphBuilder,
  w: Weights,
  x: string,
  name: string,
  inputs: number,
  outputs: number,
  bias: boolean,
): string {
  const product = b.node('MatMul', [x, w.random(`${name}.weight`, [inputs, outputs], 1 / Math.sqrt(inputs))]);
  return bias ? b.node('Add', [product, w.near(`${name}.bias`, [outputs], 0)]) : product;
}

function writePresent(b: GraphBuilder, past: string, current: string, present: string): void {
  b.nodeTo('Concat', [past, current], [present], { axis: 2 });
}

function llamaLike(b: GraphBuilder, w: Weights, shape: GraphShape): string {
  const { arch, hidden, heads, kvHeads, headDim, intermediate, eps } = shape;
  const gemma = arch === 'gemma';
  // Gemma's RMSNorm scales by (1 + weight): its weights sit near 0, the others' near 1.
  const normWeight = (name: string, size: number) =>
    gemma ? b.node('Add', [w.near(name, [size], 0), b.float([1], [])]) : w.near(name, [size], 1);
  const embedding = w.random('model.embed_tokens.weight', [shape.vocab, hidden], 1);
  let x = b.node('Gather', [embedding, 'input_ids'], { axis: 0 });
  if (gemma) x = b.node('Mul', [x, b.float([Math.sqrt(hidden)], [])]);
  const bias = attentionBias(b);
  const { cos, sin } = rotaryTables(b, shape);
  for (let layer = 0; layer < shape.layers; layer++) {
    const prefix = `model.layers.${layer}`;
    const h = rmsNorm(b, x, normWeight(`${prefix}.input_layernorm.weight`, hidden), eps);
    const qkvBias = arch === 'qwen2';
    let q = splitHeads(
      b,
      linear(b, w, h, `${prefix}.self_attn.q_proj`, hidden, heads * headDim, qkvBias),
      heads,
      headDim,
    );
    let k = splitHeads(
      b,
      linear(b, w, h, `${prefix}.self_attn.k_proj`, hidden, kvHeads * headDim, qkvBias),
      kvHeads,
      headDim,
    );
    const v = splitHeads(
      b,
      linear(b, w, h, `${prefix}.self_attn.v_proj`, hidden, kvHeads * headDim, qkvBias),
      kvHeads,
      headDim,
    );
    if (arch === 'qwen3' || gemma) {
      // Qwen3 and Gemma 3 normalise each head's queries and keys before the rotation.
      q = rmsNorm(b, q, normWeight(`${prefix}.self_attn.q_norm.weight`, headDim), eps);
      k = rmsNorm(b, k, normWeight(`${prefix}.self_attn.k_norm.weight`, headDim), eps);
    }
    q = rotary(b, q, cos, sin, headDim);
    k = rotary(b, k, cos, sin, headDim);
    const presentKey = `present.${layer}.key`;
    const presentValue = `present.${layer}.value`;
    writePresent(b, `past_key_values.${layer}.key`, k, presentKey);
    writePresent(b, `past_key_values.${layer}.value`, v, presentValue);
    const context = attend(b, shape, q, presentKey, presentValue, bias, 1 / Math.sqrt(headDim));
    let attention = linear(b, w, context, `${prefix}.self_attn.o_proj`, heads * headDim, hidden, false);
    if (gemma) attention = rmsNorm(b, attention, normWeight(`${prefix}.post_attention_layernorm.weight`, hidden), eps);
    x = b.node('Add', [x, attention], {}, 'residual');
    const m = rmsNorm(
      b,
      x,
      normWeight(`${prefix}.${gemma ? 'pre_feedforward_layernorm' : 'post_attention_layernorm'}.weight`, hidden),
      eps,
    );
    const gateProjection = linear(b, w, m, `${prefix}.mlp.gate_proj`, hidden, intermediate, false);
    const gate = gemma
      ? geluTanh(b, gateProjection)
      : b.node('Mul', [gateProjection, b.node('Sigmoid', [gateProjection])]);
    const up = linear(b, w, m, `${prefix}.mlp.up_proj`, hidden, intermediate, false);
    let mlp = linear(b, w, b.node('Mul', [gate, up]), `${prefix}.mlp.down_proj`, intermediate, hidden, false);
    if (gemma) mlp = rmsNorm(b, mlp, normWeight(`${prefix}.post_feedforward_layernorm.weight`, hidden), eps);
    x = b.node('Add', [x, mlp], {}, 'residual');
  }
  const final = rmsNorm(b, x, normWeight('model.norm.weight', hidden), eps);
  return head(b, w, shape, final, embedding, 'lm_head.weight');
}

/** The output projection: the embedding transposed when tied (one copy in the file), else its own weight. */
function head(b: GraphBuilder, w: Weights, shape: GraphShape, x: string, embedding: string, name: string): string {
  const weight = shape.tieEmbeddings
    ? b.node('Transpose', [embedding], { perm: [1, 0] }, 'tied_lm_head')
    : w.random(name, [shape.hidden, shape.vocab], 1 / Math.sqrt(shape.hidden));
  const logits = b.node('MatMul', [x, weight]);
  b.nodeTo('Identity', [logits], ['logits']);
  return logits;
}

function gpt2(b: GraphBuilder, w: Weights, shape: GraphShape): string {
  const { hidden, heads, headDim, eps } = shape;
  const layerNorm = (x: string, name: string) =>
    b.node('LayerNormalization', [x, w.near(`${name}.weight`, [hidden], 1), w.near(`${name}.bias`, [hidden], 0)], {
      axis: -1,
      epsilon: { float: eps },
    });
  const embedding = w.random('transformer.wte.weight', [shape.vocab, hidden], 1);
  const bias = attentionBias(b);
  // Positions past..total-1, as GPT2Model derives them when no position_ids are given.
  const positions = newPositions(b);
  const positionTable = w.random('transformer.wpe.weight', [shape.positions, hidden], 0.5);
  let x = b.node('Add', [
    b.node('Gather', [embedding, 'input_ids'], { axis: 0 }),
    b.node('Gather', [positionTable, positions], { axis: 0 }),
  ]);
  for (let layer = 0; layer < shape.layers; layer++) {
    const prefix = `transformer.h.${layer}`;
    const qkv = linear(b, w, layerNorm(x, `${prefix}.ln_1`), `${prefix}.attn.c_attn`, hidden, 3 * hidden, true);
    const [q, k, v] = ['q', 'k', 'v'].map((part) => b.name(`attn_${part}`)) as [string, string, string];
    b.nodeTo('Split', [qkv, b.int64([hidden, hidden, hidden])], [q, k, v], { axis: -1 });
    writePresent(b, `past_key_values.${layer}.key`, splitHeads(b, k, heads, headDim), `present.${layer}.key`);
    writePresent(b, `past_key_values.${layer}.value`, splitHeads(b, v, heads, headDim), `present.${layer}.value`);
    const context = attend(
      b,
      shape,
      splitHeads(b, q, heads, headDim),
      `present.${layer}.key`,
      `present.${layer}.value`,
      bias,
      1 / Math.sqrt(headDim),
    );
    x = b.node('Add', [x, linear(b, w, context, `${prefix}.attn.c_proj`, hidden, hidden, true)], {}, 'residual');
    const up = linear(b, w, layerNorm(x, `${prefix}.ln_2`), `${prefix}.mlp.c_fc`, hidden, shape.intermediate, true);
    x = b.node(
      'Add',
      [x, linear(b, w, geluTanh(b, up), `${prefix}.mlp.c_proj`, shape.intermediate, hidden, true)],
      {},
      'residual',
    );
  }
  return head(b, w, shape, layerNorm(x, 'transformer.ln_f'), embedding, 'lm_head.weight');
}

/** The family's decoder as an ONNX model (and its external weights, when `externalData` names their file). */
export function buildGraph(shape: GraphShape, options: GraphOptions): ModelFiles {
  if (shape.heads % shape.kvHeads !== 0)
    throw new RangeError(`${shape.heads} heads cannot be shared by ${shape.kvHeads} key/value heads`);
  if (shape.arch !== 'gpt2' && shape.headDim % 2 !== 0)
    throw new RangeError(`rotary positions need an even head size, got ${shape.headDim}`);
  const b = new GraphBuilder();
  const w = new Weights(b, options.seed, options.weights);
  if (shape.arch === 'gpt2') gpt2(b, w, shape);
  else llamaLike(b, w, shape);
  return b.write({ ...graphIo(shape), producer: 'speclab-replica', externalData: options.externalData });
}
