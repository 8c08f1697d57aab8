import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { verify, type VerifyProblem } from '../../../src/core/verify';

/** A valid problem: K=2, L=2, V=3, uniform rows, drafts of token 0. */
function validProblem(): VerifyProblem {
  const K = 2;
  const L = 2;
  const V = 3;
  return {
    K,
    L,
    V,
    drafts: new Int32Array(K * L),
    draftProbs: new Float64Array(K * L * V).fill(1 / 3),
    targetProbs: new Float64Array(K * (L + 1) * V).fill(1 / 3),
  };
}

const run = (mutate: (problem: VerifyProblem) => void) => () => {
  const problem = validProblem();
  mutate(problem);
  return verify('spectr-gbv', problem, createRng(0));
};

describe('malformed problems get an error that names the problem', () => {
  it('accepts the valid problem', () => {
    expect(run(() => undefined)().tokens.length).toBeGreaterThan(0);
  });
  it.each([
    ['K = 0', (p: VerifyProblem) => (p.K = 0), /K must be an integer in 1\.\.8, got 0/],
    ['K = 9', (p: VerifyProblem) => (p.K = 9), /K must be an integer in 1\.\.8, got 9/],
    ['L = 0', (p: VerifyProblem) => (p.L = 0), /L must be an integer in 1\.\.8, got 0/],
    ['L = 2.5', (p: VerifyProblem) => (p.L = 2.5), /L must be an integer in 1\.\.8, got 2\.5/],
    ['L = 17', (p: VerifyProblem) => (p.L = 17), /L must be an integer/],
    [
      'drafts too short',
      (p: VerifyProblem) => (p.drafts = new Int32Array(3)),
      /drafts has 3 entries, expected K×L = 2×2 = 4/,
    ],
    [
      'draftProbs shape',
      (p: VerifyProblem) => (p.draftProbs = new Float64Array(10)),
      /draftProbs has 10 entries, expected K×L×V/,
    ],
    [
      'targetProbs shape',
      (p: VerifyProblem) => (p.targetProbs = new Float64Array(12)),
      /targetProbs has 12 entries, expected K×\(L\+1\)×V = 2×3×3 = 18/,
    ],
    ['V = 0', (p: VerifyProblem) => (p.V = 0), /V must be a positive integer/],
    [
      'NaN probability',
      (p: VerifyProblem) => (p.targetProbs[4] = NaN),
      /targetProbs: row \(draft 0, position 1\) has NaN at token 1/,
    ],
    [
      'negative probability',
      (p: VerifyProblem) => p.draftProbs.set([1.5, -0.5, 0], 3),
      /draftProbs: row \(draft 0, position 1\) has a negative probability -0\.5 at token 1/,
    ],
    [
      'row that does not sum to 1',
      (p: VerifyProblem) => (p.targetProbs[17] = 0.3),
      /targetProbs: row \(draft 1, position 2\) sums to 0\.9666/,
    ],
    [
      'token outside the vocabulary',
      (p: VerifyProblem) => (p.drafts[3] = 3),
      /drafts\[1\]\[1\] = 3 is outside the vocabulary 0\.\.2/,
    ],
    [
      'drafted token with draft probability 0',
      (p: VerifyProblem) => p.draftProbs.set([0, 0.5, 0.5], 6),
      /drafts\[1\]\[0\] = 0 has draft probability 0/,
    ],
  ])('%s', (_name, mutate, message) => {
    expect(run(mutate)).toThrow(message);
  });

  it('tolerates rows that sum to 1 within 1e-6, and no further', () => {
    expect(run((p) => (p.targetProbs[0] = 1 / 3 + 9e-7))).not.toThrow();
    expect(run((p) => (p.targetProbs[0] = 1 / 3 + 2e-6))).toThrow(/sums to/);
  });

  it('rejects an unknown method', () => {
    expect(() => verify('nope' as 'gbv', validProblem(), createRng(0))).toThrow(/unknown verification method 'nope'/);
  });
});
