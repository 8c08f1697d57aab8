/**
 * `npm run sweep`, `scorecard` (presets and --cases), `bench --node-only` and `models:eval` end to end, in this process (their Vite
 * start-up is the generate smoke run's): the smallest budgeted run of each, with the intervals and noise
 * flags in its JSON, the sweep and the evaluation on a --pair of local directories.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main as sweep } from '../../tools/cli/sweep';
import { main as scorecard } from '../../tools/cli/scorecard';
import { main as bench } from '../../tools/cli/bench';
import { main as evaluate } from '../../tools/cli/modelsEval';
import { main as generate } from '../../tools/cli/generate';
import { DEFAULT_DRAFTER } from '../../src/core/draftLaw';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectToolJson } from '../support/jsonStyle';

afterEach(() => {
  vi.restoreAllMocks();
});

async function printed(main: (argv: string[]) => Promise<number>, argv: string[]): Promise<Record<string, unknown>> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  await expect(main(argv)).resolves.toBe(0);
  return JSON.parse(lines.join('\n')) as Record<string, unknown>;
}

describe('the decoding tools, smallest runs', () => {
  it('sweep --json on a local --pair: a cell per (K, L) with its samples, runs, interval and noise flag', async () => {
    const json = await printed(sweep, [
      '--method',
      'tokenwise',
      '--L',
      '1,2',
      '--seeds',
      '2',
      '--token-budget',
      '6',
      '--max-tokens',
      '4',
      '--pair',
      'public/models/speclab-draft,public/models/speclab-target-int8',
      '--json',
    ]);
    expectToolJson(json);
    expect(json).toMatchObject({
      schema_version: 1,
      token_budget: 6,
      seeds: 2,
      pair: { draft: 'public/models/speclab-draft', target: 'public/models/speclab-target-int8' },
    });
    const cells = json.cells as {
      L: number;
      runs: number;
      tokens: number;
      speedup_ci95: { low: number; high: number };
      speedup_within_noise_of_ar: boolean;
      speedup_verdict: string;
    }[];
    expect(cells.map((cell) => cell.L)).toEqual([1, 2]);
    for (const cell of cells) {
      expect(cell.runs).toBeGreaterThanOrEqual(4);
      expect(cell.tokens).toBeGreaterThanOrEqual(12);
      expect(cell.speedup_ci95.low).toBeLessThanOrEqual(cell.speedup_ci95.high);
      expect(cell.speedup_within_noise_of_ar).toBe(cell.speedup_ci95.low <= 1 && 1 <= cell.speedup_ci95.high);
      // Two samples are under the verdict rule's minimum: never faster or slower.
      expect(cell.speedup_verdict).toBe('too few samples');
    }
  });

  it('sweep --cases --json: one sweep per case of the chosen bucket, each naming its bucket and line, with the drafter and top-p', async () => {
    const json = await printed(sweep, [
      '--cases',
      'examples/cases.jsonl',
      '--buckets',
      'nested-json',
      '--method',
      'tokenwise',
      '--L',
      '2',
      '--seeds',
      '1',
      '--token-budget',
      '1',
      '--max-tokens',
      '4',
      '--drafter',
      'model+grammar',
      '--top-p',
      '0.9',
      '--json',
    ]);
    expectToolJson(json);
    expect(json).toMatchObject({ drafter: 'model+grammar', top_p: 0.9 });
    const cases = json.cases as { bucket: string; case_line: number; cells: { L: number }[] }[];
    expect(cases.map(({ bucket, case_line, cells }) => [bucket, case_line, cells.map((cell) => cell.L)])).toEqual([
      ['nested-json', 3, [2]],
      ['nested-json', 4, [2]],
    ]);
  });

  it('scorecard --json: the schema-on row carries its speed over schema-off with an interval', async () => {
    const json = await printed(scorecard, [
      '--presets',
      'sentiment',
      '--seeds',
      '1',
      '--token-budget',
      '1',
      '--max-tokens',
      '8',
      '--method',
      'tokenwise',
      '--K',
      '1',
      '--L',
      '2',
      '--json',
    ]);
    expectToolJson(json);
    expect(json).toMatchObject({ schema_version: 1, samples: 1, token_budget: 1, pair: 'bundled' });
    const [on, off] = json.rows as {
      constrained: boolean;
      speedup_over_free: number | null;
      speedup_over_free_ci95: { low: number; high: number } | null;
    }[];
    expect([on?.constrained, off?.constrained]).toEqual([true, false]);
    expect(on?.speedup_over_free_ci95?.low).toBe(on?.speedup_over_free);
    expect(off?.speedup_over_free).toBeNull();
  });

  it("scorecard --cases --json: the chosen bucket's case gives a schema-on and a schema-off row, each naming its bucket and line", async () => {
    const schema = {
      type: 'object',
      properties: { sentiment: { enum: ['positive', 'negative'] } },
      required: ['sentiment'],
    };
    const cases = join(mkdtempSync(join(tmpdir(), 'speclab-cases-')), 'cases.jsonl');
    writeFileSync(
      cases,
      [
        { bucket: 'enum-a', prompt: 'Review: fine.\nJSON: ', schema },
        { bucket: 'enum-b', prompt: 'Review: broken.\nJSON: ', schema },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const json = await printed(scorecard, [
      '--cases',
      cases,
      '--buckets',
      'enum-b',
      '--seeds',
      '1',
      '--token-budget',
      '1',
      '--max-tokens',
      '4',
      '--method',
      'tokenwise',
      '--K',
      '1',
      '--L',
      '2',
      '--json',
    ]);
    expectToolJson(json);
    expect(json).toMatchObject({ samples: 1, pair: 'bundled', buckets: ['enum-b'] });
    const rows = json.rows as {
      bucket: string;
      case_line: number;
      constrained: boolean;
      completions: number;
      speedup_over_free: number | null;
    }[];
    expect(
      rows.map(({ bucket, case_line, constrained, completions }) => [bucket, case_line, constrained, completions]),
    ).toEqual([
      ['enum-b', 2, true, 1],
      ['enum-b', 2, false, 1],
    ]);
    expect(rows.map((row) => [row.speedup_over_free === null, 'preset' in row])).toEqual([
      [false, false],
      [true, false],
    ]);
  });

  it('generate --json names its pair, exports per-step drafted / invalidated / accepted arrays, notes identical drafts at T = 0 with K > 1; ar carries no K or L', async () => {
    const json = await printed(generate, [
      '--preset',
      'sentiment',
      '--method',
      'spectr-gbv',
      '--K',
      '3',
      '--L',
      '2',
      '--temperature',
      '0',
      '--max-tokens',
      '8',
      '--json',
    ]);
    expectToolJson(json);
    expect(json).toMatchObject({
      pair: 'bundled',
      K: 3,
      L: 2,
      notes: [expect.stringMatching(/^at T = 0 the 3 drafts are identical copies of one greedy draft/)],
    });
    const sum = (values: unknown) => (values as number[]).reduce((a, b) => a + b, 0);
    expect((json.per_step_drafted as number[]).length).toBe(json.steps);
    expect([sum(json.per_step_drafted), sum(json.per_step_invalidated), sum(json.per_step_accepted)]).toEqual([
      json.R,
      json.I,
      json.A,
    ]);
    const ar = await printed(generate, [
      '--preset',
      'sentiment',
      '--method',
      'ar',
      '--K',
      '3',
      '--temperature',
      '0',
      '--max-tokens',
      '4',
      '--json',
    ]);
    expect(ar).not.toHaveProperty('K');
    expect(ar).not.toHaveProperty('L');
    expect(ar.notes).toEqual([]);
  });

  it('generate --cases: one JSON line per case of the chosen buckets, each naming its bucket and line', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(
      generate([
        '--cases',
        'examples/cases.jsonl',
        '--buckets',
        'small-enum,regex-strings',
        '--method',
        'tokenwise',
        '--max-tokens',
        '6',
        '--top-p',
        '0.9',
        '--json',
      ]),
    ).resolves.toBe(0);
    const records = lines.map(
      (line) => JSON.parse(line) as { bucket: string; case_line: number; top_p: number; drafter: string },
    );
    expect(records.map(({ bucket, case_line, top_p, drafter }) => [bucket, case_line, top_p, drafter])).toEqual([
      ['small-enum', 1, 0.9, DEFAULT_DRAFTER],
      ['small-enum', 2, 0.9, DEFAULT_DRAFTER],
      ['regex-strings', 5, 0.9, DEFAULT_DRAFTER],
      ['regex-strings', 6, 0.9, DEFAULT_DRAFTER],
    ]);
  });

  it('bench --node-only --draft-ahead, smallest: rows with speedup intervals in the JSON and the CSV, the tokenwise row also drafting ahead', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'speclab-bench-')), 'decode');
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(
      bench([
        '--node-only',
        '--grid',
        '1x2',
        '--methods',
        'tokenwise',
        '--rounds',
        '1',
        '--seeds',
        '1',
        '--token-budget',
        '1',
        '--csv',
        '--draft-ahead',
        '--out',
        out,
      ]),
    ).resolves.toBe(0);
    const json = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as {
      schema_version: number;
      sections: { rows: Record<string, unknown>[] }[];
    };
    expectToolJson(json);
    const rows = json.sections[0]?.rows ?? [];
    expect(
      rows
        .filter((row) => row.method === 'tokenwise')
        .every((row) => typeof row.speedup_within_noise_of_ar === 'boolean'),
    ).toBe(true);
    expect(readFileSync(`${out}.csv`, 'utf8').split('\n')[0]).toContain('speedup_ci95_low');
    const ahead = rows.filter((row) => row.drafting_ahead === true);
    expect(ahead.length).toBeGreaterThan(0);
    for (const row of ahead) {
      expect(row).toMatchObject({ method: 'tokenwise', K: 1 });
      expect(row.drafted_ahead).toMatchObject({ drafted: expect.any(Number), taken: expect.any(Number) });
    }
  });

  it('models:eval on a local --pair, one record a preset', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const out = join(mkdtempSync(join(tmpdir(), 'speclab-eval-')), 'eval.json');
    await expect(
      evaluate([
        '--records',
        '1',
        '--acceptance-records',
        '0',
        '--pair',
        'public/models/speclab-draft,public/models/speclab-target-int8',
        '--json',
        out,
      ]),
    ).resolves.toBe(0);
    expect(lines.join('\n')).toMatch(/^public\/models\/speclab-draft → public\/models\/speclab-target-int8\./);
    const json = JSON.parse(readFileSync(out, 'utf8')) as { rows: { fields_exact: number; fields: number }[] };
    expectToolJson(json);
    expect(json.rows.every((row) => row.fields_exact <= row.fields)).toBe(true);
  });
});
