/**
 * `npm run import:vllm` as a command: per-model tables, the L advice, and the live mode against a local HTTP
 * server whose counters grow between scrapes.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectToolJson } from '../support/jsonStyle';
import { listenOnLoopback } from '../support/loopback';

const run = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'tools/cli/importVllm.ts', ...args], {
    cwd: process.cwd(),
  });

/** Every scrape adds 10 drafts, 30 draft tokens, 20 accepted (8, 7, 5 at positions 0–2) for model "a" and 5 drafts (all rejected) for model "b". */
let scrapes = 0;
const server = createServer((request, response) => {
  if (request.url !== '/metrics') {
    response.writeHead(404).end('not found');
    return;
  }
  const n = ++scrapes;
  const counter = (name: string, lines: string[]) => [
    `# TYPE vllm:spec_decode_${name} counter`,
    ...lines.map((line) => `vllm:spec_decode_${name}${line}`),
  ];
  response
    .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
    .end(
      [
        ...counter('num_drafts_total', [`{model_name="a"} ${10 * n}`, `{model_name="b"} ${5 * n}`]),
        ...counter('num_draft_tokens_total', [`{model_name="a"} ${30 * n}`, `{model_name="b"} ${10 * n}`]),
        ...counter('num_accepted_tokens_total', [`{model_name="a"} ${20 * n}`, `{model_name="b"} 0`]),
        ...counter('num_accepted_tokens_per_pos_total', [
          `{model_name="a",position="0"} ${8 * n}`,
          `{model_name="a",position="1"} ${7 * n}`,
          `{model_name="a",position="2"} ${5 * n}`,
        ]),
        '',
      ].join('\n'),
    );
});
/** A server that restarts after its second scrape: its counters read 1, 2, then 1, 2, … times 10 drafts (8 / 6 accepted at positions 0–1). */
let restartingScrapes = 0;
const restarting = createServer((_request, response) => {
  const n = (restartingScrapes++ % 2) + 1;
  response
    .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
    .end(
      [
        `num_drafts_total ${10 * n}`,
        `num_draft_tokens_total ${20 * n}`,
        `num_accepted_tokens_total ${14 * n}`,
        `num_accepted_tokens_per_pos_total{position="0"} ${8 * n}`,
        `num_accepted_tokens_per_pos_total{position="1"} ${6 * n}`,
        '',
      ]
        .map((line) =>
          line === ''
            ? line
            : `vllm:spec_decode_${line.replace(/(\{|$| )/, (m) => (m === '{' ? '{model_name="m",' : m === ' ' ? '{model_name="m"} ' : m))}`,
        )
        .join('\n'),
    );
});
let base = '';
let restartingBase = '';
beforeAll(async () => {
  base = await listenOnLoopback(server);
  restartingBase = await listenOnLoopback(restarting);
});
afterAll(() => {
  server.close();
  restarting.close();
});

describe('npm run import:vllm', () => {
  it('--url polls a live server and prints each window per model, --count windows', async () => {
    const { stdout } = await run([
      '--url',
      `${base}/metrics`,
      '--interval',
      '0.05',
      '--count',
      '2',
      '--json',
      '--cost-ratio',
      '0.1',
    ]);
    const windows = stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            window: number;
            schema_version: number;
            models: {
              model_name: string;
              num_drafts: number;
              mean_acceptance_length: number | null;
              per_position_acceptance: number[];
              advice: { recommended_L: number };
            }[];
          },
      );
    expect(windows.map((w) => w.window)).toEqual([1, 2]);
    // The advice over the windows since the baseline: two windows are under the verdict rule's five.
    expect(
      (windows[1] as unknown as { advice_over_windows: { model_name: string; windows: number; measured: boolean }[] })
        .advice_over_windows[0],
    ).toMatchObject({ model_name: 'a', windows: 2, measured: false });
    for (const window of windows) {
      expectToolJson(window);
      const [a, b] = window.models;
      expect(a).toMatchObject({
        model_name: 'a',
        num_drafts: 10,
        mean_acceptance_length: 3,
        per_position_acceptance: [0.8, 0.7, 0.5],
        advice: { recommended_L: 3 },
      });
      expect(b).toMatchObject({ model_name: 'b', num_drafts: 5, mean_acceptance_length: 1 });
    }
  });

  it('live mode starts a new baseline when the counters go down (a server restart), and says so', async () => {
    const { stdout } = await run([
      '--url',
      `${restartingBase}/metrics`,
      '--interval',
      '0.05',
      '--count',
      '3',
      '--json',
    ]);
    const windows = stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { window: number; reset?: boolean; note?: string; models?: { num_drafts: number }[] },
      );
    expect(windows.map((w) => [w.window, w.reset ?? false, w.models?.[0]?.num_drafts ?? null])).toEqual([
      [1, false, 10],
      [2, true, null],
      [3, false, 10],
    ]);
    expect(windows[1]?.note).toMatch(/server restarted; starting a new baseline/);
  });

  it('--R takes MODEL=N per model; a bare number with several models is one line, exit 2', async () => {
    const { stdout } = await run(['test/fixtures/vllm/two-models.prom', '--R', 'big-k4=500,small-k2=50', '--json']);
    const models = (
      JSON.parse(stdout) as { models: { model_name: string; R: number; I: number; grammar_survival: number }[] }
    ).models;
    expect(models.map(({ model_name, R, I }) => [model_name, R, I])).toEqual([
      ['big-k4', 500, 100],
      ['small-k2', 50, 10],
    ]);
    await expect(run(['test/fixtures/vllm/two-models.prom', '--R', '500'])).rejects.toMatchObject({
      code: 2,
      stderr: 'import:vllm: --R 500 is one number for 2 models (big-k4, small-k2): give --R MODEL=N for each\n',
    });
    await expect(run(['test/fixtures/vllm/two-models.prom', '--I', 'nope=3'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^import:vllm: --I nope=3: the scrape has no model_name "nope" \(it has big-k4, small-k2\)\n$/,
      ),
    });
    await expect(run(['test/fixtures/vllm/two-models.prom', '--R', 'big-k4=x'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^import:vllm: --R: "big-k4=x" is not MODEL=N/),
    });
  });

  it('prints one column per model and the advice; an unreachable URL is one line, exit 2', async () => {
    const { stdout } = await run(['test/fixtures/vllm/two-models.prom', '--cost-ratio', '0.3']);
    expect(stdout).toMatch(/^vLLM, per model_name\s+big-k4\s+small-k2$/m);
    expect(stdout).toMatch(/^acceptance at position 2 \(accepted \/ num_drafts\)\s+0\.560\s+—$/m);
    expect(stdout).toMatch(/big-k4: expected speedup per draft length L at C = 0\.3[\s\S]*recommended L = 3/);
    await expect(run(['--url', `${base}/nothing`, '--count', '1'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^import:vllm: cannot scrape http:\/\/127\.0\.0\.1:\d+\/nothing: HTTP 404 Not Found\n$/,
      ),
    });
  });

  it('names a v0 model as v0 beside a v1 one: its num_drafts and 1 + A/num_drafts read unknown, never 0', async () => {
    const { stdout } = await run(['test/fixtures/vllm/mixed-v0-v1.prom']);
    expect(stdout).toMatch(/^engine\s+v1\s+v0$/m);
    expect(stdout).toMatch(/^num_drafts \(verification steps\)\s+50\s+unknown$/m);
    expect(stdout).toMatch(/^mean acceptance length \(v0: emitted \/ steps\)\s+—\s+3\.500$/m);
    expect(stdout).toMatch(/^old-v0: vLLM's v0 engine \(no num_drafts counter\).*v0 cannot give num_drafts/m);
  });
});
