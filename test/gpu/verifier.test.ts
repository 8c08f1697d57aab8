import { describe, expect, it } from 'vitest';
import { GPU_VERIFIER_IDS } from '../../src/core/verify';
import { GpuVerifier } from '../../src/gpu/verifier';
import { suiteDevices } from '../support/gpu';
import { TIE_EPSILON, compareWithCpu } from './twinHarness';

/** 1,000 a method keeps CI under its time limit; SPECLAB_TWIN_PROBLEMS=10000 is the deep run (about 60 s a method on 2 SwiftShader cores). */
const PROBLEMS_PER_METHOD = Number(process.env.SPECLAB_TWIN_PROBLEMS ?? 1_000);
/** Room for a deep run on a slower machine. */
const TWIN_TIMEOUT_MS = 600_000;

describe('GPU verifier against the CPU reference (Node, Dawn on SwiftShader)', () => {
  const devices = suiteDevices();

  it.each(GPU_VERIFIER_IDS)(
    `%s: ${PROBLEMS_PER_METHOD} seeded problems decide alike`,
    async (method) => {
      const { ties, unexplained } = await compareWithCpu(
        await devices.context(),
        new GpuVerifier(devices.manager()),
        method,
        PROBLEMS_PER_METHOD,
        GPU_VERIFIER_IDS.indexOf(method) + 100,
      );
      console.info(
        `${method}: ${PROBLEMS_PER_METHOD} problems, ${ties} mismatches explained by ties within ${TIE_EPSILON}, ${unexplained.length} unexplained`,
      );
      expect(unexplained.slice(0, 5)).toEqual([]);
    },
    TWIN_TIMEOUT_MS,
  );
});
