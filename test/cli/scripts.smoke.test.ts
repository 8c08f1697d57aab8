/**
 * Every tool with smoke arguments in tools/cli/commands.ts runs once, as npm runs it, and exits 0 with a
 * sane output, so that a command that crashes cannot land. The ones without (they build the app, drive
 * Chromium or decode every preset: minutes) are covered by --help and the refusals in help.test.ts, `sim` by
 * test/tools/sim.test.ts, and sweep, scorecard, bench --node-only and models:eval run in-process, smallest,
 * by test/cli/sweepScorecard.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../tools/cli/args';
import { COMMANDS } from '../../tools/cli/commands';

const tmp = mkdtempSync(join(tmpdir(), 'speclab-smoke-'));
const SANE: Record<string, RegExp> = {
  'bench:verify': /"schema_version": 1[\s\S]*"method": "tokenwise"/,
  'models:tokenizer': /tokenizer\.json: \d+ tokens \(8 merges\) from 50 records/,
  // The pair given (the float32 target, not the default int8 one), timed.
  'bench:models': /the pair public\/models\/speclab-draft → public\/models\/speclab-target: pair loaded in \d+ ms[\s\S]*\| wasm \| 1 \| 1 \| [\d.]+ \[/,
  'import:vllm': /recommended L = 3/,
  generate: /"schema_valid":true/,
};

const smoked = (Object.values(COMMANDS) as CommandSpec[]).filter((spec) => spec.smoke && spec.name !== 'sim');

function command(spec: CommandSpec): string[] {
  const args = (spec.smoke ?? []).map((arg) => arg.replace('{tmp}', tmp));
  return spec.viaVite ? ['tools/run-in-vite.ts', spec.entry, ...args] : [spec.entry, ...args];
}

describe('every npm script runs', () => {
  it('has a sane-output check for each smoked command', () => {
    expect(smoked.map((spec) => spec.name).sort()).toEqual(Object.keys(SANE).sort());
  });

  it.each(smoked.map((spec) => [spec.name, spec] as const))('%s', async (name, spec) => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', ...command(spec)], { cwd: process.cwd(), maxBuffer: 1 << 24 });
    expect(stdout).toMatch(SANE[name] as RegExp);
    if (name === 'models:tokenizer') expect(JSON.parse(readFileSync(join(tmp, 'tokenizer.json'), 'utf8'))).toHaveProperty('model.merges');
  }, 60_000);
});
