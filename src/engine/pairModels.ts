/**
 * What the speculative loop asks of a draft/target pair, step by step: the drafter's rows as it extends
 * K drafts, the target's K×(L+1) scores, and a commit that keeps the chosen draft's state. Two
 * implementations: real models with KV caches (ONNX), and prefix-keyed synthetic logits (tests, sim).
 */
import type * as ort from 'onnxruntime-web';
import type { LogitPair } from '../core/modelPair';
import type { KvCache } from '../models/kvCache';
import type { ModelSession } from '../models/session';

export interface ScoredRows {
  logits: Float32Array;
  /** The same K×(L+1) rows, contiguous in a GPU buffer (elements from `offset`), valid until `commit`. */
  onGpu: { buffer: GPUBuffer; offset: number } | null;
}

export interface PairModels {
  readonly V: number;
  /** Positions the models can attend to: prompt, output and one draft window must fit. */
  readonly contextLength: number;
  /** The drafter's row after `context`: position 0 of every draft. */
  draftFirst(context: readonly number[]): Promise<Float32Array>;
  /** K rows: each draft's next row after the token it just drew (`latest[k]`). */
  draftNext(latest: Int32Array): Promise<Float32Array>;
  /** K×(L+1) target rows, row (k, j) after context + d_k[0..j), in one batched forward. */
  score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows>;
  /** The target's row after `context` (autoregressive decoding, the speed baseline). */
  targetNext(context: readonly number[]): Promise<Float32Array>;
  /** Keeps draft `chosen` with its first `accepted` tokens as the new shared state. */
  commit(chosen: number, accepted: number): void;
  dispose(): void;
}

/** Real models: KV caches trimmed to the emitted prefix, broadcast to K rows for drafting and scoring. */
export class CachedPairModels implements PairModels {
  readonly V: number;
  readonly contextLength: number;
  /** Batch-1 caches over the first `length` tokens of the output so far. */
  private draftCache: KvCache;
  private targetCache: KvCache;
  /** Caches of the step in flight: the drafter's K rows and the target's K scored rows. */
  private draftRows: KvCache | null = null;
  private scoredRows: KvCache | null = null;
  /** The scored logits kept on the GPU for the verifier until the step commits. */
  private scoredLogits: ort.Tensor | null = null;
  private contextSize = 0;

  constructor(
    private readonly draft: ModelSession,
    private readonly target: ModelSession,
    contextLength: number,
    /** Keep the target's logits on the GPU for a WGSL verifier on the same device. */
    private readonly logitsInPlace = false,
  ) {
    this.V = target.shape.vocab;
    this.contextLength = contextLength;
    this.draftCache = draft.emptyCache(1);
    this.targetCache = target.emptyCache(1);
  }

  private static replace(old: KvCache | null, next: KvCache): KvCache {
    old?.dispose();
    return next;
  }

  private static uncached(context: readonly number[], cache: KvCache): number[] {
    if (cache.length >= context.length) throw new Error(`the cache covers ${cache.length} tokens of a context of ${context.length}: nothing to run`);
    return context.slice(cache.length);
  }

  async draftFirst(context: readonly number[]): Promise<Float32Array> {
    const fresh = CachedPairModels.uncached(context, this.draftCache);
    const { logits, cache } = await this.draft.forward(fresh, 1, fresh.length, this.draftCache);
    this.draftCache = CachedPairModels.replace(this.draftCache, cache);
    this.draftRows = CachedPairModels.replace(this.draftRows, this.draftCache.selectRow(0));
    this.contextSize = context.length;
    return logits.subarray((fresh.length - 1) * this.V);
  }

  async draftNext(latest: Int32Array): Promise<Float32Array> {
    const rows = this.draftRows as KvCache;
    const past = rows.batch === latest.length ? rows : rows.broadcast(latest.length);
    const { logits, cache } = await this.draft.forward(latest, latest.length, 1, past);
    if (past !== rows) past.dispose();
    this.draftRows = CachedPairModels.replace(this.draftRows, cache);
    return logits;
  }

  async score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    const fresh = CachedPairModels.uncached(context, this.targetCache);
    const seq = fresh.length + L;
    const ids = new Int32Array(K * seq);
    for (let k = 0; k < K; k++) {
      ids.set(fresh, k * seq);
      ids.set(drafts.subarray(k * L, (k + 1) * L), k * seq + fresh.length);
    }
    const past = this.targetCache.broadcast(K);
    // In place only when the K blocks of L + 1 rows are contiguous: one fresh token per row.
    const inPlace = this.logitsInPlace && fresh.length === 1;
    const { logits, gpuLogits, cache } = await this.target.forward(ids, K, seq, past, { keepLogitsOnGpu: inPlace });
    past.dispose();
    this.scoredRows = CachedPairModels.replace(this.scoredRows, cache);
    this.scoredLogits?.dispose();
    this.scoredLogits = gpuLogits;
    // Row (k, j) is the position of the last context token plus j.
    const rows = new Float32Array(K * (L + 1) * this.V);
    for (let k = 0; k < K; k++) {
      const from = (k * seq + fresh.length - 1) * this.V;
      rows.set(logits.subarray(from, from + (L + 1) * this.V), k * (L + 1) * this.V);
    }
    return { logits: rows, onGpu: gpuLogits ? { buffer: gpuLogits.gpuBuffer as GPUBuffer, offset: 0 } : null };
  }

  async targetNext(context: readonly number[]): Promise<Float32Array> {
    const fresh = CachedPairModels.uncached(context, this.targetCache);
    const { logits, cache } = await this.target.forward(fresh, 1, fresh.length, this.targetCache);
    this.targetCache = CachedPairModels.replace(this.targetCache, cache);
    return logits.subarray((fresh.length - 1) * this.V);
  }

  commit(chosen: number, accepted: number): void {
    this.scoredLogits?.dispose();
    this.scoredLogits = null;
    // The emitted tokens are the context, d_chosen[0..accepted) and a final token that no cache holds yet.
    const keep = this.contextSize + accepted;
    if (this.scoredRows) {
      this.targetCache = CachedPairModels.replace(this.targetCache, this.scoredRows.selectRow(chosen, keep));
      this.scoredRows.dispose();
      this.scoredRows = null;
    }
    if (this.draftRows) {
      const row = this.draftRows.batch === 1 ? 0 : chosen;
      this.draftCache = CachedPairModels.replace(this.draftCache, this.draftRows.selectRow(row, Math.min(keep, this.draftRows.length)));
      this.draftRows.dispose();
      this.draftRows = null;
    }
  }

  dispose(): void {
    for (const cache of [this.draftCache, this.targetCache, this.draftRows, this.scoredRows]) cache?.dispose();
    this.scoredLogits?.dispose();
  }
}

/** Synthetic logits keyed by prefix: no caches, the same answers for any call order. */
export class PrefixPairModels implements PairModels {
  readonly V: number;
  readonly contextLength = Number.POSITIVE_INFINITY;
  private drafting: number[][] = [];

  constructor(private readonly logits: LogitPair) {
    this.V = logits.V;
  }

  draftFirst(context: readonly number[]): Promise<Float32Array> {
    this.drafting = [[...context]];
    return Promise.resolve(Float32Array.from(this.logits.draft(context)));
  }

  draftNext(latest: Int32Array): Promise<Float32Array> {
    const base = this.drafting;
    this.drafting = Array.from(latest, (token, k) => [...(base[base.length === 1 ? 0 : k] as number[]), token]);
    const rows = new Float32Array(latest.length * this.V);
    this.drafting.forEach((prefix, k) => rows.set(this.logits.draft(prefix), k * this.V));
    return Promise.resolve(rows);
  }

  score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    const rows = new Float32Array(K * (L + 1) * this.V);
    for (let k = 0; k < K; k++) {
      for (let j = 0; j <= L; j++) rows.set(this.logits.target([...context, ...drafts.subarray(k * L, k * L + j)]), (k * (L + 1) + j) * this.V);
    }
    return Promise.resolve({ logits: rows, onGpu: null });
  }

  targetNext(context: readonly number[]): Promise<Float32Array> {
    return Promise.resolve(Float32Array.from(this.logits.target(context)));
  }

  commit(): void {
    this.drafting = [];
  }

  dispose(): void {
    this.drafting = [];
  }
}
