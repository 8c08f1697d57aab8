/**
 * Equivalence checks for a loaded model, shared by the Node suite (wasm EP) and the Chromium page (WebGPU
 * EP): each returns the largest absolute logit difference it found.
 */
import type { KvCache } from '../../src/models/kvCache';
import type { LoadedModel } from '../../src/models/loader';

function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
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

/** Against the manifest's torch logits at the last prompt position, over every golden prompt. */
export async function goldenError(model: LoadedModel): Promise<number> {
  const V = model.session.shape.vocab;
  let worst = 0;
  for (const golden of model.manifest?.golden.prompts ?? []) {
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
  if (cache.length !== tokens.length) throw new Error(`the cache holds ${cache.length} positions after ${tokens.length} tokens`);
  cache.dispose();
  return worst;
}

/**
 * K drafts scored in one batched run from a broadcast cache, against K single prefills; then the chosen
 * row, trimmed to an accepted prefix, continued with a correction token, against recomputation.
 */
export async function batchedAndTrimmedError(model: LoadedModel, prompt: number[]): Promise<{ batched: number; trimmed: number }> {
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
    batched = Math.max(batched, maxAbsDifference(scored.logits.subarray(k * 4 * V, (k + 1) * 4 * V), single.subarray(prompt.length * V)));
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
