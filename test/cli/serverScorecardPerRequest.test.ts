/**
 * `scorecard --server` against recorded responses that carry per-request counters, in the formats of vLLM's
 * PR #48915 (metrics.speculative_decoding on the final usage chunk) and SGLang's meta_info, served by a tiny
 * HTTP server with no /metrics. Every figure below is computed by hand from the fixtures:
 * vLLM  a: 4 steps, D 12, A 6, histogram [1, 1, 1, 1] (length 2.5, A/D 0.5)
 *       b: 10 steps, D 30, A 3, histogram [7, 3, 0, 0] (length 1.3, A/D 0.1)
 *       pooled: 14 steps, D 42, A 9, A/D 9/42 = 0.214, length 1 + 9/14 = 1.643, histogram [8, 4, 1, 1];
 *       nearest-rank median of two requests is the lower, p90 the higher.
 * SGLang c: 5 verify steps, 15 drafted, 5 accepted (length 2, A/D 0.333); d: 5, 15, 10 (length 3, A/D 0.667);
 *       pooled: 10 steps, D 30, A 15, A/D 0.5, length 2.5.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as scorecard } from '../../tools/cli/scorecard';
import { listenOnLoopback } from '../support/loopback';

const STREAMS: Record<string, string> = {
  'review one': 'vllm-per-request-a.sse',
  'review two': 'vllm-per-request-b.sse',
  'event one': 'sglang-per-request-c.sse',
  'event two': 'sglang-per-request-d.sse',
};

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  if (request.url !== '/v1/chat/completions') {
    response.writeHead(404).end();
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { content: string }[] };
  const file = STREAMS[body.messages[0]?.content ?? ''] as string;
  response
    .writeHead(200, { 'content-type': 'text/event-stream' })
    .end(readFileSync(join('test/fixtures/openai', file)));
}

const server = createServer((request, response) => void answer(request, response));
let base = '';
const tmp = mkdtempSync(join(tmpdir(), 'speclab-per-request-'));
const SCHEMA = {
  type: 'object',
  properties: { sentiment: { enum: ['positive', 'negative'] } },
  required: ['sentiment'],
};

beforeAll(async () => {
  base = await listenOnLoopback(server);
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

async function card(prompts: string[], json: boolean) {
  const cases = join(tmp, `${prompts[0]}.jsonl`);
  writeFileSync(cases, prompts.map((prompt) => JSON.stringify({ bucket: 'enum', prompt, schema: SCHEMA })).join('\n'));
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const args = ['--server', base, '--model', 'test-model', '--cases', cases, '--concurrency', '2', '--repeats', '1'];
  expect(await scorecard(json ? [...args, '--json'] : args)).toBe(0);
  return out.join('\n');
}

describe('scorecard --server with per-request counters', () => {
  it("vLLM's metrics.speculative_decoding: pooled figures and the distribution over requests, by hand", async () => {
    const json = JSON.parse(await card(['review one', 'review two'], true)) as { rows: { per_request: unknown }[] };
    expect(json.rows[0]?.per_request).toEqual({
      requests: 2,
      sources: ['vllm'],
      pooled: {
        num_spec_steps: 14,
        R: null,
        I: null,
        D: 42,
        A: 9,
        draft_acceptance_rate: 0.214,
        mean_acceptance_length: 1.643,
        acceptance_histogram: [8, 4, 1, 1],
      },
      per_request: {
        acceptance_length: { median: 1.3, p90: 2.5, samples: 2 },
        draft_acceptance_rate: { median: 0.1, p90: 0.5, samples: 2 },
      },
    });
    const markdown = await card(['review one', 'review two'], false);
    expect(markdown).toContain(
      '| enum | on | 2 | 14 | — | — | 42 | 9 | 0.214 | 0.100 / 0.500 | 1.643 | 1.300 / 2.500 | 8, 4, 1, 1 |',
    );
    expect(markdown).toMatch(
      /Pooled figures weigh every step and draft token alike, as vLLM's \/metrics aggregate does/,
    );
  });

  it("SGLang's meta_info: the same figures from its verify, accept and draft counts", async () => {
    const json = JSON.parse(await card(['event one', 'event two'], true)) as {
      rows: { per_request: { pooled: object; per_request: object } }[];
    };
    expect(json.rows[0]?.per_request.pooled).toEqual({
      num_spec_steps: 10,
      R: null,
      I: null,
      D: 30,
      A: 15,
      draft_acceptance_rate: 0.5,
      mean_acceptance_length: 2.5,
      acceptance_histogram: null,
    });
    expect(json.rows[0]?.per_request.per_request).toEqual({
      acceptance_length: { median: 2, p90: 3, samples: 2 },
      draft_acceptance_rate: { median: 0.333, p90: 0.667, samples: 2 },
    });
  });
});
