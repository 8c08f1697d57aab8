/**
 * `npm run scorecard -- --server` against recorded vLLM and SGLang responses (test/fixtures/openai: their
 * SSE streams and /metrics scrapes in the servers' formats), served by a tiny HTTP server here; every figure
 * is computed by hand below. Latencies are wall-clock, so only their sample counts are checked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as scorecard } from '../../tools/cli/scorecard';
import { histogramFromPositions, percentile } from '../../tools/cli/serverScorecard';
import { expectToolJson } from '../support/jsonStyle';
import { listenOnLoopback } from '../support/loopback';

const fixture = (name: string) => readFileSync(join('test/fixtures/openai', name), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'speclab-server-scorecard-'));
const API_KEY = 'sk-test-do-not-print';
writeFileSync(join(tmp, 'key'), `${API_KEY}\n`);

/** Which recorded stream answers a request: by flavour, prompt and whether the schema was sent. */
const STREAMS: Record<string, { on: string | null; off: string | null }> = {
  'vllm:review one': { on: 'vllm-valid.sse', off: 'vllm-prose.sse' },
  'vllm:review two': { on: 'vllm-length.sse', off: null },
  'sglang:event': { on: 'sglang-valid.sse', off: 'sglang-invalid.sse' },
  'sglang:slow': { on: 'hang', off: 'hang' },
};

let flavour = 'vllm';
let scrapes = 0;
const authorizations: (string | undefined)[] = [];

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.url === '/metrics') {
    response
      .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      .end(fixture(`${flavour}-${scrapes++}.prom`));
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    messages: { content: string }[];
    response_format?: unknown;
  };
  authorizations.push(request.headers.authorization);
  const streams = STREAMS[`${flavour}:${body.messages[0]?.content}`];
  const file = body.response_format === undefined ? streams?.off : streams?.on;
  if (file === 'hang') return;
  if (file === null || file === undefined) {
    response.writeHead(500, { 'content-type': 'application/json' }).end(fixture('vllm-error.json'));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of fixture(file).split(/(?<=\n\n)/)) {
    response.write(event);
    await sleep(2);
  }
  response.end();
}

const server = createServer((request, response) => void answer(request, response));
let base = '';
beforeAll(async () => {
  base = (await listenOnLoopback(server)).replace('http://', '');
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function casesFile(name: string, lines: object[]): string {
  const path = join(tmp, name);
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n'));
  return path;
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  const code = await scorecard(argv);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const SENTIMENT = {
  type: 'object',
  properties: { sentiment: { enum: ['positive', 'negative'] } },
  required: ['sentiment'],
  additionalProperties: false,
};
const DATE = {
  type: 'object',
  properties: { date: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } },
  required: ['date'],
  additionalProperties: false,
};

/** One round and no warm-up: each window's scrapes are the fixtures' 0, 1, 2, and each figure is one window's. */
const ONE_ROUND = ['--repeats', '1', '--warm-up', '0'];

interface Row {
  bucket: string;
  constrained: boolean;
  requests: number;
  valid: number;
  invalid: number;
  parse_errors: number;
  truncated: number;
  server_errors: { status: string; count: number }[];
  timeouts: number;
  ttft_ms: { samples: number };
  itl_ms: { samples: number };
  completion_tokens: number | null;
  counters: { vllm: Record<string, unknown> | null; sglang: Record<string, unknown> | null } | null;
}

describe('scorecard --server against recorded responses', () => {
  it('vLLM: validity, truncation, parse and server errors per window; counters, histogram, bonus tokens and GPU utilisation from the scrapes', async () => {
    flavour = 'vllm';
    scrapes = 0;
    authorizations.length = 0;
    const cases = casesFile('vllm.jsonl', [
      { bucket: 'enum', prompt: 'review one', schema: SENTIMENT },
      { bucket: 'enum', prompt: 'review two', schema: SENTIMENT },
    ]);
    const { code, stdout } = await run([
      '--server',
      `http://admin:hunter2@${base}/v1`,
      '--model',
      'Qwen/Qwen3-8B',
      '--cases',
      cases,
      '--concurrency',
      '2',
      '--api-key-file',
      join(tmp, 'key'),
      ...ONE_ROUND,
      '--json',
    ]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/hunter2|admin|sk-test/);
    expect(authorizations).toEqual(Array(4).fill(`Bearer ${API_KEY}`));
    const json = JSON.parse(stdout) as { server: string; gpu_utilisation_percent: number | null; rows: Row[] };
    expectToolJson(json);
    expect(json.server).toBe(`http://${base}/`);
    // DCGM's two GPUs at 87 and 93 percent in the last scrape.
    expect(json.gpu_utilisation_percent).toBe(90);
    const [on, off] = json.rows;
    // Schema on: review one valid in three content chunks (TTFT + 2 gaps), review two cut short by max_tokens (TTFT + 1 gap).
    expect(on).toMatchObject({
      bucket: 'enum',
      constrained: true,
      requests: 2,
      valid: 1,
      invalid: 0,
      parse_errors: 0,
      truncated: 1,
      server_errors: [],
      timeouts: 0,
      ttft_ms: { samples: 2 },
      itl_ms: { samples: 3 },
      completion_tokens: 10,
    });
    // Schema off: prose before the JSON (a parse error), and an HTTP 500.
    expect(off).toMatchObject({
      constrained: false,
      requests: 2,
      valid: 0,
      parse_errors: 1,
      truncated: 0,
      server_errors: [{ status: '500', count: 1 }],
      ttft_ms: { samples: 1 },
      itl_ms: { samples: 1 },
    });
    // Window on: 110 − 100 drafts, 330 − 300 draft tokens, 168 − 150 accepted; per position 8, 6, 4.
    // A/D = 18/30, mean acceptance length 1 + 18/10; histogram: 10 − 8, 8 − 6, 6 − 4 steps accepting 0, 1, 2, and 4 accepting all 3 (bonus tokens).
    expect(on?.counters?.vllm).toMatchObject({
      num_drafts: 10,
      D: 30,
      A: 18,
      R: null,
      I: null,
      num_accepted_tokens_per_pos: [8, 6, 4],
      draft_acceptance_rate: 0.6,
      mean_acceptance_length: 2.8,
      histogram: [2, 2, 2, 4],
      bonus_tokens: 4,
    });
    // Window off: 5 drafts, 15 draft tokens, 3 accepted (2, 1, 0): A/D 0.2, 1 + 3/5 = 1.6, histogram 3, 1, 1, 0.
    expect(off?.counters?.vllm).toMatchObject({
      num_drafts: 5,
      D: 15,
      A: 3,
      draft_acceptance_rate: 0.2,
      mean_acceptance_length: 1.6,
      histogram: [3, 1, 1, 0],
      bonus_tokens: 0,
    });
    expect(on?.counters?.sglang).toBeNull();
  });

  it('SGLang: its gauges and verify calls per window, a timeout counted, GPU utilisation not exposed; the Markdown says so', async () => {
    flavour = 'sglang';
    scrapes = 0;
    const cases = casesFile('sglang.jsonl', [
      { bucket: 'regex', prompt: 'event', schema: DATE },
      { bucket: 'regex', prompt: 'slow', schema: DATE },
    ]);
    const argv = [
      '--server',
      `http://${base}`,
      '--model',
      'meta-llama/Llama-3.1-8B-Instruct',
      '--cases',
      cases,
      '--concurrency',
      '2',
      '--timeout',
      '0.3',
      ...ONE_ROUND,
    ];
    const { code, stdout } = await run([...argv, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as { gpu_utilisation_percent: number | null; rows: Row[] };
    expect(json.gpu_utilisation_percent).toBeNull();
    const [on, off] = json.rows;
    expect(on).toMatchObject({
      requests: 2,
      valid: 1,
      timeouts: 1,
      completion_tokens: 9,
      ttft_ms: { samples: 1 },
      itl_ms: { samples: 1 },
    });
    // Schema off: "14 March" breaks the date pattern: invalid, not a parse error.
    expect(off).toMatchObject({ requests: 2, valid: 0, invalid: 1, parse_errors: 0, timeouts: 1 });
    // Two tensor-parallel ranks count the same verify calls: 540 − 500, then 560 − 540; the gauges are the later window's, the mean over ranks.
    expect(on?.counters).toMatchObject({
      vllm: null,
      sglang: { spec_verify_calls: 40, spec_accept_length: 2.9, spec_accept_rate: 0.5 },
    });
    expect(off?.counters?.sglang).toMatchObject({ spec_verify_calls: 20, spec_accept_length: 2.5 });
    scrapes = 0;
    const markdown = await run(argv);
    expect(markdown.stdout).toContain('GPU utilisation: not exposed');
    expect(markdown.stdout).toMatch(
      /^\| regex \| on \| 2 \| 1 \| 0 \| 0 \| 0 \| 0 \| 1 \| [\d.]+ \/ [\d.]+ \/ [\d.]+ \| [\d.]+ \/ [\d.]+ \/ [\d.]+ \| 9 \| [\d.]+ \|$/m,
    );
    // These scrapes hold no finished-request counter, so the window's traffic cannot be checked: the row says so.
    expect(markdown.stdout).toMatch(
      /^\| regex \| on \| 2\.900 \| 0\.500 \| 40 \| unchecked: the server exposes no vllm:request_success_total or sglang:num_requests_total \|$/m,
    );
  });

  it('refuses before sending anything: no --cases, a case file with an unknown field, an unreachable server', async () => {
    expect(await run(['--server', `http://${base}`, '--model', 'm'])).toMatchObject({
      code: 2,
      stderr: 'scorecard: --server needs --model NAME and --cases FILE.jsonl',
    });
    // Without --server the case file is the bundled models' workload, checked the same way before a model loads.
    expect(await run(['--model', 'm', '--cases', 'examples/cases.jsonl'])).toMatchObject({
      code: 2,
      stderr: 'scorecard: --model goes with --server',
    });
    expect(await run(['--buckets', 'small-enum'])).toMatchObject({
      code: 2,
      stderr: 'scorecard: --buckets goes with --cases',
    });
    expect(await run(['--cases', 'examples/cases.jsonl', '--buckets', 'nested'])).toMatchObject({
      code: 2,
      stderr: 'scorecard: --buckets: no case in "examples/cases.jsonl" has the bucket "nested"',
    });
    const bad = casesFile('bad.jsonl', [
      { bucket: 'a', prompt: 'p', schema: SENTIMENT },
      { bucket: 'a', prompt: 'p', schema: SENTIMENT, weight: 2 },
    ]);
    expect((await run(['--server', `http://${base}`, '--model', 'm', '--cases', bad])).stderr).toMatch(
      /^scorecard: --cases .*bad\.jsonl line 2: unknown field "weight"/,
    );
    expect(await run(['--cases', bad])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^scorecard: --cases .*bad\.jsonl line 2: unknown field "weight"/),
    });
    const schemaFile = casesFile('schema.jsonl', [{ bucket: 'a', prompt: 'p', schema_file: 'missing.json' }]);
    expect((await run(['--server', `http://${base}`, '--model', 'm', '--cases', schemaFile])).stderr).toMatch(
      /line 1: schema_file .*missing\.json: ENOENT/,
    );
    const good = casesFile('good.jsonl', [{ bucket: 'a', prompt: 'p', schema: SENTIMENT }]);
    const refused = await run(['--server', 'http://user:pw@127.0.0.1:1', '--model', 'm', '--cases', good]);
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^scorecard: cannot reach the server: http:\/\/127\.0\.0\.1:1\/metrics: /),
    });
    expect(refused.stderr).not.toContain('pw');
  });

  it('percentiles are nearest-rank; the histogram follows from the per-position counts', () => {
    expect([50, 90, 99].map((p) => percentile([5, 1, 4, 2, 3], p))).toEqual([3, 5, 5]);
    expect(percentile([], 50)).toBeNull();
    expect(histogramFromPositions(10, [8, 6, 4])).toEqual([2, 2, 2, 4]);
  });
});
