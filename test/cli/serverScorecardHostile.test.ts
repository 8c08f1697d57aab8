/**
 * `scorecard --server` facing a hostile or shared server (issue 53 round four, issue 54): a tiny HTTP server
 * here answers each case's prompt with one malformed response (numbers that are not counts, shapes that are
 * not the API's, a redirect loop, a 15 MiB event without end, a JSON body for a stream), and its /metrics
 * with numbers that are not counts, or with another client's requests and tokens in every window. Every
 * figure asserted is computed by hand from what the server sends; no latency is asserted.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SERVER_SCORECARD_LIMITS } from '../../src/contract/limits';
import { main as scorecard } from '../../tools/cli/scorecard';
import { SseEventTooLargeError, SseReader } from '../../tools/cli/serverRequest';
import { refusal } from '../support/cliRefusal';
import { listenOnLoopback } from '../support/loopback';

const VALID = '{"sentiment": "positive"}';
const chunk = (json: string) => `data: ${json}\n\n`;
/** A well-formed stream of one valid output, its usage chunk as given (raw JSON text, so 1e999 stays itself). */
const stream = (usage: string, extra = '') =>
  chunk(`{"choices":[{"index":0,"delta":{"content":${JSON.stringify(VALID)}},"finish_reason":"stop"}]}`) +
  chunk(`{"choices":[],"usage":${usage}${extra}}`) +
  'data: [DONE]\n\n';

/** Each case's prompt picks the server's answer; the comment is what the scorecard must say about it. */
const ANSWERS: Record<string, string | ((response: ServerResponse) => void)> = {
  'tokens-string': stream('{"completion_tokens":"3"}'),
  'tokens-object': stream('{"completion_tokens":{}}'),
  'tokens-negative': stream('{"completion_tokens":-1e308}'),
  'tokens-infinite': stream('{"completion_tokens":1e999}'),
  'metrics-negative': stream(
    '{"completion_tokens":5}',
    ',"metrics":{"speculative_decoding":{"num_spec_steps":-1,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}',
  ),
  'choices-number': chunk('{"choices":5}'),
  'data-null': chunk('null'),
  'choices-null': chunk('{"choices":[null]}'),
  'content-object': chunk('{"choices":[{"delta":{"content":{"sentiment":"positive"}},"finish_reason":"stop"}]}'),
  redirect: (response) => response.writeHead(302, { location: '/v1/chat/completions' }).end(),
  'json-body': (response) =>
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ choices: [{ message: { content: VALID }, finish_reason: 'stop' }] })),
  'no-end': (response) => {
    // 15 MiB of one event's data, never ended by a blank line, in 64 KiB writes.
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const piece = 'x'.repeat(64 * 1024);
    let written = 0;
    const more = () => {
      while (written < 15 * 2 ** 20 && !response.destroyed) {
        written += piece.length;
        if (!response.write(written === piece.length ? `data: ${piece}` : piece))
          return void response.once('drain', more);
      }
      response.end();
    };
    more();
  },
};

const EXPECTED_PROBLEMS: Record<string, string> = {
  'tokens-string': 'usage.completion_tokens is "3", not a count (a whole number from 0): its tokens are unknown',
  'tokens-object': 'usage.completion_tokens is {}, not a count (a whole number from 0): its tokens are unknown',
  'tokens-negative': 'usage.completion_tokens is -1e+308, not a count (a whole number from 0): its tokens are unknown',
  'tokens-infinite': 'usage.completion_tokens is Infinity, not a count (a whole number from 0): its tokens are unknown',
  'metrics-negative':
    'metrics.speculative_decoding: num_spec_steps, num_draft_tokens and num_accepted_draft_tokens must be whole numbers ≥ 0, got -1, 3, 1: its per-request counters are not used',
  'choices-number': 'choices is 5, not a list',
  'data-null': "an event's data is null, not a JSON object",
  'choices-null': 'choices[0] is null, not an object',
  'content-object': 'choices[0].delta.content is {"sentiment":"positive"}, not text',
  redirect: 'HTTP 302, a redirect to /v1/chat/completions, not followed: give the URL it names as --server',
  'json-body': 'the response holds no server-sent events (data: lines), though the request asked for a stream',
  'no-end':
    'an event of the stream passed 1 MiB without ending (no blank line): the response was stopped (a chunk of a completion is a few hundred bytes)',
};

/** The /metrics page: a function of how many chat requests the server has finished. */
let metrics: (served: number, scrape: number) => string = () => '';
let served = 0;
let scrapes = 0;

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const piece of request as AsyncIterable<Buffer>) chunks.push(piece);
  if (request.url === '/metrics') {
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics(served, scrapes++));
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { content: string }[] };
  const reply = ANSWERS[body.messages[0]?.content ?? ''] ?? stream('{"completion_tokens":5}');
  served++;
  if (typeof reply === 'function') return reply(response);
  response.writeHead(200, { 'content-type': 'text/event-stream' }).end(reply);
}

const server = createServer((request, response) => void answer(request, response));
let base = '';
const tmp = mkdtempSync(join(tmpdir(), 'speclab-hostile-server-'));
const SCHEMA = {
  type: 'object',
  properties: { sentiment: { enum: ['positive', 'negative'] } },
  required: ['sentiment'],
};

beforeAll(async () => {
  base = await listenOnLoopback(server);
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
afterEach(() => vi.restoreAllMocks());

/** The vLLM counters a window needs (no speculative step ran: every delta 0), then `extra` lines. */
const SPEC_COUNTERS = [
  'vllm:spec_decode_num_drafts_total{model_name="m"} 0',
  'vllm:spec_decode_num_draft_tokens_total{model_name="m"} 0',
  'vllm:spec_decode_num_accepted_tokens_total{model_name="m"} 0',
];

async function run(prompts: string[], extra: string[] = []) {
  const cases = join(tmp, `${prompts[0]}.jsonl`);
  writeFileSync(cases, prompts.map((prompt) => JSON.stringify({ bucket: 'b', prompt, schema: SCHEMA })).join('\n'));
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  served = 0;
  scrapes = 0;
  const args = ['--server', base, '--model', 'm', '--cases', cases, '--repeats', '1', '--warm-up', '0', ...extra];
  const code = await scorecard(args);
  return { code, stdout: out.join('\n'), stderr: err };
}

interface Row {
  constrained: boolean;
  requests: number;
  valid: number;
  bad_responses: number;
  connection_errors: number;
  completion_tokens: number | null;
  tokens_per_second: number | null;
  response_problems: { case_line: number; round: number; problem: string }[];
  per_request: unknown;
  foreign_traffic: { requests: number; tokens: number | null } | null;
  foreign_traffic_unchecked: string | null;
  counters_contaminated: boolean;
  acceptance_source: string | null;
  queue: unknown;
  queue_unknown: string | null;
  counters: unknown;
  counters_missing: string | null;
}

describe("scorecard --server against a server whose responses break the API's shape or numbers", () => {
  const prompts = Object.keys(ANSWERS);

  it('reports each bad response as what it is, in one line, and loses no row', async () => {
    metrics = () => SPEC_COUNTERS.join('\n');
    const { code, stdout, stderr } = await run(prompts, ['--concurrency', '4', '--json']);
    expect(code).toBe(0);
    const rows = (JSON.parse(stdout) as { rows: Row[] }).rows;
    expect(rows.map((row) => row.constrained)).toEqual([true, false]);
    for (const row of rows) {
      expect(row.requests).toBe(prompts.length);
      // The five with a bad number are still judged (valid); the seven broken ones are bad responses, not "no connection".
      expect([row.valid, row.bad_responses, row.connection_errors]).toEqual([5, 7, 0]);
      // One response without a count: the window's tokens, and so its speed, are unknown rather than wrong.
      expect([row.completion_tokens, row.tokens_per_second]).toEqual([null, null]);
      expect(row.per_request).toBeNull();
      expect(Object.fromEntries(row.response_problems.map((p) => [prompts[p.case_line - 1], p.problem]))).toEqual(
        EXPECTED_PROBLEMS,
      );
    }
    // One line per bad response and way on stderr, naming its case line.
    for (const [i, prompt] of prompts.entries())
      for (const way of ['on', 'off'])
        expect(stderr).toContain(
          `scorecard: b, schema ${way}, line ${i + 1}: the server's response: ${EXPECTED_PROBLEMS[prompt]}`,
        );
    expect(stderr.filter((line) => line.includes("the server's response:"))).toHaveLength(2 * prompts.length);
  });

  it('says so in the Markdown: bad responses counted, never "no connection", and each listed', async () => {
    const { stdout } = await run(prompts.slice(5, 12), ['--concurrency', '2']);
    expect(stdout).toMatch(/^\| b \| on \| 7 \| 0 \| 0 \| 0 \| 0 \| 7 × bad response \| 0 \|/m);
    expect(stdout).not.toMatch(/no connection/);
    const line = prompts.slice(5).indexOf('redirect') + 1;
    expect(stdout).toContain(`- b, schema on, line ${line}, round 1: ${EXPECTED_PROBLEMS.redirect}`);
  });
});

describe('scorecard --server reading a /metrics whose numbers are not counts', () => {
  it('loses only the figures they carry, each with its reason', async () => {
    metrics = () =>
      [
        ...SPEC_COUNTERS,
        'vllm:request_success_total{model_name="m",finished_reason="stop"} -1',
        'vllm:generation_tokens_total{model_name="m"} NaN',
        '# TYPE vllm:request_queue_time_seconds histogram',
        'vllm:request_queue_time_seconds_bucket{model_name="m",le="+Inf"} 2',
        'vllm:request_queue_time_seconds_sum{model_name="m"} NaN',
        'vllm:request_queue_time_seconds_count{model_name="m"} 2',
        'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 1e308',
      ].join('\n');
    const { code, stdout } = await run(['one', 'two'], ['--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as {
      rows: Row[];
      gpu_utilisation_percent: number | null;
      gpu_utilisation_unknown: string;
    };
    expect(json.gpu_utilisation_percent).toBeNull();
    expect(json.gpu_utilisation_unknown).toBe(
      "the server's DCGM_FI_DEV_GPU_UTIL is 1e308, not a percentage from 0 to 100",
    );
    for (const row of json.rows) {
      expect([row.requests, row.valid, row.completion_tokens]).toEqual([2, 2, 10]);
      expect(row.foreign_traffic).toBeNull();
      expect(row.foreign_traffic_unchecked).toBe(
        "the server's vllm:request_success_total is -1, not a count (a finite number from 0)",
      );
      expect(row.queue).toBeNull();
      expect(row.queue_unknown).toBe(
        "the server's vllm:request_queue_time_seconds_sum is NaN, not a count (a finite number from 0)",
      );
      // The speculative-decoding counters themselves were counts: they stand.
      expect(row.counters).not.toBeNull();
    }
  });

  it("a NaN speculative-decoding counter leaves that window's counters missing, with the reader's reason", async () => {
    metrics = () =>
      SPEC_COUNTERS.join('\n').replace('num_drafts_total{model_name="m"} 0', 'num_drafts_total{model_name="m"} NaN');
    const { code, stdout } = await run(['one'], ['--json']);
    expect(code).toBe(0);
    const [on] = (JSON.parse(stdout) as { rows: Row[] }).rows;
    expect(on?.valid).toBe(1);
    expect(on?.counters).toBeNull();
    expect(on?.counters_missing).toMatch(/vllm:spec_decode_num_drafts_total is NaN; a counter is a finite number/);
  });
});

describe('scorecard --server on a shared server: the window traffic checked against its own', () => {
  /** vLLM's request and token counters: the scorecard's requests (5 tokens each), plus `foreign` per scrape after the first. */
  const counting = (foreign: { requests: number; tokens: number }) => (done: number, scrape: number) =>
    [
      ...SPEC_COUNTERS,
      `vllm:request_success_total{model_name="m",finished_reason="stop"} ${done + scrape * foreign.requests}`,
      `vllm:generation_tokens_total{model_name="m"} ${5 * done + scrape * foreign.tokens}`,
    ].join('\n');

  it('a quiet server: the counters are its own', async () => {
    metrics = counting({ requests: 0, tokens: 0 });
    const { stdout } = await run(['one', 'two'], ['--json']);
    for (const row of (JSON.parse(stdout) as { rows: Row[] }).rows) {
      expect(row).toMatchObject({
        foreign_traffic: null,
        foreign_traffic_unchecked: null,
        counters_contaminated: false,
        acceptance_source: 'window',
      });
    }
  });

  it("another client's 3 requests and 50 tokens in each window: said on the row and in the JSON, the counters marked contaminated", async () => {
    metrics = counting({ requests: 3, tokens: 50 });
    const { stdout } = await run(['one', 'two'], ['--json']);
    for (const row of (JSON.parse(stdout) as { rows: Row[] }).rows) {
      expect(row).toMatchObject({
        foreign_traffic: { requests: 3, tokens: 50 },
        counters_contaminated: true,
        acceptance_source: 'window, contaminated',
      });
    }
    const markdown = await run(['one', 'two'], ['--concurrency', '4']);
    // Two cases in the bucket: at most two requests in flight, and the header says so.
    expect(markdown.stdout).toMatch(
      /^Concurrency: 4 requested; in flight at most min\(4, cases in the bucket\): b 2$/m,
    );
    // One round is one pair: no speed verdict.
    expect(markdown.stdout).toMatch(/^\| b \| 1 \| .* \| too few samples \(under 5\) \|$/m);
    expect(markdown.stdout).toMatch(
      /^\| b \| on \| 0 \| — \| — \| 0 \| 0 \| — \| — \| — \| — \| 0 \| — \| contaminated: 3 requests and 50 tokens not the scorecard's \|$/m,
    );
    expect(markdown.stdout).toMatch(/their acceptance figures are contaminated; use the per-request table/);
  });
});

describe('the request client', () => {
  it('reads events split anywhere, CRLF and a blank line across chunks included', () => {
    const reader = new SseReader();
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(reader.push(bytes('data: {"a"'))).toEqual([]);
    expect(reader.push(bytes(':1}\r'))).toEqual([]);
    expect(reader.push(bytes('\n\r\n: comment\n\ndata: two\n'))).toEqual(['{"a":1}']);
    expect(reader.push(bytes('\ndata: three\n\n'))).toEqual(['two', 'three']);
  });

  it('stops an event that passes its bound without ending, at the first chunk past it', () => {
    const reader = new SseReader();
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    let pushed = 0;
    expect(() => {
      for (; pushed < 240; pushed++) reader.push(piece);
    }).toThrow(SseEventTooLargeError);
    expect(pushed).toBe(SERVER_SCORECARD_LIMITS.eventChars / (64 * 1024));
  });

  it('refuses URL credentials that are not %-encoding in one line, never showing them', async () => {
    const line = await refusal(scorecard, [
      '--server',
      'http://user:SECRET%ZZ@127.0.0.1:9',
      '--model',
      'm',
      '--cases',
      'examples/cases.jsonl',
    ]);
    expect(line).toBe('scorecard: --server: the user name or password in the URL (***) is not valid %-encoding');
  });
});
