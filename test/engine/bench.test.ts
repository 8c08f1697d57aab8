/**
 * The engineer's bench on the bundled models (wasm EP, tiny token budgets): every sweep cell and scorecard
 * row keeps the counter identities, sums its runs' own counters, and the formats carry them unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCounters, derivedRatios, eligible, type Counters } from '../../src/core/metrics';
import {
  bestCell,
  scorecardCsv,
  scorecardRowJson,
  sweepCellJson,
  sweepCsv,
  sweepMarkdown,
} from '../../src/contract/bench';
import { DECODE_METHODS, findPreset, presetParams, type RunParams } from '../../src/contract/runParams';
import type { RunReport } from '../../src/contract/runReport';
import { race, scorecard, sweep, sweepCells } from '../../src/engine/bench';
import { SpecEngine } from '../../src/engine/engine';
import { ajvValidator } from '../support/ajvValidator';
import { bundledPair } from '../support/models';

function expectIdentities(counters: Counters): void {
  expect(eligible(counters)).toBe(counters.raw - counters.invalidated);
  expect(counters.accepted).toBeLessThanOrEqual(eligible(counters));
  expect(counters.histogram.reduce((a, b) => a + b, 0)).toBe(counters.steps);
  expect(counters.histogram.length).toBe(counters.L + 1);
}

describe('the bench on the bundled models', () => {
  let engine: SpecEngine;
  /** Every run the bench asked for, in order. */
  const runs: RunReport[] = [];
  const run = async (params: RunParams) => {
    const report = await engine.run(params);
    runs.push(report);
    return report;
  };
  beforeAll(async () => {
    engine = SpecEngine.create(await bundledPair(), ajvValidator);
  });
  afterAll(() => engine.dispose());

  it('a 2 × 2 sweep: one cell per (K, L), counters summed from its own seeds, speedup against ar on the same seeds', async () => {
    runs.length = 0;
    const base = presetParams(findPreset('person'), { method: 'spectr-gbv', maxTokens: 10, temperature: 1, seed: 3 });
    const progress: number[] = [];
    const cells = await sweep(
      run,
      { base, Ks: [1, 2], Ls: [2, 3], seeds: 2 },
      { onProgress: (done, total) => progress.push(done / total) },
    );
    expect(cells.map(({ K, L }) => [K, L])).toEqual([
      [1, 2],
      [1, 3],
      [2, 2],
      [2, 3],
    ]);
    expect(progress.at(-1)).toBe(1);
    // Two warm-ups, then per cell and seed one ar run and one of the method.
    expect(runs).toHaveLength(2 + 4 * 2 * 2);
    for (const cell of cells) {
      expectIdentities(cell.counters);
      const own = runs
        .slice(2)
        .filter(
          (report) => report.params.method === 'spectr-gbv' && report.params.K === cell.K && report.params.L === cell.L,
        );
      expect(own.map((report) => report.params.seed)).toEqual([3, 4]);
      expect(cell.counters).toEqual(own.map((report) => report.counters).reduce(addCounters));
      const json = sweepCellJson(cell);
      expect(json.D).toBe(json.R - json.I);
      expect(json.A).toBeLessThanOrEqual(json.D);
      expect(json.acceptance_histogram.reduce((a, b) => a + b, 0)).toBe(json.steps);
      expect(json.mean_acceptance_length).toBeCloseTo(1 + json.A / json.steps, 4);
      expect(json.speedup).toBeGreaterThan(0);
      expect(cell.speedup.min).toBeLessThanOrEqual(cell.speedup.median);
      expect(cell.speedup.median).toBeLessThanOrEqual(cell.speedup.max);
      expect(cell.speedup.n).toBe(2);
    }
    // ar and the method alternate which goes first from seed to seed.
    const timed = runs.slice(2).map((report) => report.params.method);
    expect(timed.slice(0, 4)).toEqual(['ar', 'spectr-gbv', 'spectr-gbv', 'ar']);
    const best = bestCell(cells, 'meanAcceptanceLength');
    expect(Math.max(...cells.map((cell) => derivedRatios(cell.counters).meanAcceptanceLength as number))).toBe(
      derivedRatios(best?.counters as Counters).meanAcceptanceLength,
    );
    expect(sweepMarkdown(cells, 'meanAcceptanceLength')).toContain(
      `**${derivedRatios(best?.counters as Counters).meanAcceptanceLength?.toFixed(2)}**`,
    );
    expect(sweepCsv(cells).trim().split('\n')).toHaveLength(1 + cells.length);
  });

  it('single-draft methods sweep L only; ar cannot be swept', () => {
    const base = presetParams(findPreset('person'), { method: 'gbv' });
    expect(sweepCells({ base, Ks: [1, 2, 3], Ls: [2, 4] })).toEqual([
      { K: 1, L: 2 },
      { K: 1, L: 4 },
    ]);
    expect(() => sweepCells({ base: { ...base, method: 'ar' }, Ks: [1], Ls: [2] })).toThrow(/ar drafts nothing/);
  });

  it('scorecard rows: one per preset and constraint state, with consistent counters and validity judged by ajv', async () => {
    runs.length = 0;
    const rows = await scorecard(run, ajvValidator, {
      presets: ['sentiment', 'reasoning'],
      seeds: 2,
      base: { method: 'spectr-gbv', K: 2, L: 3, temperature: 1, maxTokens: 12, drafting: 'validate', seed: 5 },
    });
    expect(rows.map((row) => [row.preset, row.constrained])).toEqual([
      ['sentiment', true],
      ['sentiment', false],
      ['reasoning', true],
      ['reasoning', false],
    ]);
    expect(runs).toHaveLength(1 + 4 * 2);
    for (const row of rows) {
      expectIdentities(row.counters);
      const own = runs
        .slice(1)
        .filter(
          (report) =>
            report.params.prompt === findPreset(row.preset).prompt &&
            (report.params.schemaText !== null) === row.constrained,
        );
      expect(own).toHaveLength(2);
      expect(row.counters).toEqual(own.map((report) => report.counters).reduce(addCounters));
      if (!row.constrained) expect(row.counters.invalidated).toBe(0);
      const json = scorecardRowJson(row);
      expect(json.completions).toBe(2);
      expect(json.schema_valid + json.parse_errors + json.schema_errors + json.truncated + json.dead_ends).toBe(2);
      expect(json.D).toBe(json.R - json.I);
      expect(json.A).toBeLessThanOrEqual(json.D);
      expect(json.acceptance_histogram.reduce((a, b) => a + b, 0)).toBe(json.steps);
      expect(json.bonus_tokens).toBe(json.acceptance_histogram[3]);
      expect(json.seeds).toBe('5..6');
      expect([json.method, json.K, json.L, json.temperature]).toEqual(['spectr-gbv', 2, 3, 1]);
      expect(json.tokens).toBe(own.reduce((sum, report) => sum + report.tokens.length, 0));
    }
    // 12 tokens cut the reasoning preset off before its JSON ends: truncated, not called valid.
    expect(rows.find((row) => row.preset === 'reasoning' && row.constrained)?.card.valid).toBe(0);
    const csv = scorecardCsv(rows);
    expect(csv.trim().split('\n')).toHaveLength(1 + rows.length);
    // Nested objects (the spreads, the by-source counters) stay in the JSON, never "[object Object]".
    expect(csv).not.toContain('[object');
  });

  it('a token budget: each sample runs successive seeds until both sides output it; intervals and the schema-on speed ratio in the JSON and CSV', async () => {
    runs.length = 0;
    const base = presetParams(findPreset('sentiment'), { method: 'tokenwise', maxTokens: 4, temperature: 1, seed: 7 });
    const progress: [number, number][] = [];
    const [cell] = await sweep(
      run,
      { base, Ks: [1], Ls: [2], seeds: 2, tokenBudget: 10 },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    const timed = runs.slice(2);
    const own = timed.filter((report) => report.params.method === 'tokenwise');
    const ar = timed.filter((report) => report.params.method === 'ar');
    // At most 4 tokens a run: each sample of each side takes at least 3 runs, on seeds no other sample uses.
    expect(own.length).toBeGreaterThanOrEqual(6);
    expect(own.map((report) => report.params.seed)).toEqual(own.map((_, i) => 7 + i));
    expect(ar.map((report) => report.params.seed)).toEqual(own.map((report) => report.params.seed));
    expect(cell?.runs).toBe(own.length);
    expect(cell?.tokens).toBe(own.reduce((sum, report) => sum + report.tokens.length, 0));
    expect(cell?.tokens).toBeGreaterThanOrEqual(20);
    expect(cell?.counters).toEqual(own.map((report) => report.counters).reduce(addCounters));
    expect(progress.at(-1)).toEqual([runs.length, runs.length]);
    expect(progress.every(([done, total]) => done <= total)).toBe(true);
    const json = sweepCellJson(cell as NonNullable<typeof cell>);
    expect([json.runs, (json.speedup_ci95.low as number) <= (json.speedup_ci95.high as number)]).toEqual([
      own.length,
      true,
    ]);

    runs.length = 0;
    const rows = await scorecard(run, ajvValidator, {
      presets: ['sentiment'],
      seeds: 2,
      tokenBudget: 10,
      base: { method: 'tokenwise', K: 1, L: 2, temperature: 1, maxTokens: 4, drafting: 'validate', seed: 7 },
    });
    const on = runs.slice(1).filter((report) => report.params.schemaText !== null);
    const [onRow, offRow] = rows.map(scorecardRowJson);
    expect(onRow?.completions).toBe(on.length);
    expect(onRow?.tokens).toBeGreaterThanOrEqual(20);
    expect(onRow?.seeds).toBe(`7..${7 + on.length - 1}`);
    expect(onRow?.samples).toBe(2);
    const overFree = rows[0]?.overFree;
    expect(onRow?.speedup_over_free_within_noise).toBe(
      overFree !== null && overFree !== undefined && overFree.interval.low <= 1 && 1 <= overFree.interval.high,
    );
    expect([offRow?.speedup_over_free, offRow?.speedup_over_free_ci95, offRow?.speedup_over_free_within_noise]).toEqual(
      [null, null, null],
    );
    const [header, first, second] = scorecardCsv(rows)
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    const column = (name: string) => (header as string[]).indexOf(name);
    expect(column('spread')).toBe(-1);
    expect(Number(first?.[column('speedup_over_free_ci95_low')])).toBe(onRow?.speedup_over_free_ci95?.low);
    expect(second?.[column('speedup_over_free_ci95_high')]).toBe('');
    expect(Number(first?.[column('tokens_per_second_ci95_high')])).toBe(onRow?.tokens_per_second_ci95.high);
  });

  it('a race on real runs: every method once untimed, then rotated rounds; one report per method', async () => {
    runs.length = 0;
    const params = presetParams(findPreset('sentiment'), { maxTokens: 6 });
    const result = await race(run, params, DECODE_METHODS, 2, { tokenBudget: 1 });
    expect(runs.slice(0, DECODE_METHODS.length).map((report) => report.params.method)).toEqual(DECODE_METHODS);
    expect(runs).toHaveLength(DECODE_METHODS.length * 3);
    expect(runs[DECODE_METHODS.length * 2]?.params.method).toBe(DECODE_METHODS[1]);
    expect(result.entries.map((entry) => entry.method)).toEqual(DECODE_METHODS);
    for (const entry of result.entries) {
      expect(entry.tokensPerSecond.n).toBe(2);
      expectIdentities(entry.report.counters);
      // The timed record counts exactly the runs its speed was measured on (two rounds of one run each).
      expect(entry.timed.runs).toBe(2);
      expectIdentities(entry.timed.counters);
      expect(entry.timed.tokens).toBe(
        runs
          .filter((report, i) => i >= DECODE_METHODS.length && report.params.method === entry.method)
          .reduce((sum, report) => sum + report.tokens.length, 0),
      );
      // Two rounds are under the verdict rule's minimum: no method is called faster or slower.
      expect(entry.verdict).toBe(entry.method === 'ar' ? null : 'too few samples');
    }
  });

  it('a race with a token budget times each round over at least that many tokens, on successive seeds', async () => {
    runs.length = 0;
    const params = presetParams(findPreset('sentiment'), { maxTokens: 4, seed: 5 });
    const result = await race(run, params, ['ar', 'gbv'], 1, { tokenBudget: 10 });
    expect(result.tokenBudget).toBe(10);
    for (const entry of result.entries) expect(entry.tokensTimed).toBeGreaterThanOrEqual(10);
    // After the two warm-ups, each timed sample took several runs, on seeds 5, 6, 7, …
    const timedAr = runs.slice(2).filter((report) => report.params.method === 'ar');
    expect(timedAr.length).toBeGreaterThanOrEqual(3);
    expect(timedAr.map((report) => report.params.seed)).toEqual(timedAr.map((_, i) => 5 + i));
  });
});
