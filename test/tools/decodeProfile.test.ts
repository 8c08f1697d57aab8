import { emptyCounters } from '../../src/core/metrics';
import { describe, expect, it } from 'vitest';
import { spreadOf } from '../../src/core/fairTiming';
import { bootstrapInterval } from '../../src/core/bootstrap';
import { PROFILE_PHASES, type DecodeRow, type DecodeSteps, type PhaseProfile } from '../../tools/bench/decodeBench';
import {
  excessOverIdeal,
  formatAllowanceRow,
  formatExcessRow,
  machineAllowance,
  profileMarkdown,
} from '../../tools/bench/decodeStatistics';

const profile = (values: Partial<PhaseProfile>): PhaseProfile => ({
  draft: 0,
  mask: 0,
  target: 0,
  verify: 0,
  kv: 0,
  other: 0,
  prefill: 0,
  setup: 0,
  ...values,
});
const row = (
  method: DecodeRow['method'],
  K: number,
  L: number,
  phases: PhaseProfile,
  forwards: number,
  tokens: number,
  decode: DecodeSteps = { steps: forwards - 2, tokens: tokens - 2, ms: 0, draftMs: 0 },
): DecodeRow => ({
  preset: 'person',
  method,
  K,
  L,
  drafter: 'model',
  draftedAhead: null,
  tokens,
  forwards,
  blockEfficiency: tokens / forwards,
  meanAcceptanceLength: null,
  conditionalAcceptance: null,
  draftYield: null,
  grammarSurvival: null,
  counters: emptyCounters(Math.max(L, 1)),
  tokensPerSecond: 0,
  speedup: 0,
  speedupOverJumpForward: null,
  idealSpeedup: null,
  valid: 0,
  positionsPerStep: null,
  perStep: { draft: 0, mask: 0, target: 0, verify: 0, kv: 0, overhead: 0, analysis: 0 },
  profile: phases,
  cpuMsPerStep: null,
  rounds: 1,
  tokensPerSecondSpread: spreadOf([0]),
  speedupSpread: spreadOf([0]),
  roundSpeedups: [0],
  speedupInterval: bootstrapInterval([0]),
  decode,
});

describe("the decode bench's excess over the ideal", () => {
  const ar = row(
    'ar',
    1,
    0,
    profile({ target: 1.5, mask: 0.1, verify: 0.05, other: 0.05, prefill: 0.2, setup: 0.1 }),
    40,
    40,
  );
  const tokenwise = row(
    'tokenwise',
    1,
    4,
    profile({ draft: 0.6, mask: 0.3, target: 2.0, verify: 0.3, kv: 0.2, other: 0.1, prefill: 0.5, setup: 0.3 }),
    12,
    40,
  );

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
    // Its profile row, its excess row and its allowance row.
    expect(markdown.split('\n').filter((line) => line.startsWith('| person | tokenwise'))).toHaveLength(3);
    expect(markdown.split('\n').filter((line) => line.startsWith('| person | ar'))).toHaveLength(1);
  });
});

describe('what the machine allows', () => {
  // ar: 38 tokens after the first steps in 76 ms, 2 ms a token; tokenwise: 10 steps of 7 ms emitting 32 tokens.
  // 16 of tokenwise's 70 ms are drafting.
  const ar = row('ar', 1, 0, profile({}), 40, 40, { steps: 38, tokens: 38, ms: 76, draftMs: 0 });
  const tokenwise = {
    ...row('tokenwise', 1, 4, profile({}), 12, 40, { steps: 10, tokens: 32, ms: 70, draftMs: 16 }),
    // Half of the 12 steps accepted all 4 drafts.
    counters: { ...emptyCounters(4), steps: 12, histogram: [2, 1, 1, 2, 6] },
  };

  it('prices a step in ar tokens, and gives the speedup at the measured and at full acceptance', () => {
    const allowance = machineAllowance(tokenwise, ar);
    expect(allowance?.stepInArTokens).toBeCloseTo(3.5, 12);
    expect(allowance?.blockEfficiency).toBeCloseTo(3.2, 12);
    expect(allowance?.speedup).toBeCloseTo(3.2 / 3.5, 12);
    // Every draft accepted: L + 1 = 5 tokens a step, at the same 3.5 ar tokens' cost.
    expect(allowance?.ceiling).toBeCloseTo(5 / 3.5, 12);
    // Without its 1.6 ms of drafting a step costs 5.4 ms, 2.7 ar tokens.
    expect(allowance?.draftingHidden).toBeCloseTo(3.2 / 2.7, 12);
    // Drafted ahead, only the drafting after the 6 whole blocks of 12 is hidden: 0.8 ms a step, 3.1 ar tokens.
    expect(allowance?.draftAhead).toBeCloseTo(3.2 / 3.1, 12);
    expect(formatAllowanceRow(tokenwise, ar)).toBe(
      '| person | tokenwise | 1 | 4 | 2.000 | 7.000 | 3.50 | 3.20 | 0.91× | 1.43× | 1.19× | 1.03× | 5.25 |',
    );
  });

  it('has nothing to say of a row whose runs all ended in their first step', () => {
    const short = row('tokenwise', 1, 4, profile({}), 2, 8, { steps: 0, tokens: 0, ms: 0, draftMs: 0 });
    expect(machineAllowance(short, ar)).toBeNull();
    expect(formatAllowanceRow(short, ar)).toBe(
      '| person | tokenwise | 1 | 4 | 2.000 | — | — | — | — | — | — | — | — |',
    );
  });

  it('is the last table of the profile, one row per speculative row', () => {
    const markdown = profileMarkdown([ar, tokenwise], 0.05);
    expect(markdown.trimEnd().endsWith(formatAllowanceRow(tokenwise, ar))).toBe(true);
  });
});
