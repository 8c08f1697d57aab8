import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFIER_IDS } from '../../src/core/verify';
import type { GpuDeviceManager } from '../../src/gpu/device';
import { GpuVerifier } from '../../src/gpu/verifier';
import { nodeDeviceManager } from '../support/gpu';
import { TIE_EPSILON, compareWithCpu } from './twinHarness';

const PROBLEMS_PER_METHOD = Number(process.env.SPECLAB_TWIN_PROBLEMS ?? 10_000);

describe('GPU verifier against the CPU reference (Node, Dawn on SwiftShader)', () => {
  let manager: GpuDeviceManager;
  let verifier: GpuVerifier;
  beforeAll(() => {
    manager = nodeDeviceManager();
    verifier = new GpuVerifier(manager);
  });
  afterAll(() => manager.dispose());

  it.each(VERIFIER_IDS)(`%s: ${PROBLEMS_PER_METHOD} seeded problems decide alike`, async (method) => {
    const { ties, unexplained } = await compareWithCpu(await manager.context(), verifier, method, PROBLEMS_PER_METHOD, VERIFIER_IDS.indexOf(method) + 100);
    console.info(`${method}: ${PROBLEMS_PER_METHOD} problems, ${ties} mismatches explained by ties within ${TIE_EPSILON}, ${unexplained.length} unexplained`);
    expect(unexplained.slice(0, 5)).toEqual([]);
  });
});
