import { afterAll, beforeAll, describe as suite, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import { VERIFIER_IDS, type VerifierId } from '../../src/core/verify';
import type { GpuDeviceManager } from '../../src/gpu/device';
import { GpuVerifier, type GpuVerifyOutcome } from '../../src/gpu/verifier';
import type { VerifyOutcome } from '../../src/core/verify';
import { nodeDeviceManager } from '../support/gpu';
import { cpuReference, randomTwinCase, uploadCases, type TwinCase } from './twinHarness';

const PROBLEMS_PER_METHOD = Number(process.env.SPECLAB_TWIN_PROBLEMS ?? 10_000);
const BATCH = 500;
/** A decision whose uniform lies this close to its threshold may go either way between f32 and f64. */
const TIE_EPSILON = 1e-5;
const TEMPERATURES = [0, 0.3, 1, 1.5];

const describe = (outcome: VerifyOutcome, words: number) =>
  `draft ${outcome.draft} accepted ${outcome.accepted} tokens [${outcome.tokens.join(',')}] words ${words}`;

function sampleCase(rng: ReturnType<typeof createRng>, method: VerifierId): TwinCase {
  // V log-uniform in 8..4096, so that small vocabularies (where ties are rarest) and large ones both appear.
  const V = Math.round(8 * 512 ** rng.uniform());
  const K = 1 + Math.floor(rng.uniform() * 8);
  const L = 1 + Math.floor(rng.uniform() * 8);
  const temperature = TEMPERATURES[Math.floor(rng.uniform() * TEMPERATURES.length)] as number;
  // top-k and top-p are held to the CPU by the probs kernel's own test; here every row is plain softmax.
  return randomTwinCase(rng, method, { V, K, L, sampling: { temperature }, masked: rng.uniform() < 0.5 });
}

suite('GPU verifier against the CPU reference (Node, Dawn on SwiftShader)', () => {
  let manager: GpuDeviceManager;
  let verifier: GpuVerifier;
  beforeAll(() => {
    manager = nodeDeviceManager();
    verifier = new GpuVerifier(manager);
  });
  afterAll(() => manager.dispose());

  it.each(VERIFIER_IDS)(`%s: ${PROBLEMS_PER_METHOD} seeded problems decide alike`, async (method) => {
    const context = await manager.context();
    const rng = createRng(VERIFIER_IDS.indexOf(method) + 100);
    const nextBatch = (done: number) =>
      Array.from({ length: Math.min(BATCH, PROBLEMS_PER_METHOD - done) }, () => sampleCase(rng, method));
    let ties = 0;
    const unexplained: string[] = [];
    let cases = nextBatch(0);
    for (let done = 0; done < PROBLEMS_PER_METHOD; done += BATCH) {
      const { steps, release } = uploadCases(context, cases);
      const pending = verifier.verifyBatch(steps);
      // The CPU prepares the next batch while the GPU works on this one.
      const following = done + BATCH < PROBLEMS_PER_METHOD ? nextBatch(done + BATCH) : [];
      const outcomes = await pending;
      release();
      cases.forEach((c, i) => {
        const gpu = outcomes[i] as GpuVerifyOutcome;
        const { outcome: cpu, margin, wordsUsed } = cpuReference(c);
        const same =
          gpu.draft === cpu.draft && gpu.accepted === cpu.accepted && gpu.tokens.join() === cpu.tokens.join() && gpu.wordsUsed === wordsUsed;
        if (same) return;
        if (margin < TIE_EPSILON) ties++;
        else {
          unexplained.push(
            `V=${c.V} K=${c.K} L=${c.L} T=${c.sampling.temperature} seed=${c.seed}: gpu ${describe(gpu, gpu.wordsUsed)} cpu ${describe(cpu, wordsUsed)} margin ${margin}`,
          );
        }
      });
      cases = following;
    }
    console.info(`${method}: ${PROBLEMS_PER_METHOD} problems, ${ties} mismatches explained by ties within ${TIE_EPSILON}, ${unexplained.length} unexplained`);
    expect(unexplained.slice(0, 5)).toEqual([]);
  });
});
