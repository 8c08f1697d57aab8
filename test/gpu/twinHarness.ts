import { createRng, type Rng } from '../../src/core/rng';
import { rngSource, type RandomSource } from '../../src/core/random';
import { sampleCategorical, logitsToProbs, maskWordCount, type SamplingParams } from '../../src/core/sampling';
import {
  VERIFIERS,
  denseView,
  validateProblem,
  type BlockTrace,
  type VerifierId,
  type VerifyOutcome,
  type VerifyProblem,
} from '../../src/core/verify';
import type { GpuContext } from '../../src/gpu/device';
import { USAGE } from '../../src/gpu/kernel';
import type { GpuVerifier, GpuVerifyOutcome, GpuVerifyStep } from '../../src/gpu/verifier';

/** A random verification problem as logits, with the CPU reference problem built from the same f32 logits. */
export interface TwinCase {
  method: VerifierId;
  K: number;
  L: number;
  V: number;
  drafts: Int32Array;
  targetLogits: Float32Array;
  draftLogits: Float32Array;
  targetMasks: Int32Array | null;
  sampling: SamplingParams;
  seed: number;
  stream: number;
  firstWord: number;
  reference: VerifyProblem;
}

/** Mulberry32 seeded from the Philox stream: test logits need volume more than Philox's quality. */
function fastUniforms(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How far above the noise a favoured token's logit sits: e^12 against V·e^±3 puts most of the mass on them. */
const FAVOURED_LIFT = 12;

function logitsRow(rng: Rng, V: number, anchor: Float32Array | null, favoured: number): Float32Array {
  const uniform = fastUniforms(rng.nextUint32());
  const row = new Float32Array(V);
  // Draft logits lean on the target's so that acceptance is neither certain nor hopeless.
  for (let x = 0; x < V; x++) {
    const noise = (uniform() - 0.5) * 6;
    row[x] = anchor ? 0.6 * (anchor[x] as number) + 0.4 * noise : noise;
  }
  for (let i = 0; i < favoured; i++) {
    const x = Math.floor(uniform() * V);
    row[x] = (row[x] as number) + FAVOURED_LIFT;
  }
  return row;
}

export function randomTwinCase(
  rng: Rng,
  method: VerifierId,
  options: {
    V: number;
    K: number;
    L: number;
    sampling: SamplingParams;
    masked: boolean;
    /** Target tokens lifted far above the rest, as a trained model's row is at a full vocabulary; none unless given. */
    favoured?: number;
  },
): TwinCase {
  const { V, K, L, sampling, masked, favoured = 0 } = options;
  const W = maskWordCount(V);
  const targetLogits = new Float32Array(K * (L + 1) * V);
  const draftLogits = new Float32Array(K * L * V);
  const targetMasks = masked ? new Int32Array(K * (L + 1) * W) : null;
  const drafts = new Int32Array(K * L);
  const draftProbs = new Float64Array(K * L * V);
  const targetProbs = new Float64Array(K * (L + 1) * V);
  // Rows after a shared prefix are shared, as real models give them (and so are their probabilities).
  const byPrefix = new Map<
    string,
    {
      target: Float32Array;
      draft: Float32Array;
      mask: Int32Array | null;
      targetProbs: Float64Array;
      draftProbs: Float64Array | null;
    }
  >();
  for (let k = 0; k < K; k++) {
    const prefix: number[] = [];
    for (let j = 0; j <= L; j++) {
      const key = prefix.join(',');
      let rows = byPrefix.get(key);
      if (!rows) {
        const target = logitsRow(rng, V, null, favoured);
        let mask: Int32Array | null = null;
        if (masked) {
          mask = new Int32Array(W);
          const uniform = fastUniforms(rng.nextUint32());
          for (let x = 0; x < V; x++) if (uniform() < 0.7) mask[x >> 5] = (mask[x >> 5] as number) | (1 << (x & 31));
          mask[0] = (mask[0] as number) | 1;
        }
        const draft = logitsRow(rng, V, target, 0);
        rows = {
          target,
          draft,
          mask,
          targetProbs: logitsToProbs(target, sampling, mask ?? undefined),
          draftProbs: null,
        };
        byPrefix.set(key, rows);
      }
      const targetRow = k * (L + 1) + j;
      targetLogits.set(rows.target, targetRow * V);
      if (targetMasks && rows.mask) targetMasks.set(rows.mask, targetRow * W);
      targetProbs.set(rows.targetProbs, targetRow * V);
      if (j === L) break;
      const draftRow = k * L + j;
      draftLogits.set(rows.draft, draftRow * V);
      rows.draftProbs ??= logitsToProbs(rows.draft, sampling);
      draftProbs.set(rows.draftProbs, draftRow * V);
      const token = sampleCategorical(rows.draftProbs, rng);
      drafts[draftRow] = token;
      prefix.push(token);
    }
  }
  const reference: VerifyProblem = { K, L, V, drafts, draftProbs, targetProbs };
  validateProblem(reference);
  const seed = Math.floor(rng.uniform() * 2 ** 40);
  return {
    method,
    K,
    L,
    V,
    drafts,
    targetLogits,
    draftLogits,
    targetMasks,
    sampling,
    seed,
    stream: 1,
    firstWord: Math.floor(rng.uniform() * 1000),
    reference,
  };
}

/** Uploads a batch of cases into two buffers and describes them as GPU verification steps. */
export function uploadCases(
  context: GpuContext,
  cases: readonly TwinCase[],
): { steps: GpuVerifyStep[]; release: () => void } {
  const logitsLength = cases.reduce((n, c) => n + c.targetLogits.length + c.draftLogits.length, 0);
  const masksLength = cases.reduce((n, c) => n + (c.targetMasks?.length ?? 0), 0);
  const logits = new Float32Array(logitsLength);
  const masks = new Int32Array(Math.max(1, masksLength));
  const buffer = (label: string, bytes: number) =>
    context.device.createBuffer({
      label,
      size: Math.ceil(bytes / 4) * 4,
      usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST,
    });
  const logitsBuffer = buffer('twin logits', logits.byteLength);
  const masksBuffer = buffer('twin masks', masks.byteLength);
  const steps: GpuVerifyStep[] = [];
  let at = 0;
  let maskAt = 0;
  for (const c of cases) {
    logits.set(c.targetLogits, at);
    logits.set(c.draftLogits, at + c.targetLogits.length);
    if (c.targetMasks) masks.set(c.targetMasks, maskAt);
    steps.push({
      method: c.method,
      K: c.K,
      L: c.L,
      V: c.V,
      drafts: c.drafts,
      targetLogits: { buffer: logitsBuffer, offset: at },
      draftLogits: { buffer: logitsBuffer, offset: at + c.targetLogits.length },
      targetMasks: c.targetMasks ? { buffer: masksBuffer, offset: maskAt } : null,
      draftMasks: null,
      targetSampling: c.sampling,
      draftSampling: c.sampling,
      seed: c.seed,
      stream: c.stream,
      firstWord: c.firstWord,
    });
    at += c.targetLogits.length + c.draftLogits.length;
    maskAt += c.targetMasks?.length ?? 0;
  }
  context.device.queue.writeBuffer(logitsBuffer, 0, logits);
  context.device.queue.writeBuffer(masksBuffer, 0, masks);
  return {
    steps,
    release: () => {
      logitsBuffer.destroy();
      masksBuffer.destroy();
    },
  };
}

/**
 * The CPU reference on the same Philox words, and the smallest margin of any of its choices: |u − p| for a
 * Bernoulli, the distance from u·Σw to the nearest bucket edge (over Σw) for a draw, u being the choice's
 * 64-bit uniform.
 */
export function cpuReference(c: TwinCase): { outcome: VerifyOutcome; margin: number; wordsUsed: number } {
  const rng = createRng(c.seed, c.stream, c.firstWord);
  const source = rngSource(rng);
  let margin = Infinity;
  const replay = createRng(c.seed, c.stream, c.firstWord);
  const nextUniform = () => replay.nextUint32() * 2 ** -32 + replay.nextUint32() * 2 ** -64;
  const watching: RandomSource = {
    bernoulli(p) {
      margin = Math.min(margin, Math.abs(nextUniform() - p));
      return source.bernoulli(p);
    },
    categorical(weights) {
      const u = nextUniform();
      const chosen = source.categorical(weights);
      let total = 0;
      let below = 0;
      for (let i = 0; i < weights.length; i++) {
        if (i < chosen) below += weights[i] as number;
        total += weights[i] as number;
      }
      // Only the chosen bucket's two edges can change the outcome.
      const threshold = u * total;
      const edgeDistance = Math.min(threshold - below, below + (weights[chosen] as number) - threshold);
      margin = Math.min(margin, Math.abs(edgeDistance) / total);
      return chosen;
    },
  };
  const outcome = VERIFIERS[c.method](denseView(c.reference), watching);
  return { outcome, margin, wordsUsed: rng.position - c.firstWord };
}

/** A decision whose uniform lies this close to its threshold may go either way between f32 and f64. */
export const TIE_EPSILON = 1e-5;
const TEMPERATURES = [0, 0.3, 1, 1.5];
const BATCH = 500;

function sampleCase(rng: Rng, method: VerifierId): TwinCase {
  // V log-uniform in 8..4096, so that small and large vocabularies both appear.
  const V = Math.round(8 * 512 ** rng.uniform());
  const K = 1 + Math.floor(rng.uniform() * 8);
  const L = 1 + Math.floor(rng.uniform() * 8);
  const temperature = TEMPERATURES[Math.floor(rng.uniform() * TEMPERATURES.length)] as number;
  // top-k and top-p are held to the CPU by the probs kernel's own test; here every row is plain softmax.
  return randomTwinCase(rng, method, { V, K, L, sampling: { temperature }, masked: rng.uniform() < 0.5 });
}

/** Traces agree when both are absent, or have the same start and scalars equal to f32 accuracy (NaN alike). */
function tracesAgree(gpu: BlockTrace | undefined, cpu: BlockTrace | undefined): boolean {
  if (!gpu || !cpu) return gpu === cpu;
  const close = (a: Float64Array, b: Float64Array) =>
    a.length === b.length &&
    a.every((x, i) =>
      Number.isNaN(x)
        ? Number.isNaN(b[i] as number)
        : Math.abs(x - (b[i] as number)) <= 1e-4 * Math.max(1, Math.abs(x)),
    );
  return (
    gpu.start === cpu.start &&
    close(gpu.weights, cpu.weights) &&
    close(gpu.masses, cpu.masses) &&
    close(gpu.stops, cpu.stops)
  );
}

const describeOutcome = (outcome: VerifyOutcome, words: number) =>
  `draft ${outcome.draft} accepted ${outcome.accepted} tokens [${outcome.tokens.join(',')}] words ${words}`;

/**
 * Runs `count` seeded random problems (by default V 8..4096, K and L 1..8, T ∈ {0, 0.3, 1, 1.5}, masks on and
 * off) through the GPU verifier and the CPU reference, and sorts every disagreement into a tie
 * (some choice of the CPU run lay within TIE_EPSILON of its threshold) or an unexplained mismatch.
 */
export async function compareWithCpu(
  context: GpuContext,
  verifier: GpuVerifier,
  method: VerifierId,
  count: number,
  seed: number,
  sample: (rng: Rng, method: VerifierId) => TwinCase = sampleCase,
  batch = BATCH,
): Promise<{ ties: number; unexplained: string[] }> {
  const rng = createRng(seed);
  const nextBatch = (done: number) => Array.from({ length: Math.min(batch, count - done) }, () => sample(rng, method));
  let ties = 0;
  const unexplained: string[] = [];
  let cases = nextBatch(0);
  for (let done = 0; done < count; done += batch) {
    const { steps, release } = uploadCases(context, cases);
    const pending = verifier.verifyBatch(steps);
    const following = done + batch < count ? nextBatch(done + batch) : [];
    const outcomes = await pending;
    release();
    cases.forEach((c, i) => {
      const gpu = outcomes[i] as GpuVerifyOutcome;
      const { outcome: cpu, margin, wordsUsed } = cpuReference(c);
      const same =
        gpu.draft === cpu.draft &&
        gpu.accepted === cpu.accepted &&
        gpu.tokens.join() === cpu.tokens.join() &&
        gpu.wordsUsed === wordsUsed;
      if (same && tracesAgree(gpu.trace, cpu.trace)) return;
      if (same) {
        unexplained.push(
          `V=${c.V} K=${c.K} L=${c.L} seed=${c.seed}: same outcome, different block trace ${JSON.stringify([gpu.trace, cpu.trace], (_k, v: unknown) => (v instanceof Float64Array ? [...v] : v))}`,
        );
        return;
      }
      if (margin < TIE_EPSILON) ties++;
      else {
        unexplained.push(
          `V=${c.V} K=${c.K} L=${c.L} T=${c.sampling.temperature} seed=${c.seed}: ` +
            `gpu ${describeOutcome(gpu, gpu.wordsUsed)}, cpu ${describeOutcome(cpu, wordsUsed)}, margin ${margin}`,
        );
      }
    });
    cases = following;
  }
  return { ties, unexplained };
}
