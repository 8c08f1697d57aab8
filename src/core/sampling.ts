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
import type { Rng } from './rng';

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

/** Step 1 above: a logit of -Infinity, or a token the mask (where there is one) leaves out, is removed. */
function isLogitAllowed(logit: number, token: number, mask: Int32Array | undefined): boolean {
  return logit !== -Infinity && (mask === undefined || isTokenAllowed(mask, token));
}

export function logitsToProbs(logits: ArrayLike<number>, params: SamplingParams, mask?: Int32Array): Float64Array {
  return logitsToProbsInto(new Float64Array(logits.length), logits, params, mask);
}

/**
 * logitsToProbs written into `probs` (every entry, zeros included), so that a step's K×(L+1) rows of V fill
 * buffers it already holds: at 262k tokens a fresh row is 2 MB, and a step's fresh rows kept the collector busy.
 */
export function logitsToProbsInto(
  probs: Float64Array,
  logits: ArrayLike<number>,
  params: SamplingParams,
  mask?: Int32Array,
): Float64Array {
  validateSamplingParams(params);
  const vocabSize = logits.length;
  if (vocabSize === 0) throw new RangeError('logits row is empty');
  if (probs.length !== vocabSize)
    throw new RangeError(`the output row has ${probs.length} entries, the logits row ${vocabSize}`);
  if (mask && mask.length !== maskWordCount(vocabSize)) {
    throw new RangeError(
      `mask has ${mask.length} int32 words, but a vocabulary of ${vocabSize} needs ${maskWordCount(vocabSize)}`,
    );
  }
  // One pass to find the allowed maximum (the first on ties), with no per-token allocation: it runs for every
  // row of a step, and at 262k tokens how it loops shows in the step's time.
  let count = 0;
  let maxLogit = -Infinity;
  let best = -1;
  for (let token = 0; token < vocabSize; token++) {
    const logit = logits[token] as number;
    if (Number.isNaN(logit) || logit === Infinity) throw new RangeError(`logit of token ${token} is ${logit}`);
    if (!isLogitAllowed(logit, token, mask)) continue;
    count++;
    if (logit > maxLogit) {
      maxLogit = logit;
      best = token;
    }
  }
  if (count === 0) throw new RangeError('every token is masked out: the row has no allowed token');

  probs.fill(0);
  if (params.temperature === 0) {
    probs[best] = 1;
    return probs;
  }

  const { topK = 0, topP = 1 } = params;
  const allowedIds = () => {
    const ids: number[] = [];
    for (let token = 0; token < vocabSize; token++)
      if (isLogitAllowed(logits[token] as number, token, mask)) ids.push(token);
    return ids;
  };
  if (topK > 0 && topK < count) {
    // The k highest, summed in that order.
    const candidates = idsByDescendingValue(allowedIds(), logits).slice(0, topK);
    maxLogit = -Infinity;
    for (const token of candidates) maxLogit = Math.max(maxLogit, logits[token] as number);
    let total = 0;
    for (const token of candidates) {
      const weight = Math.exp(((logits[token] as number) - maxLogit) / params.temperature);
      probs[token] = weight;
      total += weight;
    }
    for (const token of candidates) probs[token] = (probs[token] as number) / total;
    return topP < 1 ? nucleus(probs, candidates, topP) : probs;
  }
  let total = 0;
  for (let token = 0; token < vocabSize; token++) {
    const logit = logits[token] as number;
    if (!isLogitAllowed(logit, token, mask)) continue;
    const weight = Math.exp((logit - maxLogit) / params.temperature);
    probs[token] = weight;
    total += weight;
  }
  // Disallowed entries are 0, and 0 / total stays 0: one division pass without the mask.
  for (let token = 0; token < vocabSize; token++) probs[token] = (probs[token] as number) / total;
  return topP < 1 ? nucleus(probs, allowedIds(), topP) : probs;
}

/** Step 6: keeps the smallest nucleus of `candidates` whose mass reaches p, renormalised, in place. */
function nucleus(probs: Float64Array, candidates: number[], topP: number): Float64Array {
  const ordered = idsByDescendingValue(candidates, probs);
  let kept = 0;
  let mass = 0;
  while (kept < ordered.length && mass < topP) mass += probs[ordered[kept++] as number] as number;
  for (let i = kept; i < ordered.length; i++) probs[ordered[i] as number] = 0;
  for (let i = 0; i < kept; i++) {
    const token = ordered[i] as number;
    probs[token] = (probs[token] as number) / mass;
  }
  return probs;
}

/**
 * Exact categorical draws. Every draw consumes one 64-bit uniform U (two Philox words, high word first) and
 * is an inverse-CDF walk in integers, so that the law of a draw can be computed exactly from the word grid
 * and the WGSL kernel (shaders/sample.wgsl) reproduces it bit for bit:
 *   1. each weight becomes whole units, W_i = floor(w_i · 2^(45 − E)), with E the binary exponent of the
 *      largest weight (so it gets between 2^45 and 2^46 units); the total S = Σ W_i < 2^63 for V < 2^17;
 *   2. the threshold is T = floor(U · S / 2^64), which lies in [0, S);
 *   3. the draw is the first token whose cumulative units exceed T.
 * Token i is drawn for exactly ceil(C_i · 2^64 / S) − ceil(C_{i−1} · 2^64 / S) of the 2^64 values of U
 * (C_i its cumulative units), which is W_i / S · 2^64 to within one: a token's probability is off by less
 * than 2^-64 from W_i / S, which is off from w_i / Σw by less than 2^-45 of the largest weight. Every
 * token with w_i ≥ 2^-45 · max w is reachable, and the law is within V · 2^-45 (< 2^-28 at V = 50,257) of
 * the weights in total variation. Sums of integers are exact and associative, so the GPU's parallel scan
 * and this sequential walk agree exactly on the same weights.
 * (A 24-bit uniform, the former recipe, drew tokens below 2^-24 never or at twice their probability.)
 */
const TWO_POW_32 = 4294967296;
/** The largest weight gets [2^(UNIT_BITS − 1), 2^UNIT_BITS) units. */
const UNIT_BITS = 46;

/** E with 2^E ≤ w < 2^(E+1), for a positive finite w. */
function binaryExponent(w: number): number {
  let exponent = Math.floor(Math.log2(w));
  while (2 ** exponent > w) exponent--;
  while (2 ** (exponent + 1) <= w) exponent++;
  return exponent;
}

/**
 * Step 1 above as two factors whose product is 2^(45 − E): w · first · second is exact and finite even where
 * 2^(45 − E) alone would leave the f64 range (tiny or subnormal weights).
 */
function unitScale(weights: ArrayLike<number>): readonly [number, number] {
  let largest = 0;
  for (let i = 0; i < weights.length; i++) {
    const weight = weights[i] as number;
    if (!(weight >= 0 && weight < Infinity)) throw new RangeError(`categorical weight ${i} is ${weight}`);
    if (weight > largest) largest = weight;
  }
  if (largest === 0) throw new RangeError('categorical weights sum to 0');
  const shift = UNIT_BITS - 1 - binaryExponent(largest);
  const half = Math.trunc(shift / 2);
  return [2 ** half, 2 ** (shift - half)];
}

/** Step 1 above: the whole units of each weight (each below 2^46, exact in f64). */
export function categoricalUnits(weights: ArrayLike<number>): Float64Array {
  const [first, second] = unitScale(weights);
  return Float64Array.from(weights as ArrayLike<number>, (w) => Math.floor(w * first * second));
}

/** A 64-bit unsigned integer as two u32 words, the layout the kernels use (WGSL has no u64). */
export interface Words64 {
  high: number;
  low: number;
}

const limbsOf = (w: Words64) => [w.low & 0xffff, w.low >>> 16, w.high & 0xffff, w.high >>> 16];

/** Step 2 above: floor(U · S / 2^64) for the uniform U and the total units S, by 16-bit limbs (exact). */
export function drawThreshold(uniform: Words64, total: Words64): Words64 {
  const u = limbsOf(uniform);
  const t = limbsOf(total);
  // Column sums of limb products stay below 2^35: exact in f64.
  const columns = [0, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < 4; i++)
    for (let j = 0; j < 4; j++) columns[i + j] = (columns[i + j] as number) + (u[i] as number) * (t[j] as number);
  let carry = 0;
  const limbs = columns.map((column) => {
    const sum = column + carry;
    carry = Math.floor(sum / 65536);
    return sum % 65536;
  });
  return {
    high: (limbs[7] as number) * 65536 + (limbs[6] as number),
    low: (limbs[5] as number) * 65536 + (limbs[4] as number),
  };
}

/** Units are summed in plain f64 over runs this long: 2^7 units below 2^46 each stay below 2^53, so exact. */
const RUN = 128;
/** Each weight's units, reused from draw to draw (draws are synchronous). */
let unitScratch = new Float64Array(0);

/**
 * The exact inverse-CDF draw for the 64-bit uniform (high, low); never returns a zero-weight token. Sums
 * are kept as (high, low) u32 words with carries, exactly as the kernel's u64 arithmetic does; within a
 * run of RUN tokens they are exact in f64, so words are carried once a run, not once a token.
 */
export function drawCategorical(weights: ArrayLike<number>, high: number, low: number): number {
  const [first, second] = unitScale(weights);
  const count = weights.length;
  if (unitScratch.length < count) unitScratch = new Float64Array(count);
  const units = unitScratch;
  let totalHigh = 0;
  let totalLow = 0;
  for (let start = 0; start < count; start += RUN) {
    let run = 0;
    for (let i = start; i < Math.min(start + RUN, count); i++) {
      const unit = Math.floor((weights[i] as number) * first * second);
      units[i] = unit;
      run += unit;
    }
    [totalHigh, totalLow] = addWords(totalHigh, totalLow, run);
  }
  const threshold = drawThreshold({ high, low }, { high: totalHigh, low: totalLow });
  let cumulativeHigh = 0;
  let cumulativeLow = 0;
  for (let start = 0; start < count; start += RUN) {
    const end = Math.min(start + RUN, count);
    let run = 0;
    for (let i = start; i < end; i++) run += units[i] as number;
    const [nextHigh, nextLow] = addWords(cumulativeHigh, cumulativeLow, run);
    if (threshold.high < nextHigh || (threshold.high === nextHigh && threshold.low < nextLow)) {
      // The draw is in this run: the threshold's remainder past the runs before it is below `run`, so exact in f64.
      const remainder = (threshold.high - cumulativeHigh) * TWO_POW_32 + (threshold.low - cumulativeLow);
      let cumulative = 0;
      for (let i = start; i < end; i++) {
        cumulative += units[i] as number;
        if (remainder < cumulative) return i;
      }
    }
    cumulativeHigh = nextHigh;
    cumulativeLow = nextLow;
  }
  throw new Error('unreachable: the threshold lies below the total');
}

/** (high, low) u32 words plus an integer below 2^53, carried into words again. */
function addWords(high: number, low: number, amount: number): [number, number] {
  const sumLow = low + (amount % TWO_POW_32);
  const carry = sumLow >= TWO_POW_32 ? 1 : 0;
  return [high + Math.floor(amount / TWO_POW_32) + carry, sumLow - carry * TWO_POW_32];
}

/** A draw on the next two words of `rng`. */
export function sampleCategorical(weights: ArrayLike<number>, rng: Rng): number {
  const high = rng.nextUint32();
  return drawCategorical(weights, high, rng.nextUint32());
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
