/**
 * Where a step is verified, as the engine sees it: the CPU twin (src/core) or the WGSL kernels (src/gpu),
 * behind one interface that sits below both. Both draw the verifier's randomness from the same Philox
 * stream, word for word (64-bit uniforms, two words each), so a run replays to the same text on either; they can
 * differ only where a uniform lies within f32 rounding of its threshold (about 1e-5 per decision, see the
 * twin tests).
 */
import { createRng } from '../core/rng';
import { summarizeDistribution, type DistributionSummary, type SamplingParams } from '../core/sampling';
import { tracingSource } from '../core/trace';
import type { DecisionRecord } from '../core/decisions';
import {
  GPU_VERIFIER_IDS,
  VERIFIERS,
  denseView,
  type MethodId,
  type VerifyOutcome,
  type VerifyProblem,
} from '../core/verify';

/** Philox streams of a run: drafting and verification never share words. */
export const DRAFT_STREAM = 1;
export const VERIFY_STREAM = 2;

export interface VerifyInput {
  method: MethodId;
  /** The probabilities the CPU computed (f64 from the same logits). */
  problem: VerifyProblem;
  /** K×(L+1)×V and K×L×V logits, as the models returned them. */
  targetLogits: Float32Array;
  draftLogits: Float32Array;
  /** The target logits where the model left them on the GPU, when it did (contiguous K×(L+1)×V). */
  targetLogitsOnGpu: { buffer: GPUBuffer; offset: number } | null;
  /** K×(L+1) target masks and (constrained drafting) K×L draft masks, in xgrammar's layout. */
  targetMasks: Int32Array | null;
  draftMasks: Int32Array | null;
  sampling: SamplingParams;
  seed: number;
  /** The first word of VERIFY_STREAM this step may use. */
  firstWord: number;
}

/**
 * cpu: the twin; cpu-no-kernel: the twin because the method has no WGSL kernel (optimal-tree), even on a GPU
 * run; gpu-upload: the kernels on logits written to the GPU; gpu-in-place: on the model's own buffer.
 */
export type VerifyPath = 'cpu' | 'cpu-no-kernel' | 'gpu-upload' | 'gpu-in-place';

/** How many of the final token's most likely alternatives a step records. */
export const FINAL_LAW_TOP = 5;

export interface StepVerification {
  outcome: VerifyOutcome;
  wordsUsed: number;
  path: VerifyPath;
  /** The law the final (correction or bonus) token was drawn from; the CPU twin knows it, the kernels do not. */
  finalLaw: DistributionSummary | null;
  /** Every decision with its uniform, as the verifier described it: the CPU twin records them, the kernels do not. */
  decisions?: DecisionRecord[];
}

export interface StepVerifier {
  readonly kind: 'cpu' | 'gpu';
  verify(input: VerifyInput): Promise<StepVerification>;
}

/** The reference verifier: the CPU twin, here so that the engine and a GPU verifier falling back share it. */
export const cpuVerifier: StepVerifier = {
  kind: 'cpu',
  verify({ method, problem, seed, firstWord }) {
    const rng = createRng(seed, VERIFY_STREAM, firstWord);
    // Draws as rngSource(rng) does, word for word, and keeps the verifier's account of each choice.
    const source = tracingSource(rng);
    const outcome = VERIFIERS[method](denseView(problem), source);
    const law = source.lastCategorical();
    return Promise.resolve({
      outcome,
      wordsUsed: rng.position - firstWord,
      path: 'cpu' as const,
      finalLaw: law ? summarizeDistribution(law, FINAL_LAW_TOP) : null,
      decisions: source.decisions,
    });
  },
};

/**
 * The verifier a step of `method` runs on: the given one, except that a method the WGSL verifier does not
 * implement runs on the CPU twin (never the shader's default case), and its steps say so.
 */
export function verifierForMethod(method: MethodId, verifier: StepVerifier): StepVerifier {
  if (verifier.kind === 'cpu' || GPU_VERIFIER_IDS.includes(method)) return verifier;
  return {
    kind: 'cpu',
    async verify(input) {
      return { ...(await cpuVerifier.verify(input)), path: 'cpu-no-kernel' as const };
    },
  };
}
