import type { RandomSource } from './random';
import { philoxBlockInto, seedKey, uniformF64FromWords, type Rng } from './rng';
import { logitsToProbs, sampleCategorical } from './sampling';
import type { DraftBlockView } from './verify/view';
import type { VerifyProblem } from './verify/types';

/** A draft/target pair given as next-token distributions of a prefix: real models, or synthetic ones. */
export interface ModelPair {
  readonly V: number;
  target(prefix: readonly number[]): Float64Array;
  draft(prefix: readonly number[]): Float64Array;
}

/** Draws K i.i.d. drafts of length L after `context` and lays them out as a dense verification problem. */
export function sampleProblem(
  pair: ModelPair,
  context: readonly number[],
  K: number,
  L: number,
  rng: Rng,
): VerifyProblem {
  const { V } = pair;
  const drafts = new Int32Array(K * L);
  const draftProbs = new Float64Array(K * L * V);
  const targetProbs = new Float64Array(K * (L + 1) * V);
  for (let k = 0; k < K; k++) {
    const prefix = [...context];
    for (let j = 0; j <= L; j++) {
      targetProbs.set(pair.target(prefix), (k * (L + 1) + j) * V);
      if (j === L) break;
      const draftRow = pair.draft(prefix);
      draftProbs.set(draftRow, (k * L + j) * V);
      const token = sampleCategorical(draftRow, rng);
      drafts[k * L + j] = token;
      prefix.push(token);
    }
  }
  return { K, L, V, drafts, draftProbs, targetProbs };
}

/**
 * A view whose draft tokens are sampled from the pair through `source` on first read. Under exact
 * enumeration this branches only on tokens a verifier actually reads.
 */
export function lazyDraftView(
  pair: ModelPair,
  context: readonly number[],
  K: number,
  L: number,
  source: RandomSource,
): DraftBlockView {
  const prefixes: number[][] = Array.from({ length: K }, () => [...context]);
  const rows =
    (cache: Map<number, Float64Array>, model: (prefix: readonly number[]) => Float64Array) =>
    (k: number, j: number): Float64Array => {
      let row = cache.get(k * (L + 1) + j);
      if (!row) {
        readTokens(k, j);
        row = model((prefixes[k] as number[]).slice(0, context.length + j));
        cache.set(k * (L + 1) + j, row);
      }
      return row;
    };
  const draftRow = rows(new Map(), (prefix) => pair.draft(prefix));
  const targetRow = rows(new Map(), (prefix) => pair.target(prefix));
  /** Makes sure d_k[0..length) has been sampled. */
  function readTokens(k: number, length: number): void {
    const prefix = prefixes[k] as number[];
    while (prefix.length < context.length + length) {
      prefix.push(source.categorical(draftRow(k, prefix.length - context.length)));
    }
  }
  return {
    K,
    L,
    V: pair.V,
    token: (k, j) => {
      readTokens(k, j + 1);
      return (prefixes[k] as number[])[context.length + j] as number;
    },
    draftRow,
    targetRow,
  };
}

export interface SyntheticPairOptions {
  V: number;
  seed: number;
  /** Sampling temperature applied to both models (0 = greedy). */
  temperature: number;
  /** Correlation of draft logits with target logits: 1 makes them equal, 0 independent. */
  closeness: number;
  /** Standard deviation of the target logits: larger is more peaked. */
  logitScale?: number;
}

function hashPrefix(prefix: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const token of prefix) {
    hash = Math.imul(hash ^ (token & 0xffff), 0x01000193) >>> 0;
    hash = Math.imul(hash ^ (token >>> 16), 0x01000193) >>> 0;
  }
  return Math.imul(hash ^ prefix.length, 0x01000193) >>> 0;
}

/** Next-token logits of a draft/target pair, as models give them. */
export interface LogitPair {
  readonly V: number;
  target(prefix: readonly number[]): Float64Array;
  draft(prefix: readonly number[]): Float64Array;
}

/**
 * Context-dependent synthetic logits: each prefix hashes to Philox counters that give Gaussian target
 * logits, and draft logits that correlate with them by `closeness`. Deterministic in (seed, prefix).
 */
export function syntheticLogits(options: Omit<SyntheticPairOptions, 'temperature'>): LogitPair {
  const { V, seed, closeness, logitScale = 2 } = options;
  if (!(closeness >= 0 && closeness <= 1)) throw new RangeError(`closeness must lie in [0, 1], got ${closeness}`);
  if (!(Number.isInteger(V) && V >= 2)) throw new RangeError(`V must be an integer ≥ 2, got ${V}`);
  const key = seedKey(seed);
  const gaussians = (prefixHash: number, lane: number): Float64Array => {
    const values = new Float64Array(V);
    const words = new Uint32Array(4);
    for (let x = 0; x < V; x++) {
      philoxBlockInto(words, x, prefixHash, lane, 0x5eed, key[0], key[1]);
      const u1 = 1 - uniformF64FromWords(words[0] as number, words[1] as number); // (0, 1], safe for the log
      const u2 = uniformF64FromWords(words[2] as number, words[3] as number);
      values[x] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
    return values;
  };
  const independentWeight = Math.sqrt(1 - closeness * closeness);
  // The draft's logits reuse the target's Gaussians: the last prefix's are kept, since a pair asks for both.
  let lastHash = -1;
  let lastTarget: Float64Array = new Float64Array(0);
  const targetGaussians = (prefixHash: number): Float64Array => {
    if (prefixHash !== lastHash) {
      lastTarget = gaussians(prefixHash, 0);
      lastHash = prefixHash;
    }
    return lastTarget;
  };
  return {
    V,
    target: (prefix) => targetGaussians(hashPrefix(prefix)).map((g) => g * logitScale),
    draft: (prefix) => {
      const own = gaussians(hashPrefix(prefix), 1);
      return targetGaussians(hashPrefix(prefix)).map(
        (g, x) => (closeness * g + independentWeight * (own[x] as number)) * logitScale,
      );
    },
  };
}

/** The most memory the synthetic pair's cached rows may hold. */
const SYNTHETIC_CACHE_BYTES = 256 * 2 ** 20;

/** The synthetic logits as probabilities at a temperature, cached per prefix. */
export function syntheticPair(options: SyntheticPairOptions): ModelPair {
  const logits = syntheticLogits(options);
  const cache = new Map<string, { target: Float64Array; draft: Float64Array }>();
  // Emptied when full: at V = 4096 a long run would otherwise keep every prefix's rows (64 KB each) for ever.
  const cachedRows = Math.max(1024, Math.floor(SYNTHETIC_CACHE_BYTES / (16 * logits.V)));
  const rowsFor = (prefix: readonly number[]) => {
    const cacheKey = prefix.join(',');
    let rows = cache.get(cacheKey);
    if (!rows) {
      if (cache.size >= cachedRows) cache.clear();
      rows = {
        target: logitsToProbs(logits.target(prefix), { temperature: options.temperature }),
        draft: logitsToProbs(logits.draft(prefix), { temperature: options.temperature }),
      };
      cache.set(cacheKey, rows);
    }
    return rows;
  };
  return { V: logits.V, target: (prefix) => rowsFor(prefix).target, draft: (prefix) => rowsFor(prefix).draft };
}
