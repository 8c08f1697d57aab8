/**
 * Every npm script is run by the suite, or is left out here with the reason. Every tool with smoke arguments
 * in tools/cli/commands.ts runs once, as npm runs it, with its smallest arguments, and exits 0 with a sane
 * output, so that a command that crashes cannot land. bench:load and bench:ui serve the run's one production
 * build (`--dist`, test/support/browser.ts), so that they build nothing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../tools/cli/args';
import { COMMANDS } from '../../tools/cli/commands';
import { sharedBuild } from '../support/browser';
import { expectToolJson } from '../support/jsonStyle';

const scripts = Object.keys(
  (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
);
const tmp = mkdtempSync(join(tmpdir(), 'speclab-smoke-'));

/** Scripts another test file runs for real, at their smallest. */
const RUN_ELSEWHERE: Record<string, string> = {
  sim: 'test/tools/sim.test.ts',
  sweep: 'test/cli/sweepScorecard.test.ts',
  scorecard: 'test/cli/sweepScorecard.test.ts',
  serve: 'test/cli/serve.test.ts',
  bench: 'test/cli/sweepScorecard.test.ts',
  'models:eval': 'test/cli/sweepScorecard.test.ts',
  'models:replica': 'test/models/replicas.test.ts',
  typecheck: '.ci/run (npm test runs checks)',
  lint: '.ci/run (npm test runs checks)',
  checks: '.ci/run (npm test runs it)',
};
/** Scripts no test runs, and why; help.test.ts checks --help and the refusals of the tools among them. */
const NOT_RUN: Record<string, string> = {
  start: 'the dev server: it runs until stopped (the browser suites start their own)',
  build: 'the production build: the browser suites build it once per run (test/support/browser.ts)',
  preview: 'serves dist/ until stopped (the browser suites serve their build the same way)',
  test: 'the suite itself',
  'models:build': 'trains the models with PyTorch for hours',
  'docs:screenshot': 'reruns two browser test files the suite runs anyway',
  format: 'rewrites files in place; npm run checks runs the same Prettier with --check',
};

type Check = RegExp | ((stdout: string) => void);
const positive = (value: unknown) => typeof value === 'number' && value > 0;
const SANE: Record<string, Check> = {
  'bench:verify': (stdout) => {
    const json = JSON.parse(stdout.slice(stdout.indexOf('\n{'))) as { node: { rows: { method: string }[] } };
    expectToolJson(json);
    expect(json.node.rows.map((row) => row.method)).toContain('tokenwise');
  },
  'models:tokenizer': /tokenizer\.json: \d+ tokens \(8 merges\) from 50 records/,
  // The pair given (the float32 target, not the default int8 one), timed.
  'bench:models':
    /the pair public\/models\/speclab-draft → public\/models\/speclab-target: pair loaded in \d+ ms[\s\S]*\| wasm \| 1 \| 1 \| [\d.]+ \[/,
  'import:vllm': /recommended L = 3/,
  generate: (stdout) => {
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expectToolJson(json);
    expect(json.schema_valid).toBe(true);
  },
  'bench:mask': (stdout) => {
    const json = JSON.parse(stdout.slice(stdout.indexOf('\n{'))) as { rows: Record<string, unknown>[] };
    expectToolJson(json);
    const { rows } = json;
    expect(rows.map((row) => row.vocabulary)).toEqual([
      ...Array(5).fill('bundled (1025)'),
      ...Array(5).fill('GPT-2 (50257)'),
    ]);
    for (const row of rows)
      expect(
        [row.positions, row.bare_p50, row.loop_p50, row.ratio, row.mask_bytes_per_step].every(positive),
        JSON.stringify(row),
      ).toBe(true);
  },
  // Both pages ran the preset to its 8 tokens at a positive speed.
  'bench:ui': (stdout) => {
    expect(stdout).toContain('sentiment, up to 8 tokens, 1 timed round(s) after 0 warm-up round(s)');
    const medians = [...stdout.matchAll(/tokens\/s \(median ([\d.]+)\)/g)].map((match) => Number(match[1]));
    expect(medians).toHaveLength(2);
    expect(medians.every(positive), stdout).toBe(true);
    // One round: its ratio is the whole spread, and the two speeds' quotient.
    const ratio =
      /UI \/ headless, round by round: median (\d+\.\d{3}) \[(\d+\.\d{3})–(\d+\.\d{3})\] \(goal ≥ 0\.90\)\n/.exec(
        stdout,
      );
    expect(ratio, stdout).not.toBeNull();
    const [median, min, max] = (ratio as RegExpExecArray).slice(1).map(Number);
    expect([min, max]).toEqual([median, median]);
    // The speeds are printed to 0.1 tokens/s and the ratio to 0.001: the ratio lies where those roundings allow.
    // (Without a warm-up round the headless page's first run can be a few tokens/s, where 0.05 is over 1%.)
    const [headless, ui] = medians as [number, number];
    expect(median).toBeGreaterThanOrEqual((ui - 0.05) / (headless + 0.05) - 0.0005);
    expect(median).toBeLessThanOrEqual((ui + 0.05) / (headless - 0.05) + 0.0005);
  },
  // About 33 s on SwiftShader, most of it first-call compiles (docs/engineers.md); the report says what its smallest run leaves out.
  'bench:gpu': (stdout) => {
    expect(stdout).toMatch(/^Adapter: .*\((software adapter: CPU figures|hardware adapter)\)\n/);
    expect(stdout).toContain('c not measured (--no-cost-ratio), so no ideal speedup');
    expect(stdout).toContain('no warm-up run, so the figures include first-call compiles');
    expect(stdout).toContain('**Per forward**: skipped (--no-forward-table).');
  },
  'bench:load':
    /round 1: this tree: run enabled cold [1-9]\d* ms, reload [1-9]\d* ms[\s\S]*run enabled[\s\S]*this tree +cold [1-9]\d* \[/,
};

const smoked = (Object.values(COMMANDS) as CommandSpec[]).filter((spec) => spec.smoke && spec.name !== 'sim');

async function command(spec: CommandSpec): Promise<string[]> {
  const args = await Promise.all(
    (spec.smoke ?? []).map(async (arg) => (arg === '{dist}' ? sharedBuild() : arg.replace('{tmp}', tmp))),
  );
  return spec.viaVite ? ['tools/cli/runInVite.ts', spec.entry, ...args] : [spec.entry, ...args];
}

describe('every npm script runs', () => {
  it('runs each script here or in another test file, or says why not', () => {
    const accounted = [...smoked.map((spec) => spec.name), ...Object.keys(RUN_ELSEWHERE), ...Object.keys(NOT_RUN)];
    expect(accounted.sort()).toEqual([...scripts].sort());
    for (const file of Object.values(RUN_ELSEWHERE)) expect(existsSync(file.split(' ')[0] as string), file).toBe(true);
    expect(smoked.map((spec) => spec.name).sort()).toEqual(Object.keys(SANE).sort());
  });

  it.each(smoked.map((spec) => [spec.name, spec] as const))(
    '%s',
    async (name, spec) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', ...(await command(spec))], {
        cwd: process.cwd(),
        maxBuffer: 1 << 24,
      });
      const check = SANE[name] as Check;
      if (typeof check === 'function') check(stdout);
      else expect(stdout).toMatch(check);
      if (name === 'models:tokenizer')
        expect(JSON.parse(readFileSync(join(tmp, 'tokenizer.json'), 'utf8'))).toHaveProperty('model.merges');
      if (name === 'bench:models') expectToolJson(JSON.parse(readFileSync(join(tmp, 'models.json'), 'utf8')));
      if (name === 'bench:gpu') {
        const json = JSON.parse(readFileSync(join(tmp, 'gpu.json'), 'utf8')) as {
          software: boolean;
          cost_ratio: unknown;
          rows: { method: string; tokens_per_second: number; ideal_speedup: unknown }[];
        };
        expectToolJson(json);
        expect(stdout).toContain(json.software ? '(software adapter: CPU figures)' : '(hardware adapter)');
        expect(json.cost_ratio).toBeNull();
        expect(json.rows.map((row) => row.method)).toEqual(['ar', 'ar+jump-forward', 'spectr-gbv']);
        for (const row of json.rows) {
          expect(positive(row.tokens_per_second), JSON.stringify(row)).toBe(true);
          expect(row.ideal_speedup).toBeNull();
        }
      }
    },
    120_000,
  );
});
