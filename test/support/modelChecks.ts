/**
 * Equivalence checks for a loaded model, shared by the Node suite (wasm EP) and the Chromium page (WebGPU
 * EP): each returns the largest absolute logit difference it found.
 */
import type { KvCache } from '../../src/models/kvCache';
import type { LoadedModel } from '../../src/models/loader';

/** The largest absolute difference between two equally long lists of numbers. */
export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`compared ${a.length} values with ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}

/** Logits at every position of `tokens`, from one prefill with no cache. */
async function prefill(model: LoadedModel, tokens: number[]): Promise<Float32Array> {
  const { logits, cache } = await model.session.forward(tokens, 1, tokens.length, model.session.emptyCache(1));
  cache.dispose();
  return logits;
}

/**
 * How far a model's logits may sit from its manifest's golden (torch) logits. Float32: 1e-4. The int8 target:
 * torch and onnxruntime compute LayerNorm, softmax and GELU to different last bits, and an activation that sits
 * at a rounding half-way point is then quantized one step apart, which moves the logits by up to 0.06 (2 of the
 * 5 golden prompts; the other 3 agree to 5e-7). A wrong int8 path is far outside it: WebGPU's was off by 11.
 */
export const goldenTolerance = (name: string): number => (name.includes('int8') ? 0.1 : 1e-4);

/** Against the manifest's torch logits at the last prompt position, over every golden prompt (or the first `promptCount`). */
export async function goldenError(model: LoadedModel, promptCount = Infinity): Promise<number> {
  const V = model.session.shape.vocab;
  let worst = 0;
  const prompts = model.manifest?.golden.prompts ?? [];
  if (prompts.length === 0) throw new Error('the manifest has no golden prompts');
  for (const golden of prompts.slice(0, promptCount)) {
    const logits = await prefill(model, golden.input_ids);
    worst = Math.max(worst, maxAbsDifference(logits.subarray((golden.input_ids.length - 1) * V), golden.last_logits));
  }
  return worst;
}

/** A prefix in one run, then one token at a time through the cache, against one full prefill. */
export async function incrementalError(model: LoadedModel, tokens: number[], split = 5): Promise<number> {
  const V = model.session.shape.vocab;
  const full = await prefill(model, tokens);
  const first = await model.session.forward(tokens.slice(0, split), 1, split, model.session.emptyCache(1));
  let cache: KvCache = first.cache;
  let worst = maxAbsDifference(first.logits, full.subarray(0, split * V));
  for (let i = split; i < tokens.length; i++) {
    const step = await model.session.forward([tokens[i] as number], 1, 1, cache);
    cache.dispose();
    cache = step.cache;
    worst = Math.max(worst, maxAbsDifference(step.logits, full.subarray(i * V, (i + 1) * V)));
  }
  if (cache.length !== tokens.length)
    throw new Error(`the cache holds ${cache.length} positions after ${tokens.length} tokens`);
  cache.dispose();
  return worst;
}

/**
 * K drafts scored in one batched run from a broadcast cache, against K single prefills; then the chosen
 * row, trimmed to an accepted prefix, continued with a correction token, against recomputation.
 */
export async function batchedAndTrimmedError(
  model: LoadedModel,
  prompt: number[],
): Promise<{ batched: number; trimmed: number }> {
  const V = model.session.shape.vocab;
  const drafts = [
    [11, 12, 13, 14],
    [300, 301, 302, 303],
    [500, 17, 600, 9],
  ];
  const K = drafts.length;
  const start = await model.session.forward(prompt, 1, prompt.length, model.session.emptyCache(1));
  const broadcast = start.cache.broadcast(K);
  start.cache.dispose();
  const scored = await model.session.forward(drafts.flat(), K, 4, broadcast);
  broadcast.dispose();
  let batched = 0;
  for (let k = 0; k < K; k++) {
    const single = await prefill(model, [...prompt, ...(drafts[k] as number[])]);
    batched = Math.max(
      batched,
      maxAbsDifference(scored.logits.subarray(k * 4 * V, (k + 1) * 4 * V), single.subarray(prompt.length * V)),
    );
  }
  // The verifier chose draft 1 and accepted 2 of its tokens; the correction token is 77.
  const kept = scored.cache.selectRow(1, prompt.length + 2);
  scored.cache.dispose();
  const next = await model.session.forward([77], 1, 1, kept);
  kept.dispose();
  next.cache.dispose();
  const recomputed = await prefill(model, [...prompt, 300, 301, 77]);
  return { batched, trimmed: maxAbsDifference(next.logits, recomputed.subarray((prompt.length + 2) * V)) };
}

/** A token tree as src/core/tokenTree.ts lays it out: the fresh context chain, then one node per distinct draft prefix. */
interface HandTree {
  tokens: number[];
  /** Position id of each node: the cache length plus its depth. */
  positions: number[];
  /** nodes × nodes, 1 where the column is the row itself or one of its ancestors. */
  mask: Uint8Array;
  /** pathNode[k][j]: the node of row (k, j), j = 0..L (j = 0: the last fresh context token). */
  pathNode: number[][];
}

function handTree(fresh: readonly number[], drafts: readonly (readonly number[])[], pastLength: number): HandTree {
  const tokens: number[] = [];
  const positions: number[] = [];
  const parents: number[] = [];
  const add = (token: number, parent: number) => {
    tokens.push(token);
    parents.push(parent);
    positions.push(parent < 0 ? pastLength : (positions[parent] as number) + 1);
    return tokens.length - 1;
  };
  let last = -1;
  for (const token of fresh) last = add(token, last);
  const byPrefix = new Map<string, number>();
  const pathNode = drafts.map((draft) => {
    const path = [last];
    draft.forEach((token, j) => {
      const key = draft.slice(0, j + 1).join(',');
      let node = byPrefix.get(key);
      if (node === undefined) byPrefix.set(key, (node = add(token, path[j] as number)));
      path.push(node);
    });
    return path;
  });
  const n = tokens.length;
  const mask = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i; j >= 0; j = parents[j] as number) mask[i * n + j] = 1;
  return { tokens, positions, mask, pathNode };
}

/**
 * K = 3 drafts of L = 4 from a real completion (d1 shares two tokens with d0, d2 one) after a golden prompt
 * whose last two tokens are fresh (not yet in the cache); the verifier keeps d1 with 3 tokens accepted.
 */
function handTreeCase(model: LoadedModel) {
  const base = model.tokenizer.encode('{"sentiment": "positive", "confidence": 0.92}');
  return {
    prompt: model.manifest?.golden.prompts[0]?.input_ids ?? [],
    drafts: [base.slice(0, 4), [...base.slice(0, 2), ...base.slice(5, 7)], [...base.slice(0, 1), ...base.slice(7, 10)]],
    chosen: { draft: 1, accepted: 3, correction: base[10] as number },
    freshCount: 2,
  };
}

/**
 * A token tree (the fresh context tokens, then K drafts of L sharing prefixes) scored in one batch-1 run,
 * position ids by depth and the tree mask, against today's batched path (K rows × (fresh + L) after a
 * broadcast cache), node by node; then the cache cut with keepPositions to the prefix and one draft's
 * accepted path, continued with a correction token, against a fresh prefill of that sequence. Also
 * returns the largest |logit| seen, the scale the differences are measured against.
 */
export async function treeScoringError(
  model: LoadedModel,
): Promise<{ tree: number; kept: number; scale: number; nodes: number }> {
  const { prompt, drafts, chosen, freshCount } = handTreeCase(model);
  const V = model.session.shape.vocab;
  const K = drafts.length;
  const L = (drafts[0] as number[]).length;
  const pastLength = prompt.length - freshCount;
  const fresh = prompt.slice(pastLength);
  const start = await model.session.forward(prompt.slice(0, pastLength), 1, pastLength, model.session.emptyCache(1));

  const seq = freshCount + L;
  const broadcast = start.cache.broadcast(K);
  const batched = await model.session.forward(
    drafts.flatMap((draft) => [...fresh, ...draft]),
    K,
    seq,
    broadcast,
  );
  broadcast.dispose();
  batched.cache.dispose();

  const tree = handTree(fresh, drafts, pastLength);
  const n = tree.tokens.length;
  const scored = await model.session.forward(tree.tokens, 1, n, start.cache, {
    positionIds: tree.positions,
    treeMask: tree.mask,
  });
  start.cache.dispose();
  let worst = 0;
  let scale = 0;
  const row = (logits: Float32Array, index: number) => logits.subarray(index * V, (index + 1) * V);
  for (let k = 0; k < K; k++) {
    // Every node on draft k's path, the fresh chain included, against its batched row.
    for (let i = 0; i < seq; i++) {
      const node = i < freshCount ? i : (tree.pathNode[k]?.[i - freshCount + 1] as number);
      const expected = row(batched.logits, k * seq + i);
      worst = Math.max(worst, maxAbsDifference(row(scored.logits, node), expected));
      for (const value of expected) scale = Math.max(scale, Math.abs(value));
    }
  }

  const path = (tree.pathNode[chosen.draft] as number[]).slice(1, chosen.accepted + 1);
  const keptPositions = [
    ...Array.from({ length: pastLength + freshCount }, (_, i) => i),
    ...path.map((node) => pastLength + node),
  ];
  const kept = scored.cache.keepPositions(keptPositions);
  scored.cache.dispose();
  const next = await model.session.forward([chosen.correction], 1, 1, kept);
  kept.dispose();
  next.cache.dispose();
  const sequence = [...prompt, ...(drafts[chosen.draft] as number[]).slice(0, chosen.accepted), chosen.correction];
  const recomputed = await prefill(model, sequence);
  return { tree: worst, kept: maxAbsDifference(next.logits, row(recomputed, sequence.length - 1)), scale, nodes: n };
}
