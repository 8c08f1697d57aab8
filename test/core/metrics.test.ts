import { describe, expect, it } from 'vitest';
import {
  countDraftTokens,
  derivedRatios,
  eligible,
  emptyCounters,
  emptyBySource,
  counterFields,
  exportCounters,
  VLLM_NAMES,
  perPositionAcceptance,
  proposedRatios,
  recordStep,
  recordCompletion,
  schemaValidRate,
  EMPTY_SCORECARD,
  type Counters,
  type StepCounts,
} from '../../src/core/metrics';
import { createRng, type Rng } from '../../src/core/rng';

function counters(L: number, raw: number, invalidated: number, accepted: number, steps: number): Counters {
  return { ...emptyCounters(L), raw, invalidated, accepted, steps };
}

describe('forced tokens set apart', () => {
  it('a step of forced text alone is no proposed acceptance: A/D reads 100%, the proposed A/D has no denominator, the forced share is 100%', () => {
    const forcedOnly = recordStep(emptyCounters(6), {
      proposed: 6,
      invalidated: 0,
      distinctProposed: 6,
      distinctEligible: 6,
      accepted: 6,
      bySource: { ...emptyBySource(), grammar: { drafted: 6, invalidated: 0, accepted: 6 } },
    });
    expect(derivedRatios(forcedOnly).conditionalAcceptance).toBe(1);
    expect(proposedRatios(forcedOnly)).toEqual({
      accepted: 0,
      eligible: 0,
      conditionalAcceptance: null,
      meanAcceptanceLength: 1,
      forcedShare: 1,
    });
  });

  it('a mixed run: proposed A/D counts the model’s tokens alone (its invalidated ones out of D), forced share of A', () => {
    let running = emptyCounters(4);
    // 4 forced tokens accepted; then 4 model tokens, 1 invalidated, 1 accepted.
    running = recordStep(running, {
      proposed: 4,
      invalidated: 0,
      distinctProposed: 4,
      distinctEligible: 4,
      accepted: 4,
      bySource: { ...emptyBySource(), grammar: { drafted: 4, invalidated: 0, accepted: 4 } },
    });
    running = recordStep(running, {
      proposed: 4,
      invalidated: 1,
      distinctProposed: 4,
      distinctEligible: 3,
      accepted: 1,
      bySource: { ...emptyBySource(), model: { drafted: 4, invalidated: 1, accepted: 1 } },
    });
    expect(proposedRatios(running)).toEqual({
      accepted: 1,
      eligible: 3,
      conditionalAcceptance: 1 / 3,
      meanAcceptanceLength: 1.5,
      forcedShare: 0.8,
    });
  });
});

describe('derived ratios', () => {
  it("the seed's worked example: R=1000, I=200, A=600 gives A/D 75%, D/R 80%, A/R 60%", () => {
    const ratios = derivedRatios(counters(4, 1000, 200, 600, 300));
    expect(ratios.conditionalAcceptance).toBe(0.75);
    expect(ratios.grammarSurvival).toBe(0.8);
    expect(ratios.draftYield).toBe(0.6);
  });

  it('mean acceptance length: 100 steps accepting 180 tokens gives 2.8', () => {
    expect(derivedRatios(counters(3, 300, 0, 180, 100)).meanAcceptanceLength).toBeCloseTo(2.8, 12);
  });

  it('reports 0/0 as null rather than a number', () => {
    expect(derivedRatios(emptyCounters(4))).toEqual({
      grammarSurvival: null,
      conditionalAcceptance: null,
      draftYield: null,
      meanAcceptanceLength: null,
      distinctConditionalAcceptance: null,
    });
  });

  it("exports vLLM's names beside ours", () => {
    const step: StepCounts = { proposed: 8, invalidated: 2, distinctProposed: 6, distinctEligible: 5, accepted: 3 };
    const exported = exportCounters(recordStep(emptyCounters(4), step));
    expect(exported.vllm).toEqual({
      num_drafts: 1,
      num_draft_tokens: 6,
      num_accepted_tokens: 3,
      num_accepted_tokens_per_pos: [1, 1, 1, 0],
      draft_acceptance_rate: 0.5,
      mean_acceptance_length: 4,
    });
    expect(exported.speclab).toMatchObject({ R: 8, I: 2, D: 6, A: 3, steps: 1, distinct_R: 6, distinct_D: 5 });
  });
});

describe('exported names', () => {
  it('on random runs, every vLLM field is our counter of the same meaning, and the fields keep their identities', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let run = 0; run < 50; run++) {
      const L = 1 + next(8);
      let counters = emptyCounters(L);
      for (let step = next(20); step > 0; step--) {
        const proposed = 1 + next(3 * L);
        const invalidated = next(proposed + 1);
        const accepted = Math.min(L, next(proposed - invalidated + 1));
        counters = recordStep(counters, {
          proposed,
          invalidated,
          distinctProposed: proposed,
          distinctEligible: proposed - invalidated,
          accepted,
        });
      }
      const { speclab, vllm } = exportCounters(counters);
      for (const [ours, theirs] of Object.entries(VLLM_NAMES))
        expect(vllm[theirs as keyof typeof vllm], theirs).toEqual(speclab[ours as keyof typeof VLLM_NAMES]);
      const fields = counterFields(counters);
      expect(fields.D).toBe(fields.R - fields.I);
      expect(fields.acceptance_histogram.reduce((a, b) => a + b, 0)).toBe(fields.steps);
      expect(vllm.num_accepted_tokens_per_pos.reduce((a, b) => a + b, 0)).toBe(fields.A);
      if (fields.steps > 0) expect(fields.mean_acceptance_length).toBeCloseTo(1 + fields.A / fields.steps, 12);
    }
  });
});

describe('counting drafts', () => {
  it('counts the invalid tail and distinct prefix-tree nodes', () => {
    // K=3, L=3: drafts 0 and 1 share the prefix [1, 2]; draft 2 is invalid from its second token.
    const drafts = Int32Array.from([1, 2, 3, 1, 2, 4, 5, 6, 7]);
    expect(countDraftTokens(drafts, 3, 3, [3, 3, 1], 2)).toEqual({
      proposed: 9,
      invalidated: 2,
      distinctProposed: 7,
      distinctEligible: 5,
      accepted: 2,
    });
  });

  it('counts drafts that ended early', () => {
    const drafts = Int32Array.from([1, 2, 3, 1, 0, 0]);
    expect(countDraftTokens(drafts, 2, 3, [3, 1], 1, [3, 1])).toMatchObject({
      proposed: 4,
      invalidated: 0,
      distinctProposed: 3,
    });
  });
});

/** A random step that could really happen: K drafts with their valid prefixes, and an accepted valid path. */
function randomStep(rng: Rng, L: number): StepCounts {
  const K = 1 + Math.floor(rng.uniform() * 4);
  const vocabulary = 1 + Math.floor(rng.uniform() * 3);
  const drafts = Int32Array.from({ length: K * L }, () => Math.floor(rng.uniform() * vocabulary));
  const validLengths = Array.from({ length: K }, () => Math.floor(rng.uniform() * (L + 1)));
  const longestValid = Math.max(...validLengths);
  return countDraftTokens(drafts, K, L, validLengths, Math.floor(rng.uniform() * (longestValid + 1)));
}

describe('counter properties over random runs', () => {
  it('D = R − I, A ≤ D, the histogram sums to steps and the ratios agree with the sums', () => {
    const rng = createRng(42);
    for (let run = 0; run < 200; run++) {
      const L = 1 + Math.floor(rng.uniform() * 8);
      let state = emptyCounters(L);
      let acceptedTotal = 0;
      const steps = 1 + Math.floor(rng.uniform() * 50);
      for (let s = 0; s < steps; s++) {
        const step = randomStep(rng, L);
        acceptedTotal += step.accepted;
        state = recordStep(state, step);
      }
      expect(eligible(state)).toBe(state.raw - state.invalidated);
      expect(state.accepted).toBeLessThanOrEqual(eligible(state));
      expect(state.accepted).toBe(acceptedTotal);
      expect(state.histogram.reduce((a, b) => a + b, 0)).toBe(state.steps);
      expect(state.histogram.reduce((sum, count, length) => sum + count * length, 0)).toBe(state.accepted);
      expect(state.acceptedAtLeast.reduce((a, b) => a + b, 0)).toBe(state.accepted);
      expect(state.distinctEligible).toBeLessThanOrEqual(eligible(state));
      const ratios = derivedRatios(state);
      expect(ratios.meanAcceptanceLength).toBeCloseTo(1 + state.accepted / state.steps, 12);
      if (state.raw > 0)
        expect(ratios.draftYield).toBeCloseTo((ratios.grammarSurvival ?? 0) * (ratios.conditionalAcceptance ?? 0), 12);
      const perPosition = perPositionAcceptance(state);
      for (let i = 1; i < perPosition.length; i++)
        expect(perPosition[i]).toBeLessThanOrEqual(perPosition[i - 1] as number);
    }
  });

  it('does not mutate the counters it was given', () => {
    const before = emptyCounters(2);
    recordStep(before, { proposed: 2, invalidated: 0, distinctProposed: 2, distinctEligible: 2, accepted: 2 });
    expect(before.steps).toBe(0);
    expect(before.histogram).toEqual([0, 0, 0]);
  });

  it.each([
    [{ proposed: 2, invalidated: 3, distinctProposed: 2, distinctEligible: 0, accepted: 0 }, /invalidated 3 of only 2/],
    [
      { proposed: 4, invalidated: 3, distinctProposed: 4, distinctEligible: 1, accepted: 2 },
      /more than its 1 grammar-valid/,
    ],
    [{ proposed: 8, invalidated: 0, distinctProposed: 8, distinctEligible: 8, accepted: 5 }, /more than L = 4/],
    [{ proposed: 4, invalidated: 0, distinctProposed: 5, distinctEligible: 4, accepted: 0 }, /distinct-node counts/],
    [
      { proposed: 4, invalidated: 0, distinctProposed: 4, distinctEligible: 4, accepted: -1 },
      /accepted must be a non-negative integer/,
    ],
  ])('rejects an impossible step %j', (step, message) => {
    expect(() => recordStep(emptyCounters(4), step)).toThrow(message);
  });
});

describe('the correctness scorecard', () => {
  it('counts each kind of completion and the schema-valid rate over all of them', () => {
    const kinds = ['valid', 'valid', 'truncated', 'invalid', 'dead-end', 'valid'] as const;
    const card = kinds.reduce(recordCompletion, EMPTY_SCORECARD);
    expect(card).toEqual({ completions: 6, valid: 3, invalid: 1, truncated: 1, deadEnds: 1 });
    expect(schemaValidRate(card)).toBe(0.5);
    expect(schemaValidRate(EMPTY_SCORECARD)).toBeNull();
  });
});
