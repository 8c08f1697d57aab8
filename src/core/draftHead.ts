/**
 * A synthetic target with features and a synthetic draft head, for the proofs (test/core/draftLaw.test.ts)
 * and the decode-loop tests: the same shapes as the real ones (docs/models.md, "The draft head"), in a few numbers.
 *   target: f(prefix) a Gaussian feature per prefix; its logits are E·f (the tied LM head);
 *   head:   (f, token) → f' = tanh(A f + B[token]), logits E·f'.
 * Every value is rounded to float32, as the ONNX sessions return them, so a run through CachedPairModels and
 * one through PrefixPairModels read the same rows bit for bit.
 */
import type { LogitPair } from './modelPair';
import { philox4x32_10, seedKey, uniformF64FromWords } from './rng';

export interface SyntheticHead {
  readonly V: number;
  readonly width: number;
  /** The target's feature after `prefix` (at its last position): the vector whose product with E is its logits. */
  targetFeature(prefix: readonly number[]): Float32Array;
  /** The target's logits after `prefix`. */
  targetLogits(prefix: readonly number[]): Float32Array;
  /** One head position: the feature at t and the token at t + 1 → logits for t + 2 and the predicted feature at t + 1. */
  run(feature: Float32Array, token: number): { logits: Float32Array; feature: Float32Array };
}

function hashOf(values: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const value of values) hash = Math.imul(hash ^ value, 0x01000193) >>> 0;
  return Math.imul(hash ^ values.length, 0x01000193) >>> 0;
}

export function syntheticHead(options: { V: number; width: number; seed: number; scale?: number }): SyntheticHead {
  const { V, width, seed, scale = 1.5 } = options;
  const key = seedKey(seed);
  const gaussian = (a: number, b: number, lane: number): number => {
    const [w0, w1, w2, w3] = philox4x32_10([a, b, lane, 0x4ead], key);
    return (
      Math.sqrt(-2 * Math.log(1 - uniformF64FromWords(w0, w1))) * Math.cos(2 * Math.PI * uniformF64FromWords(w2, w3))
    );
  };
  const E = Array.from({ length: V }, (_, x) => Array.from({ length: width }, (_, i) => gaussian(x, i, 1) * scale));
  const A = Array.from({ length: width }, (_, i) =>
    Array.from({ length: width }, (_, j) => gaussian(i, j, 2) / Math.sqrt(width)),
  );
  const B = Array.from({ length: V }, (_, x) => Array.from({ length: width }, (_, i) => gaussian(x, i, 3)));
  const readOut = (feature: Float32Array) =>
    Float32Array.from(E, (row) => row.reduce((sum, e, i) => sum + e * (feature[i] as number), 0));
  const targetFeature = (prefix: readonly number[]) => {
    const hash = hashOf(prefix);
    return Float32Array.from({ length: width }, (_, i) => Math.tanh(gaussian(hash, i, 0)));
  };
  return {
    V,
    width,
    targetFeature,
    targetLogits: (prefix) => readOut(targetFeature(prefix)),
    run(feature, token) {
      const out = Float32Array.from(A, (row, i) =>
        Math.tanh(
          row.reduce((sum, a, j) => sum + a * (feature[j] as number), 0) + ((B[token] as number[])[i] as number),
        ),
      );
      return { logits: readOut(out), feature: out };
    },
  };
}

/**
 * The head's logits for the draft token after `context` and `drafted` (docs/models.md, "The draft head"): depth 1 reads the
 * target's feature at the context's second-to-last position and its last token; each later depth the head's
 * own feature and the token drawn before it.
 */
export function headChainLogits(
  head: SyntheticHead,
  context: readonly number[],
  drafted: readonly number[],
): Float32Array {
  if (context.length < 2)
    throw new RangeError(`the draft head needs a context of at least 2 tokens; got ${context.length}`);
  let feature = head.targetFeature(context.slice(0, -1));
  let token = context.at(-1) as number;
  for (const next of drafted) {
    feature = head.run(feature, token).feature;
    token = next;
  }
  return head.run(feature, token).logits;
}

/** The synthetic target and head as a LogitPair read after a fixed `context`: the draft row is the head's. */
export function headLogitPair(head: SyntheticHead, context: readonly number[]): LogitPair {
  return {
    V: head.V,
    target: (prefix) => Float64Array.from(head.targetLogits(prefix)),
    draft: (prefix) => Float64Array.from(headChainLogits(head, context, prefix.slice(context.length))),
  };
}
