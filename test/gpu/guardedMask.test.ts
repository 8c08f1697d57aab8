/**
 * The GPU twin reads the byte guard's corrected masks: a vocabulary with a raw control character (U+0005),
 * which xgrammar's string rule lets through, verified on the WGSL path and its CPU twin with the masks a
 * real SchemaMatcher hands out inside a JSON string. Both emit the same tokens and never the control one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokenAllowed, logitsToProbs } from '../../src/core/sampling';
import { validateProblem } from '../../src/core/verify';
import { GpuVerifier } from '../../src/gpu/verifier';
import { GrammarEngine } from '../../src/grammar/engine';
import { suiteDevices } from '../support/gpu';
import { cpuReference, uploadCases, type TwinCase } from './twinHarness';

const TOKENS = ['{"s": "', 'a', 'b', '\u0005', '"}', '<stop>'];
const CONTROL = 3;
const V = TOKENS.length;
const K = 2;
const L = 2;

describe('the GPU twin on guarded masks', () => {
  const devices = suiteDevices();
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: TOKENS, vocabType: 'raw', stopTokenIds: [V - 1] });
  });
  afterAll(() => engine.dispose());

  it('inside a string the mask drops the control token, and the WGSL path and the CPU twin emit the same tokens, never it', async () => {
    const compiled = await engine.compile(
      JSON.stringify({ type: 'object', properties: { s: { type: 'string' } }, required: ['s'] }),
    );
    const matcher = await compiled.matcher();
    expect(matcher.accept(0)).toBe(true);
    const mask = await matcher.mask();
    matcher.dispose();
    compiled.dispose();
    expect([1, 2, 4].every((token) => isTokenAllowed(mask, token))).toBe(true);
    expect(isTokenAllowed(mask, CONTROL)).toBe(false);
    // 'a' and 'b' keep the guard and the grammar in the same state, so every row of the step has this mask.
    const sampling = { temperature: 1 };
    const targetRow = Float32Array.from([0, 1, 1, 4, 0.5, 0]);
    const draftRow = Float32Array.from([0, 0.5, 0.5, 3, 0.5, 0]);
    const drafts = Int32Array.from([CONTROL, 1, 1, 2]);
    const targetLogits = new Float32Array(K * (L + 1) * V).map((_, i) => targetRow[i % V] as number);
    const draftLogits = new Float32Array(K * L * V).map((_, i) => draftRow[i % V] as number);
    const targetMasks = new Int32Array(K * (L + 1) * mask.length).map((_, i) => mask[i % mask.length] as number);
    const targetProbs = new Float64Array(K * (L + 1) * V);
    const draftProbs = new Float64Array(K * L * V);
    for (let row = 0; row < K * (L + 1); row++) targetProbs.set(logitsToProbs(targetRow, sampling, mask), row * V);
    for (let row = 0; row < K * L; row++) draftProbs.set(logitsToProbs(draftRow, sampling), row * V);
    const reference = { K, L, V, drafts, draftProbs, targetProbs };
    validateProblem(reference);
    const cases: TwinCase[] = Array.from({ length: 200 }, (_, seed) => ({
      method: 'spectr-gbv',
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
      firstWord: 0,
      reference,
    }));
    const { steps, release } = uploadCases(await devices.context(), cases);
    const outcomes = await new GpuVerifier(devices.manager()).verifyBatch(steps);
    release();
    outcomes.forEach((gpu, i) => {
      const cpu = cpuReference(cases[i] as TwinCase).outcome;
      expect([...gpu.tokens], `seed ${i}`).toEqual([...cpu.tokens]);
      expect(gpu.tokens.includes(CONTROL), `seed ${i}`).toBe(false);
    });
  });
});
