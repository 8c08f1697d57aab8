import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ScrapeError,
  VLLM_METRIC_NAMES,
  adviseDraftLength,
  adviseOverWindows,
  suppliedPerModel,
  modelReports,
  readMetrics,
  readingDelta,
  scrapeDelta,
  vllmReport,
  type VllmCounters,
} from '../../src/core/vllmMetrics';

/** The counters of a scrape of one model. */
function readScrape(text: string): VllmCounters {
  const { vllm } = readMetrics(text);
  expect(vllm.size).toBe(1);
  return [...vllm.values()][0] as VllmCounters;
}

/** Fixtures written with vLLM's own metric names, help texts and labels (engine, model_name, position). */
const after = readFileSync('test/fixtures/vllm/after.prom', 'utf8');
const before = readFileSync('test/fixtures/vllm/before.prom', 'utf8');

/** A scrape with just the spec-decode counters, one engine. */
function scrape(drafts: number, draftTokens: number, accepted: number, perPosition: readonly number[]): string {
  return [
    `# TYPE ${VLLM_METRIC_NAMES.drafts} counter`,
    `${VLLM_METRIC_NAMES.drafts}{engine="0",model_name="m"} ${drafts}`,
    `# TYPE ${VLLM_METRIC_NAMES.draftTokens} counter`,
    `${VLLM_METRIC_NAMES.draftTokens}{engine="0",model_name="m"} ${draftTokens}`,
    `# TYPE ${VLLM_METRIC_NAMES.accepted} counter`,
    `${VLLM_METRIC_NAMES.accepted}{engine="0",model_name="m"} ${accepted}`,
    `# TYPE ${VLLM_METRIC_NAMES.acceptedPerPosition} counter`,
    ...perPosition.map(
      (count, i) => `${VLLM_METRIC_NAMES.acceptedPerPosition}{engine="0",model_name="m",position="${i}"} ${count}`,
    ),
    '',
  ].join('\n');
}

describe('reading a vLLM /metrics scrape', () => {
  it('gives exactly the fixture’s counters, summed over engines, and the seed’s example: 100 steps accepting 180 tokens → 2.8', () => {
    const counters = readScrape(after);
    expect(counters).toEqual({
      numDrafts: 100,
      numDraftTokens: 295,
      numAcceptedTokens: 180,
      acceptedPerPosition: [82, 58, 40],
    });
    const report = vllmReport(counters);
    expect(report.mean_acceptance_length).toBe(2.8);
    expect(report.draft_acceptance_rate).toBe(180 / 295);
    expect(report.per_position_acceptance).toEqual([0.82, 0.58, 0.4]);
    expect(report.num_accepted_tokens_per_pos).toEqual([82, 58, 40]);
    expect([report.R, report.I, report.grammar_survival, report.draft_yield]).toEqual([null, null, null, null]);
    expect(report.note).toMatch(/not R or I/);
  });

  it('two scrapes give the window between them', () => {
    const delta = scrapeDelta(readScrape(before), readScrape(after));
    expect(delta).toEqual({
      numDrafts: 90,
      numDraftTokens: 265,
      numAcceptedTokens: 160,
      acceptedPerPosition: [74, 51, 35],
    });
    expect(vllmReport(delta).mean_acceptance_length).toBeCloseTo(1 + 160 / 90, 12);
  });

  it('shows R and I only when the user supplies them', () => {
    const counters = readScrape(after);
    expect(vllmReport(counters, { I: 5 })).toMatchObject({
      R: 300,
      I: 5,
      D: 295,
      grammar_survival: 295 / 300,
      draft_yield: 180 / 300,
    });
    expect(vllmReport(counters, { R: 400 })).toMatchObject({ R: 400, I: 105 });
    expect(() => vllmReport(counters, { R: 10 })).toThrow(/below D = 295/);
  });

  it('each bad scrape gets its own message', () => {
    const message = (text: string) => {
      try {
        readScrape(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ScrapeError);
        return (error as Error).message;
      }
      throw new Error('no error');
    };
    expect(message('')).toMatch(/not Prometheus text: it holds no metrics/);
    expect(message('<!doctype html>\n<html><body>Not found</body></html>')).toMatch(/not Prometheus text/);
    expect(message('{"num_drafts": 3}')).toMatch(/not Prometheus text/);
    expect(message('hello world\n')).toMatch(/not Prometheus text: hello has the value "world"/);
    expect(message('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3\n')).toMatch(
      /no speculative-decoding metrics/,
    );
    expect(message(scrape(10, 30, 12, [8, 4]).replace(/^vllm:spec_decode_num_draft_tokens_total.*$/m, ''))).toMatch(
      /lacks vllm:spec_decode_num_draft_tokens_total/,
    );
    expect(message(scrape(10, 30, 12, [11, 1]))).toMatch(
      /11 drafts accepted position 0, but there were only 10 drafts/,
    );
    expect(message(scrape(10, 30, 40, [10, 10, 10]))).toMatch(/40 accepted tokens exceed the 30 draft tokens/);
    expect(message(scrape(10, 30, 12, [8, 4]).replace('position="1"', 'position="second"'))).toMatch(/position label/);
    expect(message(scrape(10, -3, 0, []))).toMatch(/-3; a counter is a finite number from 0 to 2\^53/);
    expect(() => scrapeDelta(readScrape(after), readScrape(before))).toThrow(
      /vllm:spec_decode_num_drafts_total went backwards between the scrapes \(100 before, 10 after\)/,
    );
    expect(() => scrapeDelta(readScrape(scrape(10, 30, 12, [8, 4])), readScrape(scrape(20, 60, 24, [7, 4])))).toThrow(
      /position="0"\} went backwards/,
    );
  });
});

describe('per model, with or without _total, and SGLang', () => {
  const fixture = (name: string) => readFileSync(`test/fixtures/vllm/${name}`, 'utf8');

  it('reads bare names like _total ones, and warns once about a spec-decode family it does not read', () => {
    const reading = readMetrics(fixture('bare.prom'), 'bare.prom');
    expect(reading.vllm.get('m')).toEqual({
      numDrafts: 100,
      numDraftTokens: 300,
      numAcceptedTokens: 180,
      acceptedPerPosition: [80, 60, 40],
    });
    expect(reading.warnings).toEqual([
      'bare.prom: vllm:spec_decode_draft_latency_seconds is not read (not a speculative-decoding figure SpecLab knows)',
    ]);
    // A bare-names "before" and a _total "after" make one window.
    const window = readingDelta(readMetrics(fixture('bare.prom')), readMetrics(scrape(150, 450, 270, [120, 90, 60])));
    expect(window.vllm.get('m')).toEqual({
      numDrafts: 50,
      numDraftTokens: 150,
      numAcceptedTokens: 90,
      acceptedPerPosition: [40, 30, 20],
    });
  });

  it('never sums two models: each keeps its own per-position acceptance', () => {
    const reading = readMetrics(fixture('two-models.prom'));
    expect([...reading.vllm.keys()]).toEqual(['big-k4', 'small-k2']);
    expect(vllmReport(reading.vllm.get('big-k4') as VllmCounters).per_position_acceptance).toEqual([
      0.8, 0.7, 0.56, 0.4,
    ]);
    expect(vllmReport(reading.vllm.get('small-k2') as VllmCounters).per_position_acceptance).toEqual([0.75, 0.5]);
    // The app's view shows one column per model, from the same reports.
    expect(
      modelReports(reading, { R: 1000 }).map(({ model, report }) => [model, report.mean_acceptance_length, report.R]),
    ).toEqual([
      ['big-k4', 3.46, 1000],
      ['small-k2', 2.25, 1000],
    ]);
  });

  it("reads SGLang's gauges per model (mean over ranks) and its verify calls once per tensor-parallel group", () => {
    const reading = readMetrics(fixture('sglang.prom'));
    expect(reading.vllm.size).toBe(0);
    const figures = reading.sglang.get('meta-llama/Llama-3.1-8B-Instruct');
    expect(figures?.acceptLength).toBeCloseTo(3.1, 12);
    expect(figures?.acceptRate).toBeCloseTo(0.5, 12);
    expect(figures?.verifyCalls).toBe(500);
  });

  it('advises L: 100 drafts accepting 80/60/40 at positions 1–3 give L = 3 at C = 0.1 and L = 2 at C = 0.3', () => {
    const rates = vllmReport(readMetrics(fixture('bare.prom')).vllm.get('m') as VllmCounters).per_position_acceptance;
    const cheap = adviseDraftLength(rates, 0.1);
    expect(cheap.recommended_L).toBe(3);
    cheap.rows.forEach((row, i) => expect(row.expected_tokens_per_step).toBeCloseTo([1.8, 2.4, 2.8][i] as number, 12));
    expect(cheap.rows[2]?.expected_speedup).toBeCloseTo(2.8 / 1.3, 12);
    expect(adviseDraftLength(rates, 0.3)).toMatchObject({ cost_ratio: 0.3, recommended_L: 2 });
    expect(adviseDraftLength([], 0.1).recommended_L).toBeNull();
  });

  it('gives each L a 95% interval over the drafts and prefers the smaller L within noise of the best', () => {
    // As reported (L = 3 at 1.482× against L = 2 at 1.479× from 100 drafts): 2.254× against 2.250× is noise, so L = 2.
    const rates = [0.9, 0.8, 0.23];
    const few = adviseDraftLength(rates, 0.1, 100);
    expect(few.best_L).toBe(3);
    expect(few.rows[2]?.expected_speedup).toBeCloseTo(2.93 / 1.3, 12);
    expect(few.rows[1]?.expected_speedup).toBeCloseTo(2.7 / 1.2, 12);
    expect(few.rows[1]?.within_noise_of_best).toBe(true);
    expect(few.rows[0]?.within_noise_of_best).toBe(false);
    expect(few.recommended_L).toBe(2);
    const interval = few.rows[1]?.expected_speedup_ci95;
    expect(interval?.low).toBeLessThan(few.rows[1]?.expected_speedup as number);
    expect(interval?.high).toBeGreaterThan(few.rows[1]?.expected_speedup as number);
    // A million drafts measure the same rates tightly enough for L = 3 to stand out.
    expect(adviseDraftLength(rates, 0.1, 1_000_000).recommended_L).toBe(3);
    // Without a draft count there is no interval: the highest is recommended.
    expect(adviseDraftLength(rates, 0.1)).toMatchObject({ recommended_L: 3, num_drafts: null });
  });

  it('advises L over windows: each L against the highest window by window, the smallest not measurably slower', () => {
    // Five windows where L = 3 edges L = 2 by noise (0.23 or 0.22 at position 3), and L = 1 is clearly slower.
    const windows = [0.23, 0.22, 0.24, 0.21, 0.23].map((third, i) => [0.9, 0.8 + (i % 2 === 0 ? 0.01 : -0.01), third]);
    const advice = adviseOverWindows(windows, 0.1);
    expect(advice.windows).toBe(5);
    expect(advice.rows.map((row) => row.against_best)).toEqual([
      'slower',
      advice.best_L === 2 ? null : 'within noise',
      advice.best_L === 3 ? null : 'within noise',
    ]);
    expect(advice.recommended_L).toBe(2);
    // Under five windows nothing is measured: the highest is recommended, and the rows say too few samples.
    const few = adviseOverWindows(windows.slice(0, 3), 0.1);
    expect(few).toMatchObject({ measured: false, recommended_L: few.best_L });
    expect(
      few.rows.filter((row) => row.against_best !== null).every((row) => row.against_best === 'too few samples'),
    ).toBe(true);
  });

  it('--R and --I per model: a bare number only for one model; unknown or repeated models refused', () => {
    expect(suppliedPerModel(['a', 'b'], [{ model: 'a', value: 10 }], [{ model: 'b', value: 2 }])).toEqual(
      new Map([
        ['a', { R: 10 }],
        ['b', { I: 2 }],
      ]),
    );
    expect(suppliedPerModel(['a'], [{ model: null, value: 10 }], [])).toEqual(new Map([['a', { R: 10 }]]));
    expect(() => suppliedPerModel(['a', 'b'], [{ model: null, value: 10 }], [])).toThrow(/one number for 2 models/);
    expect(() => suppliedPerModel(['a'], [{ model: 'c', value: 1 }], [])).toThrow(/no model_name "c"/);
    expect(() => suppliedPerModel(['a'], [{ model: 'a', value: 1 }], [{ model: 'a', value: 1 }])).toThrow(/give one/);
  });
});

describe('a hostile scrape is refused in one line, bounded in time and memory', () => {
  const base = scrape(10, 30, 12, [6, 4, 2]);
  const withPosition = (position: string, count = '1') =>
    `${base}${VLLM_METRIC_NAMES.acceptedPerPosition}{engine="1",model_name="m",position="${position}"} ${count}\n`;

  it.each([
    ['100000000', /position label 0, 1, … below 1024 in decimal, got "100000000"/],
    ['4294967296', /below 1024 in decimal, got "4294967296"/],
    ['1024', /below 1024/],
    ['0x2', /in decimal, got "0x2"/],
    ['1e1', /in decimal, got "1e1"/],
    ['02', /in decimal, got "02"/],
    ['-1', /in decimal, got "-1"/],
  ])('position="%s"', (position, message) => {
    expect(() => readScrape(withPosition(position))).toThrow(message);
  });

  it('a position up to 1023 is read, with the positions between counted as 0', () => {
    expect(readScrape(withPosition('1023')).acceptedPerPosition).toHaveLength(1024);
  });

  it('counters of 1e308, or summing past 2^53, are refused instead of reaching Infinity', () => {
    expect(() => readScrape(scrape(1e308, 30, 12, []))).toThrow(/a counter is a finite number from 0 to 2\^53/);
    const twoEngines = `${scrape(2 ** 52, 2 ** 52, 0, [])}${VLLM_METRIC_NAMES.drafts}{engine="1",model_name="m"} ${2 ** 52 + 2}\n`;
    expect(() => readScrape(twoEngines)).toThrow(/sums past 2\^53/);
  });

  it('a series listed twice is refused rather than counted twice', () => {
    const doubled = `${base}${VLLM_METRIC_NAMES.drafts}{model_name="m",engine="0"} 10\n`;
    expect(() => readScrape(doubled)).toThrow(/appears twice/);
  });

  it('more than 8 MiB of text, or more than 50,000 series, is refused before it is summed', () => {
    expect(() => readScrape(base + '#'.repeat(8 * 1024 * 1024))).toThrow(/a scrape may be at most 8 MiB/);
    const many = Array.from({ length: 50_001 }, (_, i) => `other_metric{i="${i}"} 1`).join('\n');
    expect(() => readScrape(`${base}${many}\n`)).toThrow(/holds 50007 series; a scrape may hold at most 50000/);
  });
});

describe("vLLM's v0 engine: no num_drafts, an emitted-token counter and lifetime gauges", () => {
  const fixture = (name: string) => readFileSync(`test/fixtures/vllm/${name}`, 'utf8');

  it('reads a v0 scrape as v0: A/D, steps from the efficiency gauge, emitted / steps = 10616 / 4437, the rest unknown', () => {
    const reading = readMetrics(fixture('v0.prom'), 'v0.prom');
    expect(reading.warnings).toEqual([]);
    const counters = reading.vllm.get('llama-v0') as VllmCounters;
    expect(counters).toEqual({
      numDrafts: null,
      numDraftTokens: 17748,
      numAcceptedTokens: 6179,
      acceptedPerPosition: [],
      v0: { emittedTokens: 10616, steps: 4437 },
    });
    const report = vllmReport(counters);
    expect(report).toMatchObject({
      engine: 'v0',
      num_drafts: null,
      mean_acceptance_length: null,
      draft_acceptance_rate: 6179 / 17748,
      num_emitted_tokens: 10616,
      verification_steps: 4437,
      emitted_mean_acceptance_length: 10616 / 4437,
    });
    expect(report.unknown_in_v0).toHaveLength(3);
    expect((report.emitted_mean_acceptance_length as number).toFixed(2)).toBe('2.39');
  });

  it('beside a v1 model each keeps its own engine: the v0 model’s num_drafts is unknown, not 0', () => {
    const reports = modelReports(readMetrics(fixture('mixed-v0-v1.prom')));
    expect(reports.map(({ model, report }) => [model, report.engine, report.num_drafts])).toEqual([
      ['new-v1', 'v1', 50],
      ['old-v0', 'v0', null],
    ]);
    const [v1, v0] = reports.map(({ report }) => report);
    expect(v1).toMatchObject({ mean_acceptance_length: 2.8, draft_acceptance_rate: 0.6 });
    expect(v1).not.toHaveProperty('num_emitted_tokens');
    expect(v0).toMatchObject({
      verification_steps: 200,
      emitted_mean_acceptance_length: 3.5,
      draft_acceptance_rate: 500 / 600,
      per_position_acceptance: [],
    });
  });

  it('a window between two v0 scrapes is the delta of counters and of the steps each scrape implies', () => {
    // 10 more steps at k = 4: 40 draft tokens, 15 accepted, 25 emitted; lifetime efficiency (10616 + 25) / ((4437 + 10) · 5).
    const later = fixture('v0.prom')
      .replace('} 17748.0', '} 17788.0')
      .replace('} 6179.0', '} 6194.0')
      .replace(
        /emitted_tokens_total\{model_name="llama-v0"\} 10616\.0/,
        'emitted_tokens_total{model_name="llama-v0"} 10641.0',
      )
      .replace(/efficiency\{model_name="llama-v0"\} .*/, `efficiency{model_name="llama-v0"} ${10641 / (4447 * 5)}`);
    const window = readingDelta(readMetrics(fixture('v0.prom')), readMetrics(later)).vllm.get('llama-v0');
    expect(window).toEqual({
      numDrafts: null,
      numDraftTokens: 40,
      numAcceptedTokens: 15,
      acceptedPerPosition: [],
      v0: { emittedTokens: 25, steps: 10 },
    });
  });

  it('without the efficiency gauge the steps are unknown; a gauge at odds with the counters is refused', () => {
    const noGauge = fixture('v0.prom').replace(/^vllm:spec_decode_efficiency.*$/m, '');
    expect(readMetrics(noGauge).vllm.get('llama-v0')?.v0).toEqual({ emittedTokens: 10616, steps: null });
    expect(vllmReport(readMetrics(noGauge).vllm.get('llama-v0') as VllmCounters).emitted_mean_acceptance_length).toBe(
      null,
    );
    const odd = fixture('v0.prom').replace(/^(vllm:spec_decode_efficiency\{[^}]*\}) .*$/m, '$1 0.41');
    expect(() => readMetrics(odd, 'odd.prom')).toThrow(
      /odd\.prom: vllm:spec_decode_efficiency 0\.41 gives .* not a whole number/,
    );
    // A v1 model without num_drafts (and no v0 names) is still refused.
    const noDrafts = fixture('two-models.prom').replace(/^vllm:spec_decode_num_drafts_total\{[^}]*small-k2.*$/m, '');
    expect(() => readMetrics(noDrafts)).toThrow(/model small-k2 lacks vllm:spec_decode_num_drafts_total/);
  });
});
