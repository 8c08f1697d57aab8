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
  /**
   * Drafting ahead (one draft): a fork of the drafter's state as commit(0, L) would leave it, after the step's
   * drafts and before its commit; null where this pair cannot fork (a draft head reads the target's features).
   */
  forkDraft?(): DraftFork | null;
  /** Takes a fork's state as the drafter's, after the commit of the block it assumed (accepted whole). */
  adoptDraft?(fork: DraftFork): void;
  dispose(): void;
}

/** What drafting reads of a pair: the drafter's rows, and the cache-gathering time its calls spent. */
export type Drafter = Pick<PairModels, 'V' | 'draftFirst' | 'draftNext' | 'takeCacheMs'>;

/**
 * A copy of the drafter's state as the step's commit would leave it were its block (K = 1) accepted whole, to
 * draft the next block while the target verifies this one (src/engine/draftAhead.ts).
 */
export interface DraftFork extends Drafter {
  /** The drafter's row after `context` (its state and what follows), leaving the state as it was. */
  peek(context: readonly number[]): Promise<Float32Array>;
  dispose(): void;
}

/**
 * The target's half of a pair: scoring the drafts, the baseline's next row, and its caches. CachedTarget runs it
 * on this thread; src/engine/targetThread.ts runs the same class on another, so that drafting can go on meanwhile.
 */
export interface TargetHalf {
  readonly V: number;
  readonly scoring: ScoringPlan;
  /** K×(L+1) target rows, row (k, j) after context + d_k[0..j), in one forward (tree or batched). */
  score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows>;
  targetNext(context: readonly number[]): Promise<Float32Array>;
  /** Keeps the scored row of draft `chosen` with its first `accepted` tokens. */
  commit(chosen: number, accepted: number): void;
  takeCacheMs(): number;
  dispose(): void;
}

/** Milliseconds of KV-cache gathers, counted apart for the step's kv phase. */
class GatherClock {
  private ms = 0;

  gathered(gather: () => KvCache): KvCache {
    const mark = performance.now();
    const cache = gather();
    this.ms += performance.now() - mark;
    return cache;
  }

  /** Row `row` of `rows`, first `length` positions; `rows` itself when that is all of it (no copy), else `rows` is disposed. */
  kept(rows: KvCache, row: number, length: number): KvCache {
    if (rows.batch === 1 && length === rows.length) return rows;
    const kept = this.gathered(() => rows.selectRow(row, length));
    rows.dispose();
    return kept;
  }

  take(): number {
    const ms = this.ms;
    this.ms = 0;
    return ms;
  }
}

function replaced(old: KvCache | null, next: KvCache): KvCache {
  old?.dispose();
  return next;
}

function uncached(context: readonly number[], cache: KvCache): number[] {
  if (cache.length >= context.length)
    throw new Error(`the cache covers ${cache.length} tokens of a context of ${context.length}: nothing to run`);
  return context.slice(cache.length);
}

/** The draft model's half: a batch-1 cache over the output so far, and the K rows of the step in flight. */
class CachedDraft implements DraftFork {
  readonly V: number;
  private readonly clock = new GatherClock();
  /** The drafter's K rows of the step in flight. */
  private rows: KvCache | null = null;
  private contextSize = 0;

  constructor(
    private readonly session: ModelSession,
    private cache: KvCache,
  ) {
    this.V = session.shape.vocab;
  }

  async draftFirst(context: readonly number[]): Promise<Float32Array> {
    const fresh = uncached(context, this.cache);
    const { logits, cache } = await this.session.forward(fresh, 1, fresh.length, this.cache);
    this.cache = replaced(this.cache, cache);
    this.rows = replaced(
      this.rows,
      this.clock.gathered(() => this.cache.selectRow(0)),
    );
    this.contextSize = context.length;
    return logits.subarray((fresh.length - 1) * this.V);
  }

  async draftNext(latest: Int32Array): Promise<Float32Array> {
    const rows = this.rows as KvCache;
    const past = rows.batch === latest.length ? rows : this.clock.gathered(() => rows.broadcast(latest.length));
    const { logits, cache } = await this.session.forward(latest, latest.length, 1, past);
    if (past !== rows) past.dispose();
    this.rows = replaced(this.rows, cache);
    return logits;
  }

  async peek(context: readonly number[]): Promise<Float32Array> {
    const fresh = uncached(context, this.cache);
    const { logits, cache } = await this.session.forward(fresh, 1, fresh.length, this.cache);
    cache.dispose();
    return logits.subarray((fresh.length - 1) * this.V);
  }

  /** The step's context size (a step of free drafts never calls draftFirst: scoring says it). */
  noteContext(size: number): void {
    this.contextSize = size;
  }

  /** Keeps draft `chosen` with its first `accepted` tokens (those the rows hold). */
  commit(chosen: number, accepted: number): void {
    if (!this.rows) return;
    const rows = this.rows;
    const keep = Math.min(this.contextSize + accepted, rows.length);
    this.cache = replaced(this.cache, this.clock.kept(rows, rows.batch === 1 ? 0 : chosen, keep));
    this.rows = null;
  }

  /** A fork holding what commit(0, L) would keep, for a step of one draft (a copy: the caller times it as kv); this state is left as it is. */
  forkAccepted(): CachedDraft {
    const base = this.rows ?? this.cache;
    if (base.batch !== 1) throw new RangeError(`drafting ahead needs one draft; the rows hold ${base.batch}`);
    return new CachedDraft(this.session, base.selectRow(0));
  }

  /** Takes `fork`'s state as this one's (the block it assumed was accepted whole); `fork` is spent. */
  adopt(fork: CachedDraft): void {
    this.dispose();
    this.cache = fork.cache;
    this.rows = fork.rows;
    this.contextSize = fork.contextSize;
    // The fork holds nothing of it now: disposing the fork later cannot free what this state took.
    fork.rows = null;
    fork.cache = this.session.emptyCache(1);
  }

  takeCacheMs(): number {
    return this.clock.take();
  }

  dispose(): void {
    this.cache.dispose();
    this.rows?.dispose();
    this.rows = null;
  }
}

/**
 * The target's half on this thread: a batch-1 cache over the output so far, the step's scored rows until
 * commit keeps the emitted path (on the tree path, through the tree), and in head mode the features.
 */
export class CachedTarget implements TargetHalf {
  readonly V: number;
  readonly scoring: ScoringPlan;
  private readonly clock = new GatherClock();
  private cache: KvCache;
  private scoredRows: KvCache | null = null;
  /** The scored K×(L+1) rows kept on the GPU for the verifier until the step commits. */
  private scoredLogits: { buffer: GPUBuffer; release: () => void } | null = null;
  /** The tree the step in flight scored, with the cache length before it and its fresh tokens. */
  private scoredTree: { tree: PrefixTree; pastLength: number; freshCount: number } | null = null;
  private contextSize = 0;
  private readonly logitsInPlace: boolean;
  private readonly features: { width: number } | null;
  /** Head mode: the target's feature at the last position its cache holds (f_{n−1} for a verified prefix of n). */
  lastFeature: Float32Array | null = null;
  /** Head mode: the scored forward's features and where verifier row (k, j) sits in them, until `commit`. */
  private scoredFeatures: { features: Float32Array; at: (row: number) => number; L: number } | null = null;

  constructor(
    private readonly session: ModelSession,
    options: Pick<CachedPairOptions, 'logitsInPlace' | 'treeScoring'> & { featureWidth?: number } = {},
  ) {
    this.V = session.shape.vocab;
    this.logitsInPlace = options.logitsInPlace ?? false;
    this.scoring = scoringPlan(session, options.treeScoring);
    this.features = options.featureWidth === undefined ? null : { width: options.featureWidth };
    this.cache = session.emptyCache(1);
  }

  private featureRow(features: Float32Array, row: number): Float32Array {
    const width = (this.features as { width: number }).width;
    return features.slice(row * width, (row + 1) * width);
  }

  /** Head mode: the cache filled to `held` tokens of `context`, keeping the feature at its last position. */
  async prefill(context: readonly number[], held: number): Promise<void> {
    if (this.cache.length < held) {
      const fresh = context.slice(this.cache.length, held);
      const { features, cache } = await this.session.forward(fresh, 1, fresh.length, this.cache, { features: true });
      this.cache = replaced(this.cache, cache);
      this.lastFeature = this.featureRow(features as Float32Array, fresh.length - 1);
    }
    if (this.cache.length !== held || !this.lastFeature)
      throw new Error(`the target's cache holds ${this.cache.length} of ${held} tokens before the head's first depth`);
  }

  async score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    const fresh = uncached(context, this.cache);
    this.releaseScoredLogits();
    this.contextSize = context.length;
    if (this.scoring.path === 'tree') return this.scoreTree(fresh, drafts, K, L);
    const seq = fresh.length + L;
    const ids = new Int32Array(K * seq);
    for (let k = 0; k < K; k++) {
      ids.set(fresh, k * seq);
      ids.set(drafts.subarray(k * L, (k + 1) * L), k * seq + fresh.length);
    }
    // One draft reads the cache as it is: a copy of its single row would be the same tensors.
    const past = K === 1 ? this.cache : this.clock.gathered(() => this.cache.broadcast(K));
    // In place only when the K blocks of L + 1 rows are contiguous: one fresh token per row.
    const inPlace = this.logitsInPlace && fresh.length === 1;
    const { logits, gpuLogits, cache, features } = await this.session.forward(ids, K, seq, past, {
      keepLogitsOnGpu: inPlace,
      features: this.features !== null,
    });
    if (past !== this.cache) past.dispose();
    if (features)
      this.scoredFeatures = {
        features,
        at: (row) => Math.floor(row / (L + 1)) * seq + fresh.length - 1 + (row % (L + 1)),
        L,
      };
    this.scoredRows = replaced(this.scoredRows, cache);
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
    const pastLength = this.cache.length;
    const input = treeInput(tree, fresh, pastLength);
    const { logits, gpuLogits, cache, features } = await this.session.forward(
      input.inputIds,
      1,
      input.seq,
      this.cache,
      {
        keepLogitsOnGpu: this.logitsInPlace,
        positionIds: input.positionIds,
        treeMask: input.mask,
        features: this.features !== null,
      },
    );
    this.scoredRows = replaced(this.scoredRows, cache);
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
    const device = this.session.gpuDevice as GPUDevice;
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
    const fresh = uncached(context, this.cache);
    const { logits, cache } = await this.session.forward(fresh, 1, fresh.length, this.cache);
    this.cache = replaced(this.cache, cache);
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
    if (!this.scoredRows) return;
    const tree = this.scoredTree;
    const scored = this.scoredRows;
    const positions = tree ? keptPositions(tree.tree, tree.pastLength, tree.freshCount, chosen, accepted) : null;
    // A kept path that is a prefix of the scored sequence (always so for one draft) needs no gather by position.
    if (positions && !positions.every((position, i) => position === i)) {
      this.cache = replaced(
        this.cache,
        this.clock.gathered(() => scored.keepPositions(positions)),
      );
      scored.dispose();
    } else {
      this.cache = replaced(this.cache, this.clock.kept(scored, tree ? 0 : chosen, keep));
    }
    this.scoredRows = null;
    this.scoredTree = null;
  }

  takeCacheMs(): number {
    return this.clock.take();
  }

  dispose(): void {
    for (const cache of [this.cache, this.scoredRows]) cache?.dispose();
    this.releaseScoredLogits();
  }
}

/**
 * Real models: KV caches trimmed to the emitted prefix, broadcast to K rows for drafting (and for scoring on
 * the batched path); on the tree path the target's cache keeps the emitted path through the tree. The target's
 * half runs here (a model session) or on another thread (a TargetHalf from src/engine/targetThread.ts).
 */
export class CachedPairModels implements PairModels {
  readonly V: number;
  readonly contextLength: number;
  readonly scoring: ScoringPlan;
  private readonly drafting: CachedDraft;
  private readonly target: TargetHalf;
  private readonly head: DraftHead | null;
  /** Head mode: the head's predicted features, one per draft row, for the next depth. */
  private headFeatures: Float32Array = new Float32Array(0);

  constructor(
    draft: ModelSession,
    target: ModelSession | TargetHalf,
    contextLength: number,
    options: CachedPairOptions = {},
  ) {
    this.head = options.head ?? null;
    if ('score' in target) {
      if (this.head)
        throw new RangeError("the draft head reads the target's features, so its target runs on this thread");
      this.target = target;
    } else {
      if (this.head) {
        const reason = headUnavailable(target, this.head);
        if (reason !== null) throw new RangeError(reason);
      }
      this.target = new CachedTarget(target, {
        ...options,
        ...(this.head ? { featureWidth: this.head.width } : {}),
      });
    }
    this.V = this.target.V;
    this.scoring = this.target.scoring;
    this.contextLength = contextLength;
    this.drafting = new CachedDraft(draft, draft.emptyCache(1));
  }

  takeCacheMs(): number {
    return this.drafting.takeCacheMs() + this.target.takeCacheMs();
  }

  draftFirst(context: readonly number[]): Promise<Float32Array> {
    return this.head ? this.headFirst(this.head, context) : this.drafting.draftFirst(context);
  }

  draftNext(latest: Int32Array): Promise<Float32Array> {
    return this.head ? this.headNext(this.head, latest) : this.drafting.draftNext(latest);
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
    const target = this.target as CachedTarget;
    await target.prefill(context, held);
    const { logits, features } = await head.run(target.lastFeature as Float32Array, [context[held] as number], 1);
    this.headFeatures = features;
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

  score(context: readonly number[], drafts: Int32Array, K: number, L: number): Promise<ScoredRows> {
    // A step whose drafts all came from free sources never called the drafter: the context is known here too.
    this.drafting.noteContext(context.length);
    return this.target.score(context, drafts, K, L);
  }

  targetNext(context: readonly number[]): Promise<Float32Array> {
    return this.target.targetNext(context);
  }

  commit(chosen: number, accepted: number): void {
    this.target.commit(chosen, accepted);
    this.drafting.commit(chosen, accepted);
  }

  forkDraft(): DraftFork | null {
    return this.head ? null : this.drafting.forkAccepted();
  }

  adoptDraft(fork: DraftFork): void {
    if (!(fork instanceof CachedDraft)) throw new TypeError('a draft fork of another pair');
    this.drafting.adopt(fork);
  }

  dispose(): void {
    this.drafting.dispose();
    this.target.dispose();
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
