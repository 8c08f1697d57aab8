import { describe, expect, it } from 'vitest';
import { sampleProblem, syntheticPair, type ModelPair } from '../../../src/core/modelPair';
import { rngSource } from '../../../src/core/random';
import { createRng, type Rng } from '../../../src/core/rng';
import { denseView, verify, VERIFIER_IDS, type VerifyOutcome, type VerifyProblem } from '../../../src/core/verify';
import { greedyBlock } from '../../../src/core/verify/gbv';
import { emittedTokens } from '../../../src/core/verify/view';
import { twoTokenTv } from '../../support/twoTokenLaw';

const V = 16;
const L = 4;
const K = 3;
/**
 * Spec §5's 10^5 samples for SpecTr-GBV, the mission's method; 2·10^4 for the others, which exact enumeration
 * proves lossless (lossless.test.ts): their bound is 0.051, and the broken GBV below lands at TV 0.26.
 */
const stepsFor = (method: string) => (method === 'spectr-gbv' ? 100_000 : 20_000);
const BROKEN_STEPS = 20_000;

type Step = (problem: VerifyProblem, rng: Rng) => VerifyOutcome;

/** The first `count` tokens of the stream that repeated verification steps emit after an empty context. */
function decode(pair: ModelPair, step: Step, rng: Rng, count: number): number[] {
  const emitted: number[] = [];
  while (emitted.length < count) emitted.push(...step(sampleProblem(pair, emitted, K, L, rng), rng).tokens);
  return emitted.slice(0, count);
}

/** Empirical TV distance between the first two emitted tokens and the target's law of them. */
function firstTwoTokensTv(pair: ModelPair, step: Step, seed: number, steps: number): { tv: number; bound: number } {
  const rng = createRng(seed);
  const counts = new Float64Array(V * V);
  for (let i = 0; i < steps; i++) {
    const [first, second] = decode(pair, step, rng, 2) as [number, number];
    counts[first * V + second] = (counts[first * V + second] as number) + 1;
  }
  return twoTokenTv(pair, counts, steps);
}

const pair = syntheticPair({ V, seed: 11, temperature: 1, closeness: 0.5, logitScale: 1.5 });

describe(`Monte Carlo on the production path (V=${V}, L=${L}, K=${K})`, () => {
  it.each(VERIFIER_IDS.map((method) => [method, stepsFor(method)] as const))(
    '%s: the first two emitted tokens follow the target (%i samples)',
    (method, steps) => {
      const { tv, bound } = firstTwoTokensTv(pair, (problem, rng) => verify(method, problem, rng), 2024, steps);
      console.info(
        `${method} on the CPU: ${steps} samples, TV ${tv.toFixed(4)} against a bound of ${bound.toFixed(4)}`,
      );
      expect(tv).toBeLessThanOrEqual(bound);
    },
  );

  it('the same check rejects a verifier that is not lossless (GBV that never corrects from the residual)', () => {
    const biased: Step = (problem, rng) => {
      const view = denseView(problem);
      const source = rngSource(rng);
      const { tau } = greedyBlock(view, 0, 0, null, source);
      // Broken on purpose: draws the correction from the target row instead of the residual.
      return {
        draft: 0,
        accepted: tau,
        tokens: emittedTokens(view, 0, tau, source.categorical(view.targetRow(0, tau))),
      };
    };
    const { tv, bound } = firstTwoTokensTv(pair, biased, 2024, BROKEN_STEPS);
    console.info(
      `broken GBV on the CPU: ${BROKEN_STEPS} samples, TV ${tv.toFixed(4)} against a bound of ${bound.toFixed(4)}`,
    );
    expect(tv).toBeGreaterThan(bound);
  });
});

describe('temperature 0 equals greedy decoding token for token', () => {
  const greedyTarget = (sharedSeed: number, draftTemperature: number): ModelPair => {
    const target = syntheticPair({ V, seed: sharedSeed, temperature: 0, closeness: 0.7 });
    const draft = syntheticPair({ V, seed: sharedSeed, temperature: draftTemperature, closeness: 0.7 });
    return { V, target: (prefix) => target.target(prefix), draft: (prefix) => draft.draft(prefix) };
  };
  const greedyDecode = (model: ModelPair, count: number) => {
    const tokens: number[] = [];
    while (tokens.length < count) tokens.push(model.target(tokens).indexOf(1));
    return tokens;
  };

  it.each(VERIFIER_IDS)('%s, with a greedy drafter and with a sampling drafter', (method) => {
    for (const draftTemperature of [0, 1]) {
      for (const seed of [1, 2, 3]) {
        const model = greedyTarget(seed, draftTemperature);
        const decoded = decode(model, (problem, rng) => verify(method, problem, rng), createRng(seed), 40);
        expect(decoded).toEqual(greedyDecode(model, 40));
      }
    }
  });
});
