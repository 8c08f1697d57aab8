/**
 * Logits to next-token probabilities, exactly as plain (non-speculative) sampling would use them, and the
 * inverse-CDF categorical draw. The order of operations is part of the contract the GPU `probs` kernel copies:
 *   1. the grammar mask removes tokens (xgrammar bitmask: token j allowed iff bit j&31 of word j>>5 is set);
 *      logits of -Infinity are removed too;
 *   2. temperature 0 is greedy: one-hot on the highest allowed logit, ties to the lowest id;
 *   3. logits are divided by the temperature;
 *   4. top-k keeps the k highest (ties to the lowest id);
 *   5. softmax with the maximum subtracted first;
 *   6. top-p keeps the smallest set, taken in descending probability (ties to the lowest id), whose mass
 *      reaches p, then renormalises.
 */

export interface SamplingParams {
  /** 0 means greedy. */
  temperature: number;
  /** Keep the k most likely tokens; 0 or absent disables it. */
  topK?: number;
  /** Keep the smallest nucleus with mass ≥ p; 1 or absent disables it. */
  topP?: number;
}

export function maskWordCount(vocabSize: number): number {
  return Math.ceil(vocabSize / 32);
}

export function isTokenAllowed(mask: Int32Array, token: number): boolean {
  return (((mask[token >> 5] as number) >>> (token & 31)) & 1) === 1;
}

/** A mask allowing exactly the given tokens, in xgrammar's layout. */
export function maskFromAllowed(vocabSize: number, allowed: Iterable<number>): Int32Array {
  const mask = new Int32Array(maskWordCount(vocabSize));
  for (const token of allowed) {
    if (!Number.isInteger(token) || token < 0 || token >= vocabSize) {
      throw new RangeError(`token ${token} is outside the vocabulary 0..${vocabSize - 1}`);
    }
    mask[token >> 5] = (mask[token >> 5] as number) | (1 << (token & 31));
  }
  return mask;
}

export function validateSamplingParams(params: SamplingParams): void {
  const { temperature, topK = 0, topP = 1 } = params;
  if (!(Number.isFinite(temperature) && temperature >= 0)) {
    throw new RangeError(`temperature must be a finite number ≥ 0, got ${temperature}`);
  }
  if (!(Number.isInteger(topK) && topK >= 0)) throw new RangeError(`topK must be an integer ≥ 0, got ${topK}`);
  if (!(topP > 0 && topP <= 1)) throw new RangeError(`topP must lie in (0, 1], got ${topP}`);
}

/** Token ids ordered by descending value, ties to the lowest id. */
function idsByDescendingValue(ids: number[], values: ArrayLike<number>): number[] {
  return ids.sort((a, b) => (values[b] as number) - (values[a] as number) || a - b);
}

export function logitsToProbs(logits: ArrayLike<number>, params: SamplingParams, mask?: Int32Array): Float64Array {
  validateSamplingParams(params);
  const vocabSize = logits.length;
  if (vocabSize === 0) throw new RangeError('logits row is empty');
  if (mask && mask.length !== maskWordCount(vocabSize)) {
    throw new RangeError(
      `mask has ${mask.length} int32 words, but a vocabulary of ${vocabSize} needs ${maskWordCount(vocabSize)}`,
    );
  }
  let candidates: number[] = [];
  for (let token = 0; token < vocabSize; token++) {
    const logit = logits[token] as number;
    if (Number.isNaN(logit) || logit === Infinity) throw new RangeError(`logit of token ${token} is ${logit}`);
    if (logit !== -Infinity && (!mask || isTokenAllowed(mask, token))) candidates.push(token);
  }
  if (candidates.length === 0) throw new RangeError('every token is masked out: the row has no allowed token');

  const probs = new Float64Array(vocabSize);
  if (params.temperature === 0) {
    let best = candidates[0] as number;
    for (const token of candidates) if ((logits[token] as number) > (logits[best] as number)) best = token;
    probs[best] = 1;
    return probs;
  }

  const { topK = 0, topP = 1 } = params;
  if (topK > 0 && topK < candidates.length) {
    candidates = idsByDescendingValue(candidates, logits).slice(0, topK);
  }
  let maxLogit = -Infinity;
  for (const token of candidates) maxLogit = Math.max(maxLogit, logits[token] as number);
  let total = 0;
  for (const token of candidates) {
    const weight = Math.exp(((logits[token] as number) - maxLogit) / params.temperature);
    probs[token] = weight;
    total += weight;
  }
  for (const token of candidates) probs[token] = (probs[token] as number) / total;

  if (topP < 1) {
    const ordered = idsByDescendingValue(candidates, probs);
    let kept = 0;
    let mass = 0;
    while (kept < ordered.length && mass < topP) mass += probs[ordered[kept++] as number] as number;
    for (let i = kept; i < ordered.length; i++) probs[ordered[i] as number] = 0;
    for (let i = 0; i < kept; i++) {
      const token = ordered[i] as number;
      probs[token] = (probs[token] as number) / mass;
    }
  }
  return probs;
}

/**
 * Inverse-CDF draw: the first index whose cumulative weight exceeds u·Σw. Zero-weight entries are never
 * returned, and rounding at the top end falls back to the last positive entry.
 */
export function drawCategorical(weights: ArrayLike<number>, u: number): number {
  let total = 0;
  let lastPositive = -1;
  for (let i = 0; i < weights.length; i++) {
    const weight = weights[i] as number;
    if (!(weight >= 0)) throw new RangeError(`categorical weight ${i} is ${weight}`);
    if (weight > 0) lastPositive = i;
    total += weight;
  }
  if (!(total > 0 && Number.isFinite(total))) throw new RangeError(`categorical weights sum to ${total}`);
  const threshold = u * total;
  let cumulative = 0;
  for (let i = 0; i <= lastPositive; i++) {
    cumulative += weights[i] as number;
    if (threshold < cumulative && (weights[i] as number) > 0) return i;
  }
  return lastPositive;
}

export interface TopEntry {
  token: number;
  /** weights[token] / Σ weights. */
  prob: number;
}

export interface DistributionSummary {
  /** The `count` heaviest tokens, heaviest first (ties by token id). */
  top: TopEntry[];
  /** Tokens with positive weight. */
  support: number;
}

/** The heaviest `count` entries of an unnormalised distribution, normalised, and the size of its support. */
export function summarizeDistribution(weights: ArrayLike<number>, count: number): DistributionSummary {
  let total = 0;
  let support = 0;
  for (let i = 0; i < weights.length; i++) {
    const weight = weights[i] as number;
    if (!(weight >= 0)) throw new RangeError(`distribution weight ${i} is ${weight}`);
    if (weight > 0) support++;
    total += weight;
  }
  if (!(total > 0 && Number.isFinite(total))) throw new RangeError(`distribution weights sum to ${total}`);
  // A partial selection kept sorted: count is small (a handful) and V can be 50k.
  const top: TopEntry[] = [];
  for (let token = 0; token < weights.length; token++) {
    const weight = weights[token] as number;
    if (weight === 0 || (top.length === count && weight <= (top[count - 1] as TopEntry).prob)) continue;
    let at = top.length;
    while (at > 0 && (top[at - 1] as TopEntry).prob < weight) at--;
    top.splice(at, 0, { token, prob: weight });
    if (top.length > count) top.pop();
  }
  for (const entry of top) entry.prob /= total;
  return { top, support };
}
