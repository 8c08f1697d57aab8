import { describe, expect, it } from 'vitest';
import { spreadOf } from '../../src/core/fairTiming';
import { excessOverIdeal, formatExcessRow, PROFILE_PHASES, profileMarkdown, type DecodeRow, type PhaseProfile } from '../../tools/bench/decodeBench';

const profile = (values: Partial<PhaseProfile>): PhaseProfile => ({ draft: 0, mask: 0, target: 0, verify: 0, kv: 0, other: 0, prefill: 0, setup: 0, ...values });
const row = (method: DecodeRow['method'], K: number, L: number, phases: PhaseProfile, forwards: number, tokens: number): DecodeRow => ({
  preset: 'person', method, K, L, tokens, forwards, blockEfficiency: tokens / forwards, meanAcceptanceLength: null, conditionalAcceptance: null, draftYield: null, grammarSurvival: null,
  tokensPerSecond: 0, speedup: 0, idealSpeedup: null, valid: 0, positionsPerStep: null, perStep: { draft: 0, mask: 0, target: 0, verify: 0, kv: 0, overhead: 0, analysis: 0 }, profile: phases, cpuMsPerStep: null,
  rounds: 1, tokensPerSecondSpread: spreadOf([0]), speedupSpread: spreadOf([0]),
});

describe("the decode bench's excess over the ideal", () => {
  const ar = row('ar', 1, 0, profile({ target: 1.5, mask: 0.1, verify: 0.05, other: 0.05, prefill: 0.2, setup: 0.1 }), 40, 40);
  const tokenwise = row('tokenwise', 1, 4, profile({ draft: 0.6, mask: 0.3, target: 2.0, verify: 0.3, kv: 0.2, other: 0.1, prefill: 0.5, setup: 0.3 }), 12, 40);

  it('splits the measured step less the ideal step into per-phase excesses that add up', () => {
    const c = 0.05;
    const { measured, ideal, excess } = excessOverIdeal(tokenwise, ar, c);
    expect(measured).toBeCloseTo(4.3, 12);
    // (L·c + 1) ar steps of 2.0 ms.
    expect(ideal).toBeCloseTo((4 * c + 1) * 2.0, 12);
    expect(PROFILE_PHASES.reduce((sum, phase) => sum + excess[phase], 0)).toBeCloseTo(measured - ideal, 12);
    // Drafting is allowed L·c ar steps; every other phase is allowed ar's own time in it.
    expect(excess.draft).toBeCloseTo(0.6 - 4 * c * 2.0, 12);
    expect(excess.target).toBeCloseTo(0.5, 12);
    expect(excess.kv).toBeCloseTo(0.2, 12);
  });

  it('prints one excess row per speculative row, against the ar row of its preset', () => {
    const markdown = profileMarkdown([ar, tokenwise], 0.05);
    expect(markdown).toContain(formatExcessRow(tokenwise, ar, 0.05));
    expect(markdown.split('\n').filter((line) => line.startsWith('| person | tokenwise'))).toHaveLength(2);
    expect(markdown.split('\n').filter((line) => line.startsWith('| person | ar'))).toHaveLength(1);
  });
});
