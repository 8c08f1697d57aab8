/**
 * The engineer's bench on the bundled models (wasm EP, tiny token budgets): every sweep cell and scorecard
 * row keeps the counter identities, sums its runs' own counters, and the formats carry them unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCounters, derivedRatios, eligible, type Counters } from '../../src/core/metrics';
import { bestCell, scorecardCsv, scorecardRowJson, sweepCellJson, sweepCsv, sweepMarkdown } from '../../src/contract/bench';
import { DECODE_METHODS, findPreset, presetParams, type RunParams } from '../../src/contract/runParams';
import type { RunReport } from '../../src/contract/runReport';
import { race, scorecard, sweep, sweepCells } from '../../src/engine/bench';
import { SpecEngine } from '../../src/engine/engine';
import { ajvValidator } from '../../src/grammar/ajvValidator';
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
    const cells = await sweep(run, { base, Ks: [1, 2], Ls: [2, 3], seeds: 2 }, { onProgress: (done, total) => progress.push(done / total) });
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
      const own = runs.slice(2).filter((report) => report.params.method === 'spectr-gbv' && report.params.K === cell.K && report.params.L === cell.L);
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
    expect(Math.max(...cells.map((cell) => derivedRatios(cell.counters).meanAcceptanceLength as number))).toBe(derivedRatios(best?.counters as Counters).meanAcceptanceLength);
    expect(sweepMarkdown(cells, 'meanAcceptanceLength')).toContain(`**${derivedRatios(best?.counters as Counters).meanAcceptanceLength?.toFixed(2)}**`);
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
    const rows = await scorecard(run, ajvValidator, { presets: ['sentiment', 'reasoning'], seeds: 2, base: { method: 'spectr-gbv', K: 2, L: 3, temperature: 1, maxTokens: 12, drafting: 'validate', seed: 5 } });
    expect(rows.map((row) => [row.preset, row.constrained])).toEqual([
      ['sentiment', true],
      ['sentiment', false],
      ['reasoning', true],
      ['reasoning', false],
    ]);
    expect(runs).toHaveLength(1 + 4 * 2);
    for (const row of rows) {
      expectIdentities(row.counters);
      const own = runs.slice(1).filter((report) => report.params.prompt === findPreset(row.preset).prompt && (report.params.schemaText !== null) === row.constrained);
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
    expect(scorecardCsv(rows).trim().split('\n')).toHaveLength(1 + rows.length);
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
      // Two rounds leave no spread to judge by: no method is called faster or slower.
      expect(entry.verdict).toBe(entry.method === 'ar' ? null : 'too few rounds');
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
