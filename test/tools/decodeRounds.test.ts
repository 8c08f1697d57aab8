import { emptyCounters } from '../../src/core/metrics';
import { toCsv } from '../../tools/cli/csv';
import { describe, expect, it } from 'vitest';
import { spreadOf } from '../../src/core/fairTiming';
import { bootstrapInterval } from '../../src/core/bootstrap';
import {
  aheadSummary,
  decodeRowJson,
  formatDecodeRow,
  roundOrders,
  roundSpeedups,
  type DecodeRow,
} from '../../tools/bench/decodeBench';
import { sourceMarkdown, summaryOverPresets } from '../../tools/bench/decodeStatistics';
import {
  copyAcceptanceLines,
  formatGoals,
  formatSummary,
  stoppingTerm,
  summaryMarkdown,
} from '../../tools/bench/decodeGoals';
import { recordStep } from '../../src/core/metrics';
import type { MethodId } from '../../src/core/verify';

const row = (
  preset: string,
  method: DecodeRow['method'],
  K: number,
  L: number,
  speedups: number[],
  idealSpeedup: number | null,
  decodeMs = 40,
): DecodeRow => ({
  preset,
  method,
  K,
  L,
  drafter: 'model',
  draftedAhead: null,
  tokens: 40,
  forwards: 20,
  blockEfficiency: 2,
  meanAcceptanceLength: null,
  conditionalAcceptance: null,
  draftYield: null,
  grammarSurvival: null,
  counters: emptyCounters(Math.max(L, 1)),
  tokensPerSecond: 100,
  speedup: spreadOf(speedups).median,
  speedupOverJumpForward: null,
  idealSpeedup,
  valid: 2,
  positionsPerStep: null,
  perStep: { draft: 0, mask: 0, target: 0, verify: 0, kv: 0, overhead: 0, analysis: 0 },
  profile: { draft: 0, mask: 0, target: 0, verify: 0, kv: 0, other: 0, prefill: 0, setup: 0 },
  cpuMsPerStep: null,
  rounds: speedups.length,
  tokensPerSecondSpread: spreadOf([100]),
  speedupSpread: spreadOf(speedups),
  roundSpeedups: speedups,
  speedupInterval: bootstrapInterval(speedups),
  decode: { steps: 18, tokens: method === 'ar' ? 18 : 36, ms: decodeMs, draftMs: method === 'ar' ? 0 : decodeMs / 4 },
});

describe("the decode bench's rounds", () => {
  for (const [count, rounds] of [
    [4, 3],
    [3, 6],
    [2, 2],
    [1, 3],
  ] as const) {
    it(`${count} configurations × ${rounds} rounds: each round runs each once, and no configuration always follows the same one`, () => {
      const orders = roundOrders(count, rounds);
      expect(orders).toHaveLength(rounds);
      for (const order of orders) expect([...order].sort()).toEqual(Array.from({ length: count }, (_, index) => index));
      if (count < 2) return;
      for (let index = 0; index < count; index++) {
        const predecessors = new Set(orders.map((order) => order[order.indexOf(index) - 1]));
        expect(predecessors.size).toBeGreaterThan(1);
      }
      // Not always the first either.
      expect(new Set(orders.map((order) => order[0])).size).toBeGreaterThan(1);
    });
  }

  it('starts round r at configuration r, walking forwards on even rounds and backwards on odd ones', () => {
    expect(roundOrders(3, 3)).toEqual([
      [0, 1, 2],
      [1, 0, 2],
      [2, 0, 1],
    ]);
    expect(roundOrders(2, 2)).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it("divides each round's tokens/s by the same round's ar, then takes the median and range", () => {
    const spread = roundSpeedups([30, 20, 45], [20, 10, 30]);
    expect(spread.median).toBeCloseTo(1.5, 12);
    expect(spread.min).toBeCloseTo(1.5, 12);
    expect(spread.max).toBeCloseTo(2, 12);
    // Not the ratio of the medians (30 / 20), which pairs a slow round of one with a fast round of the other.
    expect(roundSpeedups([10, 40, 20], [5, 40, 20]).median).toBeCloseTo(1, 12);
    expect(() => roundSpeedups([1, 2], [1])).toThrow(/rounds/);
  });

  it('prints the median speedup with its 95% interval over rounds and the verdict', () => {
    expect(formatDecodeRow(row('person', 'tokenwise', 1, 4, [1.31, 1.52, 1.7, 1.4, 1.6], 2.6))).toContain(
      '| 1.52× [1.31–1.70] faster | 2.60× |',
    );
    expect(formatDecodeRow(row('person', 'tokenwise', 1, 4, [1.31, 1.52, 1.7], 2.6))).toContain(
      '| 1.52× [1.31–1.70] too few samples (under 5) | 2.60× |',
    );
  });
});

describe("the decode bench's summary over presets", () => {
  it('keeps each drafter a configuration of its own, labelled by its drafter', () => {
    const plain = row('preset0', 'tokenwise', 1, 4, [1.2], 2);
    const free = { ...row('preset0', 'tokenwise', 1, 4, [1.7], 2), drafter: 'model+grammar+lookup' as const };
    const summaries = summaryOverPresets([row('preset0', 'ar', 1, 0, [1], 1), plain, free]);
    expect(summaries.map(({ drafter, speedup }) => [drafter, speedup])).toEqual([
      ['model', 1.2],
      ['model+grammar+lookup', 1.7],
    ]);
    expect(formatDecodeRow(free)).toContain('| tokenwise (model+grammar+lookup) | 1 | 4 |');
    expect(formatSummary(summaries)).toContain('tokenwise (model+grammar+lookup) K = 1, L = 4: 1.70×');
  });

  it('keeps a row drafting ahead apart from the same row drafting after, labelled so, with the early blocks it took', () => {
    const after = { ...row('preset0', 'tokenwise', 1, 4, [1.7], 2), drafter: 'model+grammar' as const };
    const ahead = {
      ...after,
      ...row('preset0', 'tokenwise', 1, 4, [1.5], 2),
      drafter: 'model+grammar' as const,
      draftingAhead: true as const,
      draftedAhead: { drafted: 20, taken: 13 },
    };
    const summaries = summaryOverPresets([row('preset0', 'ar', 1, 0, [1], 1), after, ahead]);
    expect(summaries.map(({ draftingAhead, speedup }) => [draftingAhead ?? false, speedup])).toEqual([
      [false, 1.7],
      [true, 1.5],
    ]);
    expect(formatDecodeRow(ahead)).toContain('| tokenwise (model+grammar, drafting ahead) | 1 | 4 |');
    expect(formatSummary(summaries)).toContain('tokenwise (model+grammar, drafting ahead) K = 1, L = 4: 1.50×');
    // The bound on drafting ahead is the drafting-after row's; the row that drafts ahead has measured it.
    expect(formatSummary(summaries)).toMatch(/drafting ahead\) K = 1, L = 4: 1\.50× \([^)]*drafting ahead at most —\)/);
    expect(formatSummary(summaries)).toMatch(
      /\(model\+grammar\) K = 1, L = 4: 1\.70× \([^)]*drafting ahead at most \d/,
    );
    expect(aheadSummary([after, ahead])).toBe(
      'Drafting ahead: early blocks the step after took, of those drafted (one round):\n- preset0, tokenwise (model+grammar, drafting ahead) K = 1 L = 4: 13 of 20 (65%)',
    );
  });

  const speculative = (
    method: MethodId,
    K: number,
    L: number,
    medians: number[],
    ideals: number[],
    decodeMs: number[],
  ) =>
    medians.map((median, index) =>
      row(
        `preset${index}`,
        method,
        K,
        L,
        [median - 0.02, median - 0.01, median, median + 0.01, median + 0.02],
        ideals[index] as number,
        decodeMs[index],
      ),
    );
  // ar's steps after the first cost 40 ms for 18 tokens, so a speculative row's 18 steps cost decodeMs / 40 ar
  // tokens each, and all L + 1 = 5 tokens a step would give 200 / decodeMs; a quarter of each step is drafting,
  // so with it hidden the 2 tokens a step would give 80 / (0.75 · decodeMs).
  const rows = [
    ...['preset0', 'preset1', 'preset2'].map((preset) => row(preset, 'ar', 1, 0, [1, 1, 1], 1)),
    ...speculative('tokenwise', 1, 4, [1.2, 1.6, 1.5], [2.4, 3.0, 2.8], [100, 125, 160]),
    ...speculative('spectr-gbv', 3, 4, [0.9, 1.1, 0.7], [2.5, 2.9, 3.1], [200, 250, 400]),
  ];

  it("takes, per speculative configuration, the median over presets of each row's median speedup, of its ideal and of this machine's ceiling", () => {
    const summaries = summaryOverPresets(rows);
    expect(summaries.map(({ method, K, L, presets }) => ({ method, K, L, presets }))).toEqual([
      { method: 'tokenwise', K: 1, L: 4, presets: 3 },
      { method: 'spectr-gbv', K: 3, L: 4, presets: 3 },
    ]);
    expect(summaries[0]?.speedup).toBeCloseTo(1.5, 12);
    expect(summaries[0]?.idealSpeedup).toBeCloseTo(2.8, 12);
    expect(summaries[1]?.speedup).toBeCloseTo(0.9, 12);
    expect(summaries[1]?.idealSpeedup).toBeCloseTo(2.9, 12);
    expect(summaries[0]?.ceiling).toBeCloseTo(1.6, 12);
    expect(summaries[1]?.ceiling).toBeCloseTo(0.8, 12);
    expect(summaries[0]?.draftingHidden).toBeCloseTo(80 / 93.75, 12);
    expect(summaries[1]?.draftingHidden).toBeCloseTo(80 / 187.5, 12);
    expect(formatSummary(summaries)).toBe(
      "**Median over presets** of each row's median speedup over ar, with the ideal, this machine's ceiling (every draft accepted, at the measured step cost), the bound with drafting wholly hidden and the most that drafting the next block during verification could give (drafting hidden after blocks accepted whole only; both at the measured block efficiency): tokenwise K = 1, L = 4: 1.50× (ideal 2.80×; ceiling here 1.60×; drafting hidden 0.85×; drafting ahead at most 0.64×); spectr-gbv K = 3, L = 4: 0.90× (ideal 2.90×; ceiling here 0.80×; drafting hidden 0.43×; drafting ahead at most 0.32×)",
    );
  });

  it('states each speculative row over ar+jump-forward too, and says why a goal is out of reach with the step priced in ar tokens and in ar+jump-forward tokens', () => {
    const jump = (preset: string) => ({
      ...row(preset, 'ar+jump-forward', 1, 8, [1.1, 1.2, 1.3], 1.3),
      decode: { steps: 15, tokens: 18, ms: 36, draftMs: 0 },
    });
    const withJump = [...rows, ...['preset0', 'preset1', 'preset2'].map(jump)].map((candidate) =>
      candidate.method === 'tokenwise' || candidate.method === 'spectr-gbv'
        ? { ...candidate, speedupOverJumpForward: candidate.speedup / 1.2 }
        : candidate,
    );
    const summaries = summaryOverPresets(withJump);
    // The baselines are not summarised as speculative rows.
    expect(summaries.map(({ method }) => method)).toEqual(['tokenwise', 'spectr-gbv']);
    expect(summaries[0]?.speedupOverJumpForward).toBeCloseTo(1.25, 12);
    expect(formatSummary(summaries)).toContain(
      'tokenwise K = 1, L = 4: 1.50× (1.25× over ar+jump-forward; ideal 2.80×',
    );
    const markdown = summaryMarkdown(withJump);
    expect(markdown).toContain(
      '**ar+jump-forward** (no draft model; forced text up to L = 8 tokens a forward, each kept with p(x)): 1.20× over ar, 2.00 tokens per target forward',
    );
    // tokenwise: a step costs 125 / 40 = 3.125 ar tokens, so 5 tokens a step give 1.6×: the goal is within the ceiling, the drafts fall short.
    // spectr-gbv: 250 / 40 = 6.25 ar tokens a step, 0.8× at best: out of reach, a step would have to cost under 4 ar tokens.
    // Against ar+jump-forward (36 ms for 18 tokens, 2 ms a token): tokenwise's median step costs 125 / 18 / 2 = 3.47 of
    // its tokens, spectr-gbv's 250 / 18 / 2 = 6.94.
    expect(summaries[0]?.pricingOverJumpForward?.preset).toBe('preset1');
    expect(summaries[0]?.pricingOverJumpForward?.step).toBeCloseTo(125 / 36, 12);
    expect(summaries[1]?.pricingOverJumpForward?.ceiling).toBeCloseTo(0.72, 12);
    expect(formatGoals(summaries)?.split('\n').slice(2)).toEqual([
      '- tokenwise K = 1, L = 4, goal 1.60× over ar: 1.50× [1.48–1.52, 95% over 5 rounds] (1.25× over ar+jump-forward), not met: the interval lies below the goal; the ceiling here (1.60×) allows it, but on preset1, the median preset, at 3.13 ar tokens a step it needs 5.00 tokens a step and the drafts gave 2.00. Against ar+jump-forward, on preset1 (its median preset), a step costs 3.47 of its tokens: every draft accepted gives 1.44× over it, and 1.60× over it needs 5.56 tokens a step (the drafts gave 2.00).',
      '- spectr-gbv K = 3, L = 4, goal 1.25× over ar: 0.90× [0.88–0.92, 95% over 5 rounds] (0.75× over ar+jump-forward), out of reach on this machine: on preset1, the median preset, a step costs 6.25 ar tokens, so even every draft accepted (5 tokens a step) gives 0.80×; the goal needs a step under 4.00 ar tokens. Against ar+jump-forward, on preset1 (its median preset), a step costs 6.94 of its tokens: every draft accepted gives 0.72× over it, and 1.25× over it needs 8.68 tokens a step (the drafts gave 2.00).',
    ]);
    expect(
      formatGoals(summaryOverPresets([row('preset0', 'ar', 1, 0, [1], 1), row('preset0', 'gbv', 1, 2, [1.7], 2)])),
    ).toBeNull();
  });

  it('judges a goal by the verdict rule with the goal as threshold, and never explains a miss with figures that meet it', () => {
    const ar = row('preset0', 'ar', 1, 0, [1, 1, 1, 1, 1], 1);
    const goal = (speedups: number[], decodeMs = 100) =>
      formatGoals(summaryOverPresets([ar, row('preset0', 'tokenwise', 1, 4, speedups, 2.6, decodeMs)]))?.split('\n')[2];
    expect(goal([1.7, 1.75, 1.8, 1.72, 1.78])).toBe(
      '- tokenwise K = 1, L = 4, goal 1.60× over ar: 1.75× [1.70–1.80, 95% over 5 rounds], met: the interval lies above the goal.',
    );
    // The reported line: 1.58× against 1.6×, within the rounds' noise, is neither met nor not met.
    expect(goal([1.5, 1.58, 1.65, 1.55, 1.62])).toBe(
      '- tokenwise K = 1, L = 4, goal 1.60× over ar: 1.58× [1.50–1.65, 95% over 5 rounds], within noise of the goal: the interval holds 1.60× (more --rounds narrow it).',
    );
    expect(goal([1.7, 1.75, 1.8])).toContain('not judged: fewer than 5 rounds');
    // Steps of 40 ms at 40 / 18 ms an ar token: 18 ar tokens a step... priced at 0.8 ar tokens, the steps after the
    // first would give 2.5×: the miss is the first step's.
    const line = goal([1.3, 1.35, 1.4, 1.32, 1.38], 32);
    expect(line).toContain(
      "not met: the interval lies below the goal, though the steps after each run's first would meet it (on preset0, the median preset, at 0.80 ar tokens a step it needs 1.28 tokens a step and the drafts gave 2.00): the shortfall is each run's first step (prefill) and setup",
    );
    expect(line).not.toContain('allows it, but');
  });

  it('names the term that stops a head goal: target positions, the first step, head cost or acceptance', () => {
    const priced = (step: number, undrafted: number, tokens: number, laterSteps: number, draftingHidden: number) => ({
      preset: 'person',
      step,
      undrafted,
      tokens,
      laterSteps,
      ceiling: 5 / step,
      draftingHidden,
      draftAhead: (laterSteps + draftingHidden) / 2,
    });
    // 5 tokens a step at most (L = 4): a step of 4 ar tokens without drafting caps it at 1.25×.
    expect(stoppingTerm(1.8, 4, priced(5, 4, 3, 0.6, 0.75))).toMatch(/^target positions stop it: .* gives 1\.25×$/);
    // Drafting is 2 of 4 tokens; without it the steps would give 1.5× ≥ 1.4.
    expect(stoppingTerm(1.4, 4, priced(4, 2, 3, 0.75, 1.5))).toBe(
      'head cost stops it: on person, the median preset, drafting costs 2.00 tokens a step; without it the steps would give 1.50×, and drafting the next block during verification at most 1.13×',
    );
    expect(stoppingTerm(1.4, 4, priced(4, 2, 3, 0.75, 1.5), 'copying')).toMatch(/^copying cost stops it: /);
    expect(stoppingTerm(1.8, 4, priced(4, 2, 3, 0.75, 1.5))).toMatch(
      /^acceptance stops it: on person, the median preset, at 4\.00 tokens a step it needs 7\.20 tokens a step and the drafts gave 3\.00/,
    );
    // The steps after each run's first meet the goal: the miss is the first step's, whatever drafting costs.
    expect(stoppingTerm(1.25, 4, priced(2.4, 2.36, 3.38, 1.3, 1.32), 'copying')).toMatch(
      /^each run's first step \(prefill\) and setup stop it: on person, the median preset, the steps after it give 1\.30×/,
    );
  });

  it("prints one preset's figures throughout a goal line: the median preset's, never medians taken figure by figure", () => {
    // At 2 ms an ar token, the later steps give 2.4 / 1.5 = 1.60× on preset0, 3.6 / 1.8 = 2.00× on preset1 and
    // 3.75 / 2.5 = 1.50× on preset2. Taken figure by figure the medians (a 1.80 step, 3.60 tokens) would read as
    // meeting 1.80×, against the verdict; preset0 is the median preset, and its own figures agree with it.
    const ar = (preset: string) => row(preset, 'ar', 1, 0, [1, 1, 1, 1, 1], 1, 36);
    const later = (preset: string, step: number, tokens: number): DecodeRow => ({
      ...row(preset, 'tokenwise', 1, 4, [1.4, 1.42, 1.45, 1.43, 1.41], 2.6),
      drafter: 'copy',
      decode: { steps: 20, tokens: 20 * tokens, ms: 20 * step * 2, draftMs: 0 },
    });
    const summaries = summaryOverPresets([
      ...['preset0', 'preset1', 'preset2'].map(ar),
      later('preset0', 1.5, 2.4),
      later('preset1', 1.8, 3.6),
      later('preset2', 2.5, 3.75),
    ]);
    expect(summaries[0]?.pricing).toMatchObject({ preset: 'preset0', step: 1.5, tokens: 2.4 });
    const line = formatGoals(summaries)
      ?.split('\n')
      .find((each) => each.includes('goals 1.80× over ar'));
    expect(line).toContain(
      'not met: acceptance stops it: on preset0, the median preset, at 1.50 tokens a step it needs 2.70 tokens a step and the drafts gave 2.40',
    );
    expect(line).not.toContain('3.60');
  });

  it('states the head+grammar goals over ar and over ar+jump-forward on their own lines', () => {
    const jump = (preset: string) => ({
      ...row(preset, 'ar+jump-forward', 1, 8, [1.1, 1.2, 1.3], 1.3),
      decode: { steps: 15, tokens: 18, ms: 36, draftMs: 0 },
    });
    const head = rows
      .filter((candidate) => candidate.method === 'tokenwise')
      .map((candidate) => ({
        ...candidate,
        drafter: 'head+grammar' as const,
        speedupOverJumpForward: candidate.speedup / 1.2,
        roundSpeedups: [1.45, 1.48, 1.5, 1.52, 1.55],
      }));
    const goals =
      formatGoals(
        summaryOverPresets([
          ...rows.filter((candidate) => candidate.method === 'ar'),
          ...['preset0', 'preset1', 'preset2'].map(jump),
          ...head,
        ]),
      )
        ?.split('\n')
        .slice(2) ?? [];
    const line = goals.find((each) => each.includes('goals 1.80× over ar and 1.25× over ar+jump-forward'));
    expect(line).toMatch(
      /^- tokenwise \(head\+grammar\) K = 1, L = 4, .*: 1\.50× \[1\.45–1\.55, 95% over 5 rounds\] over ar, not met: acceptance stops it: .* \(in ar tokens\); 1\.25× over ar\+jump-forward \(median over presets; no per-round verdict\), at or above the goal\.$/,
    );
  });
});

describe('the bench by source, and the copy goal', () => {
  /** A copy row whose one step drafted 4 grammar tokens (all kept), `copied` copies (`kept` kept) and 2 model tokens (1 kept). */
  const copyRow = (preset: string, copied: number, kept: number): DecodeRow => {
    const bySource = {
      model: { drafted: 2, invalidated: 0, accepted: 1 },
      head: { drafted: 0, invalidated: 0, accepted: 0 },
      grammar: { drafted: 4, invalidated: 0, accepted: 4 },
      copy: { drafted: copied, invalidated: 0, accepted: kept },
      lookup: { drafted: 0, invalidated: 0, accepted: 0 },
    };
    const proposed = 6 + copied;
    const counters = recordStep(emptyCounters(16), {
      proposed,
      invalidated: 0,
      distinctProposed: proposed,
      distinctEligible: proposed,
      accepted: 5 + kept,
      bySource,
    });
    return { ...row(preset, 'tokenwise', 1, 16, [1.5], 2), drafter: 'model+grammar+copy', counters };
  };

  it('gives each source that drafted its A/D and its accepted tokens a step, which sum to A/steps', () => {
    const table = sourceMarkdown([row('person', 'ar', 1, 0, [1], 1), copyRow('person', 5, 4)])?.split('\n') ?? [];
    expect(table.slice(4)).toEqual([
      '| person | tokenwise (model+grammar+copy) | 1 | 16 | model | 2 | 0 | 1 | 0.50 | 1.00 |',
      '| person | tokenwise (model+grammar+copy) | 1 | 16 | grammar | 4 | 0 | 4 | 1.00 | 4.00 |',
      '| person | tokenwise (model+grammar+copy) | 1 | 16 | copy | 5 | 0 | 4 | 0.80 | 4.00 |',
    ]);
    expect(sourceMarkdown([row('person', 'ar', 1, 0, [1], 1)])).toBeNull();
  });

  it('meets the copy goal only where every preset that copied reaches A/D 0.8, naming the ones that do not', () => {
    expect(copyAcceptanceLines([copyRow('person', 5, 4), copyRow('order', 10, 9)])?.split('\n')[2]).toBe(
      '- tokenwise (model+grammar+copy) K = 1, L = 16, goal A/D ≥ 0.80 on copied tokens on every preset that copies: person 0.80, order 0.90; met.',
    );
    expect(copyAcceptanceLines([copyRow('person', 5, 4), copyRow('event', 4, 1)])).toMatch(
      /event 0\.25; not met on event\.$/,
    );
    // A preset that copied nothing is not judged; no copying at all, no lines.
    expect(copyAcceptanceLines([copyRow('person', 5, 4), copyRow('sentiment', 0, 0)])).toMatch(/person 0\.80; met\.$/);
    expect(copyAcceptanceLines([row('person', 'tokenwise', 1, 4, [1.5], 2)])).toBeNull();
    // With K drafts, D counts a shared copy K times: those rows are not judged.
    expect(copyAcceptanceLines([{ ...copyRow('person', 5, 4), K: 3, method: 'spectr-gbv' }])).toBeNull();
  });
});

describe("the bench's JSON rows", () => {
  it('use snake_case keys and carry R, I, D, A and steps beside the ratios', () => {
    const json = decodeRowJson(row('person', 'tokenwise', 1, 4, [1.3, 1.5], 2.6));
    expect(json).toMatchObject({
      preset: 'person',
      method: 'tokenwise',
      K: 1,
      L: 4,
      block_efficiency: 2,
      tokens_per_second: 100,
      ideal_speedup: 2.6,
      R: 0,
      I: 0,
      D: 0,
      A: 0,
      steps: 0,
    });
    expect(Object.keys(json).filter((key) => /[a-z][A-Z]/.test(key))).toEqual([]);
    expect(json).not.toHaveProperty('counters');
  });

  it('marks a row "within noise" where its speedup interval over rounds holds 1.0, in the table, the JSON and the CSV', () => {
    const noisy = row('person', 'tokenwise', 1, 4, [0.9, 1.2, 1.4, 1.1, 1.3], 2.6);
    const clear = row('person', 'tokenwise', 1, 4, [1.3, 1.5, 1.6, 1.4, 1.55], 2.6);
    expect(formatDecodeRow(noisy)).toContain('| 1.20× [0.90–1.40] within noise |');
    expect(formatDecodeRow(clear)).toContain('| 1.50× [1.30–1.60] faster |');
    expect(decodeRowJson(noisy)).toMatchObject({
      speedup_ci95: { low: 0.9, high: 1.4 },
      speedup_within_noise_of_ar: true,
      speedup_verdict: 'within noise',
    });
    expect(decodeRowJson(clear)).toMatchObject({ speedup_within_noise_of_ar: false, speedup_verdict: 'faster' });
    expect(decodeRowJson(row('person', 'ar', 1, 0, [1, 1, 1], 1))).not.toHaveProperty('speedup_ci95');
    const [header, line] = toCsv([decodeRowJson(noisy)])
      .trim()
      .split('\n')
      .map((text) => text.split(','));
    expect(line?.[header?.indexOf('speedup_ci95_low') ?? -1]).toBe('0.9');
    expect(line?.[header?.indexOf('speedup_within_noise_of_ar') ?? -1]).toBe('true');
  });
});

describe('--csv', () => {
  it('writes scalar columns only, quoting where needed, never an object', () => {
    expect(
      toCsv([
        { a: 1, b: null, c: { x: 1 } },
        { a: 'x,y', b: { x: 2 }, c: null },
      ]),
    ).toBe('a\n1\n"x,y"\n');
  });
});
