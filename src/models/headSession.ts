/**
 * The EAGLE-style draft head (docs/models.md, "The draft head"; public/models/speclab-head): a position-wise model, no
 * attention and no cache, that maps (a feature at position t, the token at t + 1) to the head's logits for
 * the token at t + 2 and its predicted feature at t + 1. The feature it starts from is the target's
 * `features` output; later depths feed back its own `features_out`.
 */
import type * as ort from 'onnxruntime-web';
import type { ExecutionProvider } from '../contract/protocol';
import { ModelLoadError } from './manifest';

/** One batched head call: batch rows of logits (vocab each) and of predicted features (width each). */
export interface HeadForward {
  logits: Float32Array;
  features: Float32Array;
}

/** What the drafter asks of a head: a real session, or a stand-in in the tests. */
export interface DraftHead {
  readonly name: string;
  /** The feature width (the target's hidden size). */
  readonly width: number;
  /** batch rows: features[b] (width values) and the token ids[b] after it. */
  run(features: Float32Array, ids: ArrayLike<number>, batch: number): Promise<HeadForward>;
}

const INPUTS = ['features', 'input_ids'];
const OUTPUTS = ['logits', 'features_out'];

export class HeadSession implements DraftHead {
  private constructor(
    private readonly runtime: typeof ort,
    private readonly session: ort.InferenceSession,
    readonly name: string,
    readonly width: number,
    readonly vocab: number,
  ) {}

  static async create(
    runtime: typeof ort,
    bytes: Uint8Array,
    options: { name: string; provider: ExecutionProvider; width: number; vocab: number },
  ): Promise<HeadSession> {
    const { name, provider } = options;
    let session: ort.InferenceSession;
    try {
      session = await runtime.InferenceSession.create(bytes, {
        executionProviders: [provider],
        graphOptimizationLevel: 'all',
        logSeverityLevel: 3,
      });
    } catch (error) {
      throw new ModelLoadError(
        `${name}: onnxruntime could not open the head on ${provider}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const missing = [
      ...INPUTS.filter((input) => !session.inputNames.includes(input)),
      ...OUTPUTS.filter((output) => !session.outputNames.includes(output)).map((output) => `${output} (output)`),
    ];
    if (missing.length > 0) {
      await session.release();
      throw new ModelLoadError(`${name}: the head lacks ${missing.join(', ')}`);
    }
    return new HeadSession(runtime, session, name, options.width, options.vocab);
  }

  async run(features: Float32Array, ids: ArrayLike<number>, batch: number): Promise<HeadForward> {
    if (features.length !== batch * this.width || ids.length !== batch)
      throw new RangeError(
        `${this.name}: ${features.length} feature values and ${ids.length} ids for a batch of ${batch}`,
      );
    const { Tensor } = this.runtime;
    const outputs = await this.session.run({
      features: new Tensor('float32', features, [batch, 1, this.width]),
      input_ids: new Tensor('int64', BigInt64Array.from(Array.from(ids, (id) => BigInt(id))), [batch, 1]),
    });
    const read = async (tensor: ort.Tensor | undefined) =>
      (tensor?.location === 'gpu-buffer' ? await tensor.getData(true) : tensor?.data) as Float32Array;
    return { logits: await read(outputs.logits), features: await read(outputs.features_out) };
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}
