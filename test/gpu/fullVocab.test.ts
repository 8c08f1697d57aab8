/**
 * The WGSL verifier decides as its CPU twin does on the same Philox words at the field's full vocabularies:
 * Llama 2's 32,000 tokens and Qwen's 151,936 logits a row (verifier.test.ts covers V ≤ 4,096 by the
 * thousand). Rows are shaped as a trained model's are at that size, most of the mass on a few dozen tokens and
 * the rest spread thin over the others, so the choices land in buckets wide enough to tell the two apart.
 */
import { describe, expect, it } from 'vitest';
import { GPU_VERIFIER_IDS, type VerifierId } from '../../src/core/verify';
import type { Rng } from '../../src/core/rng';
import { GpuVerifier } from '../../src/gpu/verifier';
import { suiteDevices } from '../support/gpu';
import { TIE_EPSILON, compareWithCpu, randomTwinCase } from './twinHarness';

const VOCABULARIES = [32_000, 151_936] as const;
/** A handful a method and vocabulary: each is K·(L + 1) + K·L rows of V logits through both. */
const PROBLEMS = 4;
const TEMPERATURES = [0, 0.3, 1, 1.5];

/** Problem i of a run: K and L of 2 or 3, every temperature once, masks on every other problem. */
function fullVocabCase(V: number) {
  let index = 0;
  return (rng: Rng, method: VerifierId) => {
    const i = index++;
    return randomTwinCase(rng, method, {
      V,
      K: 2 + (i % 2),
      L: 2 + (Math.floor(i / 2) % 2),
      sampling: { temperature: TEMPERATURES[i % TEMPERATURES.length] as number },
      masked: i % 2 === 1,
      favoured: 40,
    });
  };
}

describe('GPU verifier against the CPU twin at full vocabulary (Node, Dawn on SwiftShader)', () => {
  const devices = suiteDevices();

  describe.each(VOCABULARIES)('V = %i', (V) => {
    it.each(GPU_VERIFIER_IDS)(`%s: ${PROBLEMS} seeded problems decide alike`, async (method) => {
      const { ties, unexplained } = await compareWithCpu(
        await devices.context(),
        new GpuVerifier(devices.manager()),
        method,
        PROBLEMS,
        V + GPU_VERIFIER_IDS.indexOf(method),
        fullVocabCase(V),
        PROBLEMS,
      );
      console.info(`V = ${V}, ${method}: ${ties} of ${PROBLEMS} differ within ${TIE_EPSILON} of a threshold`);
      expect(unexplained).toEqual([]);
      // A tie is a choice whose uniform lay within 1e-5 of its edge: rare, or the rows were too flat to tell.
      expect(ties).toBeLessThan(PROBLEMS / 2);
    });
  });
});
