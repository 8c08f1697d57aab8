/**
 * One causal language model on onnxruntime-web, with the transformers.js/Optimum I/O contract:
 * input_ids, attention_mask, [position_ids], past_key_values.{i}.key|value, [use_cache_branch] →
 * logits, present.{i}.key|value. Our bundled exports add [tree_attention_mask], which lets one run score
 * a token tree. Layers, heads and vocabulary are read from the session's metadata; names it lacks are
 * reported by name.
 */
import type * as ort from 'onnxruntime-web';
import { KvCache, type KvLayout } from './kvCache';
import type { ExecutionProvider } from '../contract/protocol';
import { ModelLoadError } from './manifest';

export interface ModelShape extends KvLayout {
  vocab: number;
  hasPositionIds: boolean;
  /** Older merged Optimum exports switch between prefill and decode graphs with this input. */
  hasCacheBranch: boolean;
  /**
   * Input `tree_attention_mask` (int64 [batch, seq, seq], 1 = new position i may attend to new position j,
   * ANDed with causal order): one run scores a token tree. Our bundled exports have it; Hub exports lack it.
   */
  hasTreeMask: boolean;
}

export interface ForwardOptions {
  /** On WebGPU, also keep the logits in their GPU buffer (ForwardResult.gpuLogits). */
  keepLogitsOnGpu?: boolean;
  /** batch × seq position ids, row-major; by default row r's token i sits at past.length + i. */
  positionIds?: ArrayLike<number>;
  /** batch × seq × seq, row-major, 1 = may attend; by default all ones (plain causal attention). */
  treeMask?: Uint8Array;
  /** Also return the `features` output (the target's last hidden state), where the model has one. */
  features?: boolean;
}

export interface ForwardResult {
  /** batch × seq × vocab logits, row-major. */
  logits: Float32Array;
  /** With `keepLogitsOnGpu` on WebGPU: the same logits still in their GPU buffer, owned by the caller. */
  gpuLogits: ort.Tensor | null;
  /** With `features`, a target that exports them: batch × seq × width final hidden states (the draft head's input). */
  features?: Float32Array | null;
  /** The cache after this run: the past plus the new positions. */
  cache: KvCache;
}

const PAST = /^past_key_values\.(\d+)\.(key|value)$/;

function numericDim(
  metadata: readonly ort.InferenceSession.ValueMetadata[],
  name: string,
  axis: number,
): number | undefined {
  const entry = metadata.find((value) => value.name === name);
  const dim = entry?.isTensor ? entry.shape[axis] : undefined;
  return typeof dim === 'number' && dim > 0 ? dim : undefined;
}

/** Reads the model's shape from its input/output names and metadata, or names what is missing. */
export function describeSession(
  session: ort.InferenceSession,
  source: string,
  fallback?: Partial<ModelShape>,
): ModelShape {
  const inputs = session.inputNames;
  const missing = ['input_ids', 'attention_mask'].filter((name) => !inputs.includes(name));
  if (!session.outputNames.includes('logits')) missing.push('logits (output)');
  const layerIndices = inputs
    .map((name) => PAST.exec(name)?.[1])
    .filter((index) => index !== undefined)
    .map(Number);
  const layers = layerIndices.length === 0 ? 0 : Math.max(...layerIndices) + 1;
  if (layers === 0) missing.push('past_key_values.0.key');
  for (let i = 0; i < layers; i++) {
    for (const kind of ['key', 'value']) {
      if (!inputs.includes(`past_key_values.${i}.${kind}`)) missing.push(`past_key_values.${i}.${kind}`);
      if (!session.outputNames.includes(`present.${i}.${kind}`)) missing.push(`present.${i}.${kind} (output)`);
    }
  }
  if (missing.length > 0) throw new ModelLoadError(`${source}: the ONNX model lacks ${missing.join(', ')}`);
  const heads = numericDim(session.inputMetadata, 'past_key_values.0.key', 1) ?? fallback?.heads;
  const headDim = numericDim(session.inputMetadata, 'past_key_values.0.key', 3) ?? fallback?.headDim;
  const vocab = numericDim(session.outputMetadata, 'logits', 2) ?? fallback?.vocab;
  if (heads === undefined || headDim === undefined || vocab === undefined) {
    throw new ModelLoadError(
      `${source}: the model's metadata leaves heads, head size or vocabulary size open and no manifest gives them`,
    );
  }
  return {
    layers,
    heads,
    headDim,
    vocab,
    hasPositionIds: inputs.includes('position_ids'),
    hasCacheBranch: inputs.includes('use_cache_branch'),
    hasTreeMask: inputs.includes('tree_attention_mask'),
  };
}

/**
 * An int64 array holding `count` non-negative values, written as little-endian 32-bit word pairs so no
 * value goes through BigInt; `valueAt` defaults every value to 1.
 */
function int64Array(count: number, valueAt?: (index: number) => number): BigInt64Array {
  const array = new BigInt64Array(count);
  if (!valueAt) return array.fill(1n);
  const words = new Int32Array(array.buffer);
  for (let i = 0; i < count; i++) words[2 * i] = valueAt(i);
  return array;
}

export class ModelSession {
  private constructor(
    private readonly runtime: typeof ort,
    private readonly session: ort.InferenceSession,
    readonly shape: ModelShape,
    readonly provider: ExecutionProvider,
    readonly name: string,
    private readonly device: GPUDevice | null,
  ) {}

  static async create(
    runtime: typeof ort,
    bytes: Uint8Array,
    options: {
      name: string;
      provider: ExecutionProvider;
      fallbackShape?: Partial<ModelShape>;
      /** The model's external weight files (onnx/model.onnx_data), by the name its initializers give. */
      externalData?: readonly { path: string; data: Uint8Array }[];
    },
  ): Promise<ModelSession> {
    const { name, provider } = options;
    let session: ort.InferenceSession;
    try {
      session = await runtime.InferenceSession.create(bytes, {
        executionProviders: [provider],
        graphOptimizationLevel: 'all',
        // Errors only: the node-placement notes onnxruntime logs as warnings are not failures.
        logSeverityLevel: 3,
        ...(options.externalData?.length ? { externalData: [...options.externalData] } : {}),
        // On WebGPU the cache stays on the GPU between runs; only the logits come back.
        ...(provider === 'webgpu' ? { preferredOutputLocation: 'gpu-buffer' as const } : {}),
      });
    } catch (error) {
      throw new ModelLoadError(
        `${name}: onnxruntime could not open the model on ${provider}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const shape = describeSession(session, name, options.fallbackShape);
    // The KV cache is gathered with copies on onnxruntime's own device; it exists once a session does.
    const device = provider === 'webgpu' ? await runtime.env.webgpu.device : null;
    return new ModelSession(runtime, session, shape, provider, name, device);
  }

  /** Whether the model exports its last hidden state as the output `features` (HEAD_INTERFACE: the draft head reads it). */
  get hasFeatures(): boolean {
    return this.session.outputNames.includes('features');
  }

  /** onnxruntime's WebGPU device, for kernels that read its buffers in place; null on wasm. */
  get gpuDevice(): GPUDevice | null {
    return this.device;
  }

  emptyCache(batch: number): KvCache {
    return KvCache.empty(this.runtime, this.shape, batch, this.device);
  }

  /**
   * Runs `seq` new tokens per row after `past` (whose batch must match). Row r's tokens are
   * inputIds[r*seq .. (r+1)*seq). The caller owns both the returned cache and `past`.
   */
  async forward(
    inputIds: ArrayLike<number>,
    batch: number,
    seq: number,
    past: KvCache,
    options: ForwardOptions = {},
  ): Promise<ForwardResult> {
    const { positionIds, treeMask } = options;
    const count = batch * seq;
    if (inputIds.length !== count)
      throw new RangeError(`${this.name}: ${inputIds.length} input ids for batch ${batch} × seq ${seq}`);
    if (past.batch !== batch)
      throw new RangeError(`${this.name}: a cache of batch ${past.batch} for an input of batch ${batch}`);
    if (positionIds !== undefined) {
      if (!this.shape.hasPositionIds)
        throw new RangeError(`${this.name}: the model has no position_ids input, so positions cannot be set`);
      if (positionIds.length !== count)
        throw new RangeError(`${this.name}: ${positionIds.length} position ids for batch ${batch} × seq ${seq}`);
    }
    if (treeMask !== undefined) {
      if (!this.shape.hasTreeMask)
        throw new RangeError(
          `${this.name}: the model has no tree_attention_mask input, so it cannot score a token tree in one run`,
        );
      if (treeMask.length !== count * seq)
        throw new RangeError(
          `${this.name}: a tree mask of ${treeMask.length} entries for batch ${batch} × seq ${seq} × seq ${seq}`,
        );
    }
    const { Tensor } = this.runtime;
    const total = past.length + seq;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new Tensor(
        'int64',
        int64Array(count, (i) => inputIds[i] as number),
        [batch, seq],
      ),
      attention_mask: new Tensor('int64', int64Array(batch * total), [batch, total]),
    };
    if (this.shape.hasPositionIds) {
      const positionAt = positionIds ? (i: number) => positionIds[i] as number : (i: number) => past.length + (i % seq);
      feeds.position_ids = new Tensor('int64', int64Array(count, positionAt), [batch, seq]);
    }
    if (this.shape.hasTreeMask) {
      feeds.tree_attention_mask = new Tensor(
        'int64',
        int64Array(count * seq, treeMask && ((i) => treeMask[i] as number)),
        [batch, seq, seq],
      );
    }
    if (this.shape.hasCacheBranch)
      feeds.use_cache_branch = new Tensor('bool', new Uint8Array([past.length > 0 ? 1 : 0]), [1]);
    for (let i = 0; i < this.shape.layers; i++) {
      feeds[`past_key_values.${i}.key`] = past.tensors[2 * i] as ort.Tensor;
      feeds[`past_key_values.${i}.value`] = past.tensors[2 * i + 1] as ort.Tensor;
    }
    const outputs = await this.session.run(feeds);
    const logitsTensor = outputs.logits as ort.Tensor;
    const onGpu = logitsTensor.location === 'gpu-buffer';
    const keep = onGpu && options.keepLogitsOnGpu === true;
    // Reading back releases the GPU buffer unless the caller keeps it for the WGSL verifier.
    const logits = onGpu ? ((await logitsTensor.getData(!keep)) as Float32Array) : (logitsTensor.data as Float32Array);
    const featuresTensor = outputs.features;
    let features: Float32Array | null = null;
    if (featuresTensor && options.features === true)
      features = (
        featuresTensor.location === 'gpu-buffer' ? await featuresTensor.getData(true) : featuresTensor.data
      ) as Float32Array;
    else if (featuresTensor?.location === 'gpu-buffer') featuresTensor.dispose();
    const present = Array.from(
      { length: 2 * this.shape.layers },
      (_, j) => outputs[`present.${j >> 1}.${j % 2 === 0 ? 'key' : 'value'}`] as ort.Tensor,
    );
    return {
      logits,
      gpuLogits: keep ? logitsTensor : null,
      features,
      cache: new KvCache(present, this.shape, batch, total, this.runtime, this.device),
    };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
