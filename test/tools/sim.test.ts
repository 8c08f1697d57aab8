import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { expectToolJson } from '../support/jsonStyle';

/** `sim --json`: the report in snake_case (tools/cli/csv.ts snakeKeys). */
interface SimJson {
  options: Record<string, unknown>;
  methods: {
    method: string;
    drafts_used: number;
    block_efficiency: number;
    exact_block_efficiency: number | null;
    transport_optimum: number;
  }[];
}

const run = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'tools/cli/sim.ts', ...args], { cwd: process.cwd() });

describe('npm run sim', () => {
  it('prints one table with a row per method', async () => {
    const { stdout } = await run(['--V', '4', '--K', '2', '--L', '2', '--steps', '2000']);
    const lines = stdout.trim().split('\n');
    expect(lines[1]).toMatch(
      /^method\s+drafts\s+block efficiency\s+± s\.e\.\s+exact\s+optimum \(L=1\)\s+block optimum\s+gap\s+universal bound\s+A\/D$/,
    );
    for (const method of ['tokenwise', 'gbv', 'spectr', 'spectr-gbv', 'optimal-tree', 'recursive-rejection']) {
      expect(lines.some((line) => new RegExp(`^${method}\\s+\\d`).test(line))).toBe(true);
    }
  });

  it('writes the same figures with --json', async () => {
    const args = ['--V', '4', '--K', '2', '--L', '2', '--steps', '2000', '--seed', '5'];
    const { stdout: table } = await run(args);
    const { stdout } = await run([...args, '--json']);
    const report = JSON.parse(stdout) as SimJson;
    expectToolJson(report);
    expect(report.options).toMatchObject({ V: 4, K: 2, L: 2, steps: 2000, seed: 5 });
    for (const m of report.methods) {
      expect(table).toMatch(new RegExp(`^${m.method}\\s+${m.drafts_used}\\s+${m.block_efficiency.toFixed(4)}`, 'm'));
    }
  });

  it('--json reports transport_optimum beside each exact figure; at L = 1 optimal-tree reaches it', async () => {
    const { stdout } = await run([
      '--V',
      '5',
      '--K',
      '3',
      '--L',
      '1',
      '--steps',
      '500',
      '--closeness',
      '0.3',
      '--json',
    ]);
    const report = JSON.parse(stdout) as SimJson;
    const optimal = report.methods.find((m) => m.method === 'optimal-tree');
    expect(Math.abs((optimal?.exact_block_efficiency as number) - (optimal?.transport_optimum as number))).toBeLessThan(
      1e-9,
    );
    for (const m of report.methods)
      expect(m.exact_block_efficiency).toBeLessThanOrEqual((optimal?.transport_optimum as number) + 1e-12);
  });

  it('--json gives the block optimum: GBV reaches it with one draft, and no method passes it', async () => {
    const { stdout } = await run(['--V', '3', '--K', '2', '--L', '2', '--steps', '200', '--contexts', '2', '--json']);
    const report = JSON.parse(stdout) as {
      methods: { method: string; drafts_used: number; exact_block_efficiency: number; block_optimum: number }[];
    };
    const gbv = report.methods.find((m) => m.method === 'gbv');
    expect(Math.abs((gbv?.block_optimum as number) - (gbv?.exact_block_efficiency as number))).toBeLessThan(1e-9);
    for (const m of report.methods) expect(m.exact_block_efficiency).toBeLessThanOrEqual(m.block_optimum + 1e-9);
  });

  it('--paper-table --quick prints the grid, the gains beside the paper’s and each method’s largest gap to the optimum', async () => {
    const { stdout } = await run(['--paper-table', '--quick']);
    expect(stdout).toMatch(
      /^closeness\s+K\s+L\s+T\s+tokenwise\s+gbv\s+spectr\s+spectr-gbv\s+optimal-tree\s+recursive-rejection\s+block optimum$/m,
    );
    expect(stdout.match(/^0\.(5|9)\s+[12]\s+2\s+0\.7\s/gm)).toHaveLength(4);
    expect(stdout).toMatch(
      /closeness 0\.9: vs SD \(token-wise\) [+-]\d+\.\d% \(paper \+12\.4%\), vs SpecTr [+-]\d+\.\d% \(paper \+2\.3%\), vs GBV [+-]\d+\.\d% \(paper \+9\.7%\)/,
    );
    expect(stdout).toMatch(
      /^ {2}spectr-gbv\s+\d\.\d{4} at closeness 0\.\d, K=\d, L=2, T=0\.7 \| \d\.\d{4} at closeness 0\.\d, K=2, L=2, T=0\.7$/m,
    );
  });

  it('exits with a clear message on bad input', async () => {
    await expect(run(['--quick'])).rejects.toMatchObject({
      code: 2,
      stderr: 'sim: --quick only applies to --paper-table\n',
    });
    await expect(run(['--K', 'many'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^sim: --K must be a number, got "many"\n$/),
    });
    await expect(run(['--bogus', '1'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/bogus/) });
  });
});
