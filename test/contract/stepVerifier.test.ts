/**
 * The law of the final token that the CPU twin records: the residual after a rejection, the target's bonus
 * row after a full acceptance, and for every method a law under which the emitted final token was possible.
 */
import { describe, expect, it } from 'vitest';
import { METHOD_IDS, type VerifyProblem } from '../../src/core/verify';
import { createRng } from '../../src/core/rng';
import { cpuVerifier, verifierForMethod, type StepVerifier, type VerifyInput } from '../../src/contract/stepVerifier';

const V = 4;

function input(method: VerifyInput['method'], problem: VerifyProblem, seed: number): VerifyInput {
  return {
    method,
    problem,
    targetLogits: new Float32Array(0),
    draftLogits: new Float32Array(0),
    targetLogitsOnGpu: null,
    targetMasks: null,
    draftMasks: null,
    sampling: { temperature: 1 },
    seed,
    firstWord: 0,
  };
}

/** One draft of length L with the same draft row q everywhere, and target rows `targets` (L + 1 of them). */
function singleDraft(tokens: number[], q: number[], targets: number[][]): VerifyProblem {
  return {
    K: 1,
    L: tokens.length,
    V,
    drafts: Int32Array.from(tokens),
    draftProbs: Float64Array.from(tokens.flatMap(() => q)),
    targetProbs: Float64Array.from(targets.flat()),
  };
}

/** A random problem: Dirichlet-like rows from a seeded stream, drafts sampled from their draft rows. */
function randomProblem(seed: number, K: number, L: number): VerifyProblem {
  const rng = createRng(seed, 7);
  const row = () => {
    const weights = Array.from({ length: V }, () => -Math.log(1 - rng.uniform()));
    const total = weights.reduce((a, b) => a + b, 0);
    return weights.map((w) => w / total);
  };
  const draftProbs: number[] = [];
  const drafts: number[] = [];
  for (let i = 0; i < K * L; i++) {
    const q = row();
    draftProbs.push(...q);
    let u = rng.uniform();
    let token = 0;
    while (token < V - 1 && u >= (q[token] as number)) u -= q[token++] as number;
    drafts.push(token);
  }
  return {
    K,
    L,
    V,
    drafts: Int32Array.from(drafts),
    draftProbs: Float64Array.from(draftProbs),
    targetProbs: Float64Array.from(Array.from({ length: K * (L + 1) }, row).flat()),
  };
}

describe('the final token’s law, as the CPU twin records it', () => {
  it('is the normalised residual max(0, p − q) after a token-wise rejection', async () => {
    // Target probability 0 at the drafted token: rejected at position 0 whatever the uniform.
    const q = [0.4, 0.3, 0.2, 0.1];
    const p = [0, 0.5, 0.1, 0.4];
    const { outcome, finalLaw } = await cpuVerifier.verify(input('tokenwise', singleDraft([0, 1], q, [p, q, q]), 3));
    expect(outcome.accepted).toBe(0);
    // Residual (0, 0.2, 0, 0.3) / 0.5.
    expect(finalLaw?.support).toBe(2);
    expect(finalLaw?.top.map((e) => e.token)).toEqual([3, 1]);
    expect(finalLaw?.top[0]?.prob).toBeCloseTo(0.6, 12);
    expect(finalLaw?.top[1]?.prob).toBeCloseTo(0.4, 12);
  });

  it('is the target’s bonus row when every token is accepted', async () => {
    const q = [0.25, 0.25, 0.25, 0.25];
    const bonus = [0.1, 0.2, 0.3, 0.4];
    for (const method of METHOD_IDS) {
      const { outcome, finalLaw } = await cpuVerifier.verify(input(method, singleDraft([2, 1], q, [q, q, bonus]), 9));
      expect(outcome.accepted, method).toBe(2);
      expect(
        finalLaw?.top.map((e) => e.token),
        method,
      ).toEqual([3, 2, 1, 0]);
      finalLaw?.top.forEach((entry) => expect(entry.prob).toBeCloseTo(bonus[entry.token] as number, 12));
    }
  });

  it('gives the emitted final token positive probability, for every method on random problems', async () => {
    for (const method of METHOD_IDS) {
      for (let seed = 1; seed <= 200; seed++) {
        const problem = randomProblem(seed, 3, 3);
        const { outcome, finalLaw } = await cpuVerifier.verify(input(method, problem, seed));
        const final = outcome.tokens[outcome.accepted] as number;
        const total = finalLaw?.top.reduce((sum, entry) => sum + entry.prob, 0);
        // V = 4 is within the recorded top, so the whole law is there.
        expect(total, `${method} seed ${seed}`).toBeCloseTo(1, 12);
        expect(
          finalLaw?.top.find((entry) => entry.token === final)?.prob ?? 0,
          `${method} seed ${seed}`,
        ).toBeGreaterThan(0);
      }
    }
  });
});

describe('a method without a WGSL kernel on a GPU run', () => {
  // A GPU verifier that refuses optimal-tree, as the WGSL verifier does (it has no kernel for it).
  const gpuLike: StepVerifier = {
    kind: 'gpu',
    verify: (request) =>
      request.method === 'optimal-tree'
        ? Promise.reject(new Error('the WGSL verifier has no optimal-tree kernel'))
        : cpuVerifier.verify(request).then((result) => ({ ...result, path: 'gpu-upload' as const })),
  };

  it('is verified on the CPU twin, word for word, and the step says why', async () => {
    const problem = randomProblem(11, 3, 3);
    const routed = await verifierForMethod('optimal-tree', gpuLike).verify(input('optimal-tree', problem, 5));
    const twin = await cpuVerifier.verify(input('optimal-tree', problem, 5));
    expect(routed.path).toBe('cpu-no-kernel');
    expect(Array.from(routed.outcome.tokens)).toEqual(Array.from(twin.outcome.tokens));
    expect(routed.wordsUsed).toBe(twin.wordsUsed);
  });

  it('leaves the methods with a kernel on the GPU verifier, and a CPU run as it is', async () => {
    const problem = randomProblem(12, 3, 3);
    for (const method of METHOD_IDS.filter((m) => m !== 'optimal-tree')) {
      expect((await verifierForMethod(method, gpuLike).verify(input(method, problem, 5))).path).toBe('gpu-upload');
    }
    expect((await verifierForMethod('optimal-tree', cpuVerifier).verify(input('optimal-tree', problem, 5))).path).toBe(
      'cpu',
    );
  });
});
