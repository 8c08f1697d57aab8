/**
 * `npm run sweep`, `scorecard`, `bench --node-only` and `models:eval` end to end, in this process (their Vite
 * start-up is the generate smoke run's): the smallest budgeted run of each, with the intervals and noise
 * flags in its JSON, the sweep and the evaluation on a --pair of local directories.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main as sweep } from '../../tools/cli/sweep';
import { main as scorecard } from '../../tools/cli/scorecard';
import { main as bench } from '../../tools/cli/bench';
import { main as evaluate } from '../../tools/eval-models';
import { mkdtempSync, readFileSync } from 'node:fs';
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
    const json = await printed(sweep, ['--method', 'tokenwise', '--L', '1,2', '--seeds', '2', '--token-budget', '6', '--max-tokens', '4', '--pair', 'public/models/speclab-draft,public/models/speclab-target-int8', '--json']);
    expectToolJson(json);
    expect(json).toMatchObject({ schema_version: 1, token_budget: 6, seeds: 2, pair: { draft: 'public/models/speclab-draft', target: 'public/models/speclab-target-int8' } });
    const cells = json.cells as { L: number; runs: number; tokens: number; speedup_ci95: { low: number; high: number }; speedup_within_noise_of_ar: boolean; speedup_verdict: string }[];
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

  it('scorecard --json: the schema-on row carries its speed over schema-off with an interval', async () => {
    const json = await printed(scorecard, ['--presets', 'sentiment', '--seeds', '1', '--token-budget', '1', '--max-tokens', '8', '--method', 'tokenwise', '--K', '1', '--L', '2', '--json']);
    expectToolJson(json);
    expect(json).toMatchObject({ schema_version: 1, samples: 1, token_budget: 1, pair: 'bundled' });
    const [on, off] = json.rows as { constrained: boolean; speedup_over_free: number | null; speedup_over_free_ci95: { low: number; high: number } | null }[];
    expect([on?.constrained, off?.constrained]).toEqual([true, false]);
    expect(on?.speedup_over_free_ci95?.low).toBe(on?.speedup_over_free);
    expect(off?.speedup_over_free).toBeNull();
  });

  it('bench --node-only, smallest: rows with speedup intervals in the JSON and the CSV', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'speclab-bench-')), 'decode');
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await expect(bench(['--node-only', '--grid', '1x2', '--methods', 'tokenwise', '--rounds', '1', '--seeds', '1', '--token-budget', '1', '--csv', '--out', out])).resolves.toBe(0);
    const json = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as { schema_version: number; sections: { rows: Record<string, unknown>[] }[] };
    expectToolJson(json);
    const rows = json.sections[0]?.rows ?? [];
    expect(rows.filter((row) => row.method === 'tokenwise').every((row) => typeof row.speedup_within_noise_of_ar === 'boolean')).toBe(true);
    expect(readFileSync(`${out}.csv`, 'utf8').split('\n')[0]).toContain('speedup_ci95_low');
  });

  it('models:eval on a local --pair, one record a preset', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const out = join(mkdtempSync(join(tmpdir(), 'speclab-eval-')), 'eval.json');
    await expect(evaluate(['--records', '1', '--acceptance-records', '0', '--pair', 'public/models/speclab-draft,public/models/speclab-target-int8', '--json', out])).resolves.toBe(0);
    expect(lines.join('\n')).toMatch(/^public\/models\/speclab-draft → public\/models\/speclab-target-int8\./);
    const json = JSON.parse(readFileSync(out, 'utf8')) as { rows: { fields_exact: number; fields: number }[] };
    expectToolJson(json);
    expect(json.rows.every((row) => row.fields_exact <= row.fields)).toBe(true);
  });
});
