/**
 * `npm run serve` as a process (the bundled pair behind the OpenAI-compatible endpoint), and `scorecard
 * --server` run in this process against it end to end, with no mock: the example case file, small
 * max_tokens; the scorecard's per-window counters must add up to the server's own /metrics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as scorecard } from '../../tools/cli/scorecard';
import { readMetrics } from '../../src/core/vllmMetrics';
import { expectToolJson } from '../support/jsonStyle';

let child: ChildProcess;
let base = '';
let banner = '';
const exited = () => new Promise<number | null>((resolve) => child.once('exit', resolve));

beforeAll(async () => {
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'tools/cli/runInVite.ts', '/tools/cli/serve.ts', '--port', '0', '--L', '3'],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)));
  });
  base = /http:\/\/127\.0\.0\.1:\d+/.exec(banner)?.[0] ?? '';
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const done = exited();
    child.kill('SIGTERM');
    await done;
  }
});

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
  it('says where it listens and that requests are queued', () => {
    expect(banner).toMatch(
      /^serving speclab-bundled \(spectr-gbv, K = 3, L = 3, drafter model\) on http:\/\/127\.0\.0\.1:\d+: .*one request at a time \(a queue\), a reference for the metrics contract, not a production server\n$/,
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
