/**
 * `npm run serve` as a process (the bundled pair behind the OpenAI-compatible endpoint), and `scorecard
 * --server` run in this process against it end to end, with no mock: the example case file, small
 * max_tokens; the scorecard's per-window counters must add up to the server's own /metrics.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as scorecard } from '../../tools/cli/scorecard';
import { main as serveMain } from '../../tools/cli/serve';
import { refusal } from '../support/cliRefusal';
import { readMetrics } from '../../src/core/vllmMetrics';
import { expectToolJson } from '../support/jsonStyle';
import { startServe, type ServeProcess } from '../support/serveProcess';

let serve: ServeProcess;
let base = '';

beforeAll(async () => {
  // On every interface (0.0.0.0), so the no-authentication warning is printed; requests still go to 127.0.0.1.
  serve = await startServe(['--L', '3', '--host', '0.0.0.0']);
  base = serve.base;
}, 120_000);

afterAll(() => serve.stop());

const post = (body: object) =>
  fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface Row {
  constrained: boolean;
  requests: number;
  valid: number;
  truncated: number;
  completion_tokens: number;
  ttft_ms: { samples: number };
  counters: {
    vllm: {
      num_drafts: number;
      D: number;
      A: number;
      R: number;
      I: number;
      num_accepted_tokens_per_pos: number[];
      histogram: number[];
    };
  };
}

describe('npm run serve, and scorecard --server against it', () => {
  it('says where it listens, that requests are queued, and that 0.0.0.0 has no authentication', async () => {
    expect(serve.banner).toMatch(
      /^serving speclab-bundled \(spectr-gbv, K = 3, L = 3, drafter model\+grammar\) on http:\/\/0\.0\.0\.0:\d+: .*one request at a time \(a queue of at most 64\), a reference for the metrics contract, not a production server\n$/,
    );
    // The warning follows the banner on the other stream.
    await vi.waitFor(() =>
      expect(serve.stderr()).toMatch(
        /^warning: --host 0\.0\.0\.0 lets other machines reach this server, and it has no authentication: /m,
      ),
    );
  });

  it("scorecard --server on examples/cases.jsonl: every window's counters add up to the server's own /metrics", async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const code = await scorecard([
      '--server',
      base,
      '--model',
      'speclab-bundled',
      '--cases',
      'examples/cases.jsonl',
      '--concurrency',
      '4',
      '--max-tokens',
      '24',
      // One window each way and no warm-up: the rows' sums are then the server's lifetime totals.
      '--repeats',
      '1',
      '--warm-up',
      '0',
      '--json',
    ]);
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const json = JSON.parse(lines.join('\n')) as { rows: Row[]; cases: number };
    expectToolJson(json);
    expect(json.cases).toBe(8);
    expect(json.rows.map((row) => row.constrained)).toEqual([true, false, true, false, true, false, true, false]);
    for (const row of json.rows) {
      expect(row.requests).toBe(2);
      expect(row.ttft_ms.samples).toBe(2);
      // The grammar keeps schema-on outputs valid unless max_tokens cuts them short.
      if (row.constrained) expect(row.valid + row.truncated).toBe(2);
      const { num_drafts, D, A, R, I, num_accepted_tokens_per_pos, histogram } = row.counters.vllm;
      expect(R - I).toBe(D);
      expect(histogram.reduce((a, b) => a + b, 0)).toBe(num_drafts);
      expect(num_accepted_tokens_per_pos.reduce((a, b) => a + b, 0)).toBe(A);
    }
    const server = readMetrics(await (await fetch(`${base}/metrics`)).text());
    const totals = server.vllm.get('speclab-bundled');
    const sum = (pick: (row: Row) => number) => json.rows.reduce((total, row) => total + pick(row), 0);
    expect({
      drafts: sum((row) => row.counters.vllm.num_drafts),
      D: sum((row) => row.counters.vllm.D),
      A: sum((row) => row.counters.vllm.A),
      perPosition: [0, 1, 2].map((i) => sum((row) => row.counters.vllm.num_accepted_tokens_per_pos[i] ?? 0)),
    }).toEqual({
      drafts: totals?.numDrafts,
      D: totals?.numDraftTokens,
      A: totals?.numAcceptedTokens,
      perPosition: totals?.acceptedPerPosition,
    });
    const text = await (await fetch(`${base}/metrics`)).text();
    const counter = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(sum((row) => row.counters.vllm.R)).toBe(counter('speclab:spec_decode_num_raw_draft_tokens_total'));
    expect(sum((row) => row.completion_tokens)).toBe(counter('vllm:generation_tokens_total'));
  }, 120_000);

  it('scorecard --server --endpoint completions: the prompts as text, and the queue wait from the /metrics histogram', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const args = [
      '--server',
      base,
      '--model',
      'speclab-bundled',
      '--cases',
      'examples/cases.jsonl',
      '--buckets',
      'small-enum',
      '--repeats',
      '1',
    ];
    const code = await scorecard([
      ...args,
      '--endpoint',
      'completions',
      '--concurrency',
      '2',
      '--max-tokens',
      '16',
      '--json',
    ]);
    expect(code).toBe(0);
    const json = JSON.parse(lines.join('\n')) as {
      endpoint: string;
      rows: (Row & { completed: number; queue: { requests: number; mean_ms: number; after_queue_ms: number } })[];
    };
    expect(json.endpoint).toBe('completions');
    for (const row of json.rows) {
      expect(row.completed).toBe(row.requests);
      // Every request of the window passed through the queue once, and TTFT holds its wait.
      expect(row.queue.requests).toBe(row.requests);
      expect(row.queue.mean_ms).toBeGreaterThanOrEqual(0);
    }
    lines.length = 0;
    expect(await scorecard([...args, '--endpoint', 'completions', '--max-tokens', '8'])).toBe(0);
    vi.restoreAllMocks();
    expect(lines.join('\n')).toMatch(
      /^\| bucket \| schema \| requests dequeued \| mean queue wait ms \| mean TTFT ms \| mean TTFT after the queue ms \|$/m,
    );
  }, 120_000);

  it('answers without streaming, lists its model, and counts refusals by status', async () => {
    const models = (await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(['speclab-bundled']);
    const response = await post({
      model: 'speclab-bundled',
      messages: [{ role: 'user', content: 'Text: Maria Lopez, 34, has been a library member since May.\nJSON: ' }],
      max_tokens: 40,
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          schema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    });
    const body = (await response.json()) as {
      object: string;
      choices: { message: { content: string }; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(body.object).toBe('chat.completion');
    // Without --per-request-spec-decode-metrics the response is the API's, with no metrics object (as vLLM's).
    expect(Object.keys(body)).toEqual(['id', 'object', 'created', 'model', 'choices', 'usage']);
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(Object.keys(JSON.parse(body.choices[0]?.message.content ?? '') as object)).toEqual(['name']);
    expect((await post({ model: 'gpt-4', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404);
    expect(
      (
        await post({
          model: 'speclab-bundled',
          messages: [{ role: 'user', content: 'x' }],
          response_format: { type: 'json_schema', json_schema: { schema: { type: 'frobnicate' } } },
        })
      ).status,
    ).toBe(400);
    expect(
      (await post({ model: 'speclab-bundled', messages: [{ role: 'user', content: 'x' }], temperature: -3 })).status,
    ).toBe(400);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/^speclab:request_errors_total\{status="404",model_name="speclab-bundled"\} 1$/m);
    expect(text).toMatch(/^speclab:request_errors_total\{status="400",model_name="speclab-bundled"\} 2$/m);
  });
});

/** A raw HTTP request, so that Host and Origin can be what a hostile page's would be. */
function raw(method: string, path: string, headers: Record<string, string>, body = '') {
  const url = new URL(base);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('serve refuses what a web page elsewhere would send', () => {
  const chat = JSON.stringify({
    model: 'speclab-bundled',
    messages: [{ role: 'user', content: 'Text: Ann\nJSON: ' }],
    max_tokens: 4,
  });

  it('a cross-origin text/plain POST and a foreign Host: 403, nothing decoded, counters unchanged', async () => {
    const before = await (await fetch(`${base}/metrics`)).text();
    const crossOrigin = await raw(
      'POST',
      '/v1/chat/completions',
      { host: new URL(base).host, origin: 'http://evil.example', 'content-type': 'text/plain' },
      chat,
    );
    expect(crossOrigin.status).toBe(403);
    expect(JSON.parse(crossOrigin.body)).toEqual({
      error: {
        message:
          'cross-origin request from "http://evil.example" refused: start serve with --cors ORIGIN to let that page use it',
        type: 'forbidden',
        param: null,
        code: 403,
      },
    });
    expect(crossOrigin.headers['access-control-allow-origin']).toBeUndefined();
    // DNS rebinding: the page's own name, resolved to 127.0.0.1.
    const rebound = await raw('GET', '/metrics', { host: `evil.example:${new URL(base).port}` });
    expect(rebound.status).toBe(403);
    expect((JSON.parse(rebound.body) as { error: { message: string } }).error.message).toMatch(
      /Host "evil\.example:\d+" is not this server's .*DNS-rebinding/,
    );
    const foreignPost = await raw(
      'POST',
      '/v1/chat/completions',
      { host: 'evil.example', 'content-type': 'application/json' },
      chat,
    );
    expect(foreignPost.status).toBe(403);
    const preflight = await raw('OPTIONS', '/v1/chat/completions', {
      host: new URL(base).host,
      origin: 'http://evil.example',
      'access-control-request-method': 'POST',
    });
    expect(preflight.status).toBe(403);
    expect(JSON.parse(preflight.body).error.message).toMatch(
      /^cross-origin request from "http:\/\/evil\.example" refused/,
    );
    const sameOriginText = await raw(
      'POST',
      '/v1/chat/completions',
      { host: new URL(base).host, 'content-type': 'text/plain' },
      chat,
    );
    expect(sameOriginText.status).toBe(415);
    expect(await (await fetch(`${base}/metrics`)).text()).toBe(before);
  });
});

describe('serve refuses a mistaken security option in one line, exit 2, before loading anything', () => {
  it('--cors "*" or with a path, and an empty --api-key-file', async () => {
    expect(await refusal(serveMain, ['--cors', '*'])).toMatch(
      /^serve: --cors needs one origin such as https:\/\/notebook\.example:8888 .*not "\*"\), got "\*"$/,
    );
    expect(await refusal(serveMain, ['--cors', 'http://a.test/page'])).toMatch(/^serve: --cors needs one origin/);
    const empty = join(mkdtempSync(join(tmpdir(), 'speclab-serve-')), 'key');
    writeFileSync(empty, '\n');
    expect(await refusal(serveMain, ['--api-key-file', empty])).toBe(
      'serve: --api-key-file is empty: it must hold the API key',
    );
    vi.restoreAllMocks();
  });
});
