/**
 * What the speculative loop asks of a draft/target pair, step by step: the drafter's rows as it extends
 * K drafts, the target's K×(L+1) scores, and a commit that keeps the chosen draft's state. Two
 * implementations: real models with KV caches (ONNX), and prefix-keyed synthetic logits (tests, sim).
 * The target scores the drafts' prefix tree in one pass where it can (src/core/tokenTree.ts), and K
 * batched rows where it cannot; every step says which ran and why.
 */
import type * as ort from 'onnxruntime-web';
import { headChainLogits, type SyntheticHead } from '../core/draftHead';
import type { LogitPair } from '../core/modelPair';
import { keptPositions, tokenTree, treeInput, verifierRows, type PrefixTree } from '../core/tokenTree';
import type { ScoringPlan, TargetScoring } from '../contract/stepRecord';
import { USAGE } from '../gpu/kernel';
import type { KvCache } from '../models/kvCache';
import type { DraftHead } from '../models/headSession';
import type { ModelSession } from '../models/session';

export interface ScoredRows {
  logits: Float32Array;
  /** The same K×(L+1) rows, contiguous in a GPU buffer (elements from `offset`), valid until `commit`. */
  onGpu: { buffer: GPUBuffer; offset: number } | null;
  scoring: TargetScoring;
}

export const TREE_SCORING_OFF = 'tree scoring was turned off for this run';

/** Tree scoring needs the target's tree_attention_mask input (our bundled exports have it; Hub exports do not). */
export function scoringPlan(target: Pick<ModelSession, 'shape' | 'name'>, treeScoring = true): ScoringPlan {
  if (!target.shape.hasTreeMask)
    return { path: 'batched', reason: `the target (${target.name}) has no tree_attention_mask input` };
  return treeScoring ? { path: 'tree', reason: null } : { path: 'batched', reason: TREE_SCORING_OFF };
}

export interface CachedPairOptions {
  /** Keep the target's logits on the GPU for a WGSL verifier on the same device. */
  logitsInPlace?: boolean;
  /** Score the drafts' prefix tree in one pass where the target allows it (the default); false forces the batched path. */
  treeScoring?: boolean;
  /**
   * Draft from this head instead of the draft model (drafters `head`, `head+grammar`): the target must export
   * `features`, which its prefill and verification forwards then keep (docs/models.md, "The draft head").
   */
  head?: DraftHead;
}

/** Why a pair cannot draft from a head, or null when it can. */
export function headUnavailable(
  target: Pick<ModelSession, 'hasFeatures' | 'name'>,
  head: DraftHead | null,
  headError: string | null = null,
): string | null {
  if (!target.hasFeatures)
    return `the target (${target.name}) has no features output, so no draft head can read its hidden state`;
  if (!head) return headError ?? 'no draft head is loaded beside this pair';
  return null;
}

export interface PairModels {
  readonly V: number;
  /** Positions the models can attend to: prompt, output and one draft window must fit. */
  readonly contextLength: number;
  /** The drafter's row after `context`: position 0 of every draft. */
  draftFirst(context: readonly number[]): Promise<Float32Array>;
  /** K rows: each draft's next row after the token it just drew (`latest[k]`). */
  draftNext(latest: Int32Array): Promise<Float32Array>;
  /** K×(L+1) target rows, row (k, j) after context + d_k[0..j), in one forward (tree or batched). */
  score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows>;
  /** The target's row after `context` (autoregressive decoding, the speed baseline). */
  targetNext(context: readonly number[]): Promise<Float32Array>;
  /** Keeps draft `chosen` with its first `accepted` tokens as the new shared state. */
  commit(chosen: number, accepted: number): void;
  /** Milliseconds spent gathering KV caches since the last call: the step counts them as kv, not draft or target. */
  takeCacheMs(): number;
  dispose(): void;
}

/**
 * Real models: KV caches trimmed to the emitted prefix, broadcast to K rows for drafting (and for scoring on
 * the batched path); on the tree path the target's cache keeps the emitted path through the tree.
 */
export class CachedPairModels implements PairModels {
  readonly V: number;
  readonly contextLength: number;
  readonly scoring: ScoringPlan;
  /** Batch-1 caches over the first `length` tokens of the output so far. */
  private draftCache: KvCache;
  private targetCache: KvCache;
  /** Caches of the step in flight: the drafter's K rows and the target's K scored rows. */
  private draftRows: KvCache | null = null;
  private scoredRows: KvCache | null = null;
  /** The scored K×(L+1) rows kept on the GPU for the verifier until the step commits. */
  private scoredLogits: { buffer: GPUBuffer; release: () => void } | null = null;
  /** The tree the step in flight scored, with the cache length before it and its fresh tokens. */
  private scoredTree: { tree: PrefixTree; pastLength: number; freshCount: number } | null = null;
  private contextSize = 0;
  private readonly logitsInPlace: boolean;
  private cacheMs = 0;
  private readonly head: DraftHead | null;
  /** Head mode: the target's feature at the last position its cache holds (f_{n−1} for a verified prefix of n). */
  private lastFeature: Float32Array | null = null;
  /** Head mode: the head's predicted features, one per draft row, for the next depth. */
  private headFeatures: Float32Array = new Float32Array(0);
  /** Head mode: the scored forward's features and where verifier row (k, j) sits in them, until `commit`. */
  private scoredFeatures: { features: Float32Array; at: (row: number) => number; L: number } | null = null;

  constructor(
    private readonly draft: ModelSession,
    private readonly target: ModelSession,
    contextLength: number,
    options: CachedPairOptions = {},
  ) {
    this.V = target.shape.vocab;
    this.contextLength = contextLength;
    this.logitsInPlace = options.logitsInPlace ?? false;
    this.scoring = scoringPlan(target, options.treeScoring);
    this.head = options.head ?? null;
    if (this.head) {
      const reason = headUnavailable(target, this.head);
      if (reason !== null) throw new RangeError(reason);
    }
    this.draftCache = draft.emptyCache(1);
    this.targetCache = target.emptyCache(1);
  }

  private static replace(old: KvCache | null, next: KvCache): KvCache {
    old?.dispose();
    return next;
  }

  /** A cache gather, timed for the step's kv phase. */
  private gathered(gather: () => KvCache): KvCache {
    const mark = performance.now();
    const cache = gather();
    this.cacheMs += performance.now() - mark;
    return cache;
  }

  /** Row `row` of `rows`, first `length` positions; `rows` itself when that is all of it (no copy), else `rows` is disposed. */
  private kept(rows: KvCache, row: number, length: number): KvCache {
    if (rows.batch === 1 && length === rows.length) return rows;
    const kept = this.gathered(() => rows.selectRow(row, length));
    rows.dispose();
    return kept;
  }

  takeCacheMs(): number {
    const ms = this.cacheMs;
    this.cacheMs = 0;
    return ms;
  }

  private static uncached(context: readonly number[], cache: KvCache): number[] {
    if (cache.length >= context.length)
      throw new Error(`the cache covers ${cache.length} tokens of a context of ${context.length}: nothing to run`);
    return context.slice(cache.length);
  }

  async draftFirst(context: readonly number[]): Promise<Float32Array> {
    if (this.head) return this.headFirst(this.head, context);
    const fresh = CachedPairModels.uncached(context, this.draftCache);
    const { logits, cache } = await this.draft.forward(fresh, 1, fresh.length, this.draftCache);
    this.draftCache = CachedPairModels.replace(this.draftCache, cache);
    this.draftRows = CachedPairModels.replace(
      this.draftRows,
      this.gathered(() => this.draftCache.selectRow(0)),
    );
    this.contextSize = context.length;
    return logits.subarray((fresh.length - 1) * this.V);
  }

  async draftNext(latest: Int32Array): Promise<Float32Array> {
    if (this.head) return this.headNext(this.head, latest);
    const rows = this.draftRows as KvCache;
    const past = rows.batch === latest.length ? rows : this.gathered(() => rows.broadcast(latest.length));
    const { logits, cache } = await this.draft.forward(latest, latest.length, 1, past);
    if (past !== rows) past.dispose();
    this.draftRows = CachedPairModels.replace(this.draftRows, cache);
    return logits;
  }

  /** The head's width-long row `row` of `features`. */
  private featureRow(features: Float32Array, row: number): Float32Array {
    const width = (this.head as DraftHead).width;
    return features.slice(row * width, (row + 1) * width);
  }

  /**
   * Depth 1 of the head: head(f_{n−1}, x_n). f_{n−1} is the target's feature at the last position its cache
   * holds (the previous step's verification computed it); before the first step, the prompt but its last
   * token is prefilled here, and its last feature kept.
   */
  private async headFirst(head: DraftHead, context: readonly number[]): Promise<Float32Array> {
    const held = context.length - 1;
    if (held < 1)
      throw new RangeError(
        `the draft head needs a prompt of at least 2 tokens (it reads the target's feature at the second-to-last); got ${context.length}`,
      );
    if (this.targetCache.length < held) {
      const fresh = context.slice(this.targetCache.length, held);
      const { features, cache } = await this.target.forward(fresh, 1, fresh.length, this.targetCache, {
        features: true,
      });
      this.targetCache = CachedPairModels.replace(this.targetCache, cache);
      this.lastFeature = this.featureRow(features as Float32Array, fresh.length - 1);
    }
    if (this.targetCache.length !== held || !this.lastFeature)
      throw new Error(
        `the target's cache holds ${this.targetCache.length} of ${held} tokens before the head's first depth`,
      );
    const { logits, features } = await head.run(this.lastFeature, [context[held] as number], 1);
    this.headFeatures = features;
    this.contextSize = context.length;
    return logits;
  }

  /** Depth j > 1: each draft's row reads the head's own feature from the depth before and the token it drew. */
  private async headNext(head: DraftHead, latest: Int32Array): Promise<Float32Array> {
    const batch = latest.length;
    let features = this.headFeatures;
    if (features.length !== batch * head.width) {
      features = new Float32Array(batch * head.width);
      for (let k = 0; k < batch; k++) features.set(this.headFeatures.subarray(0, head.width), k * head.width);
    }
    const out = await head.run(features, latest, batch);
    this.headFeatures = out.features;
    return out.logits;
  }

  async score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    const fresh = CachedPairModels.uncached(context, this.targetCache);
    this.releaseScoredLogits();
    // A step whose drafts all came from free sources never called the drafter: the context is known here too.
    this.contextSize = context.length;
    if (this.scoring.path === 'tree') return this.scoreTree(fresh, drafts, K, L);
    const seq = fresh.length + L;
    const ids = new Int32Array(K * seq);
    for (let k = 0; k < K; k++) {
      ids.set(fresh, k * seq);
      ids.set(drafts.subarray(k * L, (k + 1) * L), k * seq + fresh.length);
    }
    // One draft reads the cache as it is: a copy of its single row would be the same tensors.
    const past = K === 1 ? this.targetCache : this.gathered(() => this.targetCache.broadcast(K));
    // In place only when the K blocks of L + 1 rows are contiguous: one fresh token per row.
    const inPlace = this.logitsInPlace && fresh.length === 1;
    const { logits, gpuLogits, cache, features } = await this.target.forward(ids, K, seq, past, {
      keepLogitsOnGpu: inPlace,
      features: this.head !== null,
    });
    if (past !== this.targetCache) past.dispose();
    if (features)
      this.scoredFeatures = {
        features,
        at: (row) => Math.floor(row / (L + 1)) * seq + fresh.length - 1 + (row % (L + 1)),
        L,
      };
    this.scoredRows = CachedPairModels.replace(this.scoredRows, cache);
    this.scoredTree = null;
    if (gpuLogits) this.scoredLogits = { buffer: gpuLogits.gpuBuffer as GPUBuffer, release: () => gpuLogits.dispose() };
    // Row (k, j) is the position of the last context token plus j.
    const rows = new Float32Array(K * (L + 1) * this.V);
    for (let k = 0; k < K; k++) {
      const from = (k * seq + fresh.length - 1) * this.V;
      rows.set(logits.subarray(from, from + (L + 1) * this.V), k * (L + 1) * this.V);
    }
    const scoring = {
      path: 'batched' as const,
      positions: K * seq,
      batchedPositions: K * seq,
      reason: this.scoring.reason,
    };
    return { logits: rows, onGpu: this.scoredLogits ? { buffer: this.scoredLogits.buffer, offset: 0 } : null, scoring };
  }

  /** One batch-1 forward over the fresh tokens and each distinct draft prefix, expanded to the verifier's rows. */
  private async scoreTree(fresh: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    const { V } = this;
    const tree = tokenTree(drafts, K, L);
    const pastLength = this.targetCache.length;
    const input = treeInput(tree, fresh, pastLength);
    const { logits, gpuLogits, cache, features } = await this.target.forward(
      input.inputIds,
      1,
      input.seq,
      this.targetCache,
      {
        keepLogitsOnGpu: this.logitsInPlace,
        positionIds: input.positionIds,
        treeMask: input.mask,
        features: this.head !== null,
      },
    );
    this.scoredRows = CachedPairModels.replace(this.scoredRows, cache);
    this.scoredTree = { tree, pastLength, freshCount: fresh.length };
    const sequenceRows = verifierRows(tree, fresh.length, L);
    if (features) this.scoredFeatures = { features, at: (row) => sequenceRows[row] as number, L };
    const rows = new Float32Array(K * (L + 1) * V);
    sequenceRows.forEach((at, row) => rows.set(logits.subarray(at * V, (at + 1) * V), row * V));
    if (gpuLogits) this.scoredLogits = this.expandOnGpu(gpuLogits, sequenceRows);
    const scoring = {
      path: 'tree' as const,
      positions: input.seq,
      batchedPositions: K * (fresh.length + L),
      reason: null,
    };
    return { logits: rows, onGpu: this.scoredLogits ? { buffer: this.scoredLogits.buffer, offset: 0 } : null, scoring };
  }

  /** The node rows copied into K×(L+1) order on onnxruntime's device, so that the verifier still reads them in place. */
  private expandOnGpu(nodeLogits: ort.Tensor, sequenceRows: Int32Array): { buffer: GPUBuffer; release: () => void } {
    const device = this.target.gpuDevice as GPUDevice;
    const rowBytes = this.V * 4;
    const buffer = device.createBuffer({
      label: 'tree-rows',
      size: sequenceRows.length * rowBytes,
      usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST,
    });
    const encoder = device.createCommandEncoder({ label: 'tree-rows' });
    sequenceRows.forEach((at, row) =>
      encoder.copyBufferToBuffer(nodeLogits.gpuBuffer as GPUBuffer, at * rowBytes, buffer, row * rowBytes, rowBytes),
    );
    device.queue.submit([encoder.finish()]);
    // The copies were submitted first: onnxruntime may reuse the node buffer only for later work.
    nodeLogits.dispose();
    return { buffer, release: () => buffer.destroy() };
  }

  private releaseScoredLogits(): void {
    this.scoredLogits?.release();
    this.scoredLogits = null;
  }

  async targetNext(context: readonly number[]): Promise<Float32Array> {
    const fresh = CachedPairModels.uncached(context, this.targetCache);
    const { logits, cache } = await this.target.forward(fresh, 1, fresh.length, this.targetCache);
    this.targetCache = CachedPairModels.replace(this.targetCache, cache);
    return logits.subarray((fresh.length - 1) * this.V);
  }

  commit(chosen: number, accepted: number): void {
    this.releaseScoredLogits();
    // The emitted tokens are the context, d_chosen[0..accepted) and a final token that no cache holds yet.
    const keep = this.contextSize + accepted;
    // Head mode: the feature at row (chosen, accepted), whose logits gave the final token, is f_{n−1} for the next step.
    if (this.scoredFeatures) {
      const { features, at, L } = this.scoredFeatures;
      this.lastFeature = this.featureRow(features, at(chosen * (L + 1) + accepted));
      this.scoredFeatures = null;
    }
    if (this.scoredRows) {
      const tree = this.scoredTree;
      const scored = this.scoredRows;
      const positions = tree ? keptPositions(tree.tree, tree.pastLength, tree.freshCount, chosen, accepted) : null;
      // A kept path that is a prefix of the scored sequence (always so for one draft) needs no gather by position.
      if (positions && !positions.every((position, i) => position === i)) {
        this.targetCache = CachedPairModels.replace(
          this.targetCache,
          this.gathered(() => scored.keepPositions(positions)),
        );
        scored.dispose();
      } else {
        this.targetCache = CachedPairModels.replace(this.targetCache, this.kept(scored, tree ? 0 : chosen, keep));
      }
      this.scoredRows = null;
      this.scoredTree = null;
    }
    if (this.draftRows) {
      const rows = this.draftRows;
      this.draftCache = CachedPairModels.replace(
        this.draftCache,
        this.kept(rows, rows.batch === 1 ? 0 : chosen, Math.min(keep, rows.length)),
      );
      this.draftRows = null;
    }
  }

  dispose(): void {
    for (const cache of [this.draftCache, this.targetCache, this.draftRows, this.scoredRows]) cache?.dispose();
    this.releaseScoredLogits();
  }
}

/**
 * Synthetic logits keyed by prefix: no caches, the same answers for any call order. On the tree path the
 * target's row is computed once per distinct prefix (a "position" is one row computed); on the batched path
 * once per verifier row.
 */
export class PrefixPairModels implements PairModels {
  readonly V: number;
  readonly contextLength = Number.POSITIVE_INFINITY;
  readonly scoring: ScoringPlan;
  private drafting: number[][] = [];
  private context: readonly number[] = [];
  private readonly head: SyntheticHead | null;

  /** `options.head`: draft from this synthetic head (its chain starts afresh after each step's context) instead of `logits.draft`. */
  constructor(
    private readonly logits: LogitPair,
    options: { treeScoring?: boolean; head?: SyntheticHead } = {},
  ) {
    this.V = logits.V;
    this.scoring =
      options.treeScoring === false ? { path: 'batched', reason: TREE_SCORING_OFF } : { path: 'tree', reason: null };
    this.head = options.head ?? null;
  }

  private draftRow(prefix: readonly number[]): Float32Array {
    return this.head
      ? headChainLogits(this.head, this.context, prefix.slice(this.context.length))
      : Float32Array.from(this.logits.draft(prefix));
  }

  draftFirst(context: readonly number[]): Promise<Float32Array> {
    this.context = [...context];
    this.drafting = [[...context]];
    return Promise.resolve(this.draftRow(context));
  }

  draftNext(latest: Int32Array): Promise<Float32Array> {
    const base = this.drafting;
    this.drafting = Array.from(latest, (token, k) => [...(base[base.length === 1 ? 0 : k] as number[]), token]);
    const rows = new Float32Array(latest.length * this.V);
    this.drafting.forEach((prefix, k) => rows.set(this.draftRow(prefix), k * this.V));
    return Promise.resolve(rows);
  }

  score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    const { V } = this;
    const rows = new Float32Array(K * (L + 1) * V);
    const batchedPositions = K * (L + 1);
    if (this.scoring.path === 'batched') {
      for (let k = 0; k < K; k++) {
        for (let j = 0; j <= L; j++)
          rows.set(this.logits.target([...context, ...drafts.subarray(k * L, k * L + j)]), (k * (L + 1) + j) * V);
      }
      return Promise.resolve({
        logits: rows,
        onGpu: null,
        scoring: { path: 'batched', positions: batchedPositions, batchedPositions, reason: this.scoring.reason },
      });
    }
    const tree = tokenTree(drafts, K, L);
    // Sequence index 0 is the context, 1 + n the node n (as treeInput lays them out with one fresh token).
    const prefixes: number[][] = [[...context]];
    const nodeRows = [Float32Array.from(this.logits.target(context))];
    for (let n = 0; n < tree.size; n++) {
      const prefix = [...(prefixes[(tree.parents[n] as number) + 1] as number[]), tree.tokens[n] as number];
      prefixes.push(prefix);
      nodeRows.push(Float32Array.from(this.logits.target(prefix)));
    }
    verifierRows(tree, 1, L).forEach((at, row) => rows.set(nodeRows[at] as Float32Array, row * V));
    return Promise.resolve({
      logits: rows,
      onGpu: null,
      scoring: { path: 'tree', positions: nodeRows.length, batchedPositions, reason: null },
    });
  }

  targetNext(context: readonly number[]): Promise<Float32Array> {
    return Promise.resolve(Float32Array.from(this.logits.target(context)));
  }

  commit(): void {
    this.drafting = [];
  }

  takeCacheMs(): number {
    return 0;
  }

  dispose(): void {
    this.drafting = [];
  }
}
