/**
 * `npm run import:vllm -- --responses FILE`: per-request records read into the pooled figures and their
 * distribution over requests, from files in the formats of vLLM PR #48915 (response bodies and the streamed usage
 * chunk), SGLang's /generate meta_info and AIPerf PR #1191's profile_export.jsonl. Every figure is by hand:
 * vLLM   a: 43 steps, D 129, A 10, histogram [39, 1, 0, 3] (PR #48915's own example: length 1.233, A/D 0.078)
 *        b: 4 steps, D 12, A 6, [1, 1, 1, 1] (detailed: per-step arrays)    length 2.5, A/D 0.5
 *        c: 10 steps, D 30, A 3, [7, 3, 0, 0] (streamed: the usage chunk)   length 1.3, A/D 0.1
 *        pooled: 57 steps, D 171, A 19: A/D 19/171 = 0.111, length 1 + 19/57 = 1.333, histogram [47, 5, 1, 4];
 *        nearest-rank median of three is the second, p90 the third: lengths 1.233 < 1.3 < 2.5, A/D 0.078 < 0.1 < 0.5.
 *        Also in the file: an earlier stream chunk and an n = 2 response (null object), without counters; an API error.
 * SGLang s1: 5 verify, 15 drafted, 5 accepted (2, 0.333); s2: 5, 15, 10 (3, 0.667); s3: 8, 24, 4 (1.5, 0.167);
 *        pooled: 18 steps, D 54, A 19: A/D 0.352, length 1 + 19/18 = 2.056; no histogram (SGLang sends none).
 * AIPerf r1: 8 steps, D 32, A 18, {"0":1,"1":1,"2":2,"3":3,"4":1} (length 3.25, A/D 0.5625);
 *        r2: 20 steps, D 80, A 10, {"0":12,"1":6,"2":2} (1.5, 0.125); r3 ran no verify step; r4 failed.
 *        pooled: 28 steps, D 112, A 28: A/D 0.25, length 2, histogram [13, 7, 4, 3, 1].
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../tools/cli/importVllm';
import { refusal } from '../support/cliRefusal';

const FIXTURES = 'test/fixtures/responses';
const tmp = mkdtempSync(join(tmpdir(), 'speclab-responses-'));

afterEach(() => vi.restoreAllMocks());

async function report(args: string[]): Promise<string> {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  expect(await main(args)).toBe(0);
  return out.join('\n');
}

const json = async (path: string) =>
  JSON.parse(await report(['--responses', path, '--json'])) as {
    lines: object;
    models: { model_name: string; requests: number; sources: string[]; pooled: object; per_request: object }[];
  };

describe('import:vllm --responses', () => {
  it('vLLM responses (bodies, the streamed usage chunk, detailed arrays): pooled figures and the distribution, by hand', async () => {
    const read = await json(join(FIXTURES, 'vllm-responses.jsonl'));
    expect(read.lines).toEqual({ with_counters: 3, without_counters: 2, failed: 1 });
    expect(read.models).toEqual([
      {
        model_name: 'test-model',
        requests: 3,
        sources: ['vllm'],
        pooled: {
          num_spec_steps: 57,
          R: null,
          I: null,
          D: 171,
          A: 19,
          draft_acceptance_rate: 0.111,
          mean_acceptance_length: 1.333,
          acceptance_histogram: [47, 5, 1, 4],
        },
        per_request: {
          acceptance_length: { median: 1.3, p90: 2.5, samples: 3 },
          draft_acceptance_rate: { median: 0.1, p90: 0.5, samples: 3 },
        },
      },
    ]);
    const text = await report(['--responses', join(FIXTURES, 'vllm-responses.jsonl')]);
    expect(text).toContain(
      '| test-model | 3 | vllm | 57 | — | — | 171 | 19 | 0.111 | 0.100 / 0.500 | 1.333 | 1.300 / 2.500 | 47, 5, 1, 4 |',
    );
    expect(text).toMatch(/3 requests with per-request counters; 2 JSON lines without them .*; 1 failed requests/);
    expect(text).toMatch(/Pooled figures weigh every step and draft token alike, as vLLM's \/metrics aggregate does/);
  });

  it("SGLang's meta_info (native /generate responses, no model field)", async () => {
    const read = await json(join(FIXTURES, 'sglang-generate.jsonl'));
    expect(read.models).toEqual([
      {
        model_name: '(no model field)',
        requests: 3,
        sources: ['sglang'],
        pooled: {
          num_spec_steps: 18,
          R: null,
          I: null,
          D: 54,
          A: 19,
          draft_acceptance_rate: 0.352,
          mean_acceptance_length: 2.056,
          acceptance_histogram: null,
        },
        per_request: {
          acceptance_length: { median: 2, p90: 3, samples: 3 },
          draft_acceptance_rate: { median: 0.333, p90: 0.667, samples: 3 },
        },
      },
    ]);
  });

  it("AIPerf's profile_export.jsonl: spec_decode_acceptance records, a zero-step request and a failed one set apart", async () => {
    const read = await json(join(FIXTURES, 'aiperf-profile_export.jsonl'));
    expect(read.lines).toEqual({ with_counters: 2, without_counters: 1, failed: 1 });
    expect(read.models[0]).toMatchObject({
      requests: 2,
      sources: ['aiperf'],
      pooled: { num_spec_steps: 28, D: 112, A: 28, draft_acceptance_rate: 0.25, mean_acceptance_length: 2 },
      per_request: {
        acceptance_length: { median: 1.5, p90: 3.25, samples: 2 },
        draft_acceptance_rate: { median: 0.125, p90: 0.563, samples: 2 },
      },
    });
    expect(read.models[0]?.pooled).toMatchObject({ acceptance_histogram: [13, 7, 4, 3, 1] });
  });

  it('an SSE recording (data: lines, [DONE], comments) reads as the same requests', async () => {
    const sse = join(tmp, 'stream.sse');
    writeFileSync(
      sse,
      ['vllm-per-request-a.sse', 'vllm-per-request-b.sse']
        .map((file) => readFileSync(join('test/fixtures/openai', file), 'utf8'))
        .join(': keep-alive\n\n'),
    );
    const read = await json(sse);
    expect(read.models[0]?.pooled).toMatchObject({
      num_spec_steps: 14,
      D: 42,
      A: 9,
      acceptance_histogram: [8, 4, 1, 1],
    });
  });

  describe('hostile or mistaken input: one line, exit 2', () => {
    const file = (name: string, text: string) => {
      const path = join(tmp, name);
      writeFileSync(path, text);
      return path;
    };
    const vllmLine = (spec: object, id = 'x') =>
      JSON.stringify({ id, model: 'm', choices: [], metrics: { speculative_decoding: spec } });
    const good = {
      num_spec_steps: 2,
      num_draft_tokens: 6,
      num_accepted_draft_tokens: 3,
      acceptance_histogram: [0, 1, 1, 0],
    };
    it.each([
      ['not JSON', 'data: {"id": ', /line 1 is not JSON/],
      ['a negative count', vllmLine({ ...good, num_spec_steps: -2 }), /must be whole numbers ≥ 0, got -2, 6, 3/],
      [
        'an overflowed count (1e400 is Infinity)',
        vllmLine(good).replace('"num_draft_tokens":6', '"num_draft_tokens":1e400'),
        /got 2, null, 3/,
      ],
      ['a fractional count', vllmLine({ ...good, num_accepted_draft_tokens: 2.5 }), /must be whole numbers/],
      ['accepted above drafted', vllmLine({ ...good, num_draft_tokens: 2 }), /more than drafted/],
      [
        'a histogram against the steps',
        vllmLine({ ...good, acceptance_histogram: [1, 1, 1, 0] }),
        /sums to 3, not num_spec_steps 2/,
      ],
      [
        'a histogram against the accepted drafts',
        vllmLine({ ...good, acceptance_histogram: [0, 0, 2, 0] }),
        /accepts 4 drafts/,
      ],
      [
        'a ratio that is not its counts',
        vllmLine({ ...good, mean_acceptance_length: 9 }),
        /mean_acceptance_length is 9, but its counts give 2.5/,
      ],
      [
        'a negative ratio',
        vllmLine({ ...good, draft_acceptance_rate: -0.5 }),
        /draft_acceptance_rate is -0.5, not a finite number ≥ 0/,
      ],
      [
        'per-step arrays against the totals',
        vllmLine({ ...good, per_step_accepted: [3, 1] }),
        /per_step_accepted must hold one count per step/,
      ],
      [
        'a sparse histogram with a bad key',
        vllmLine({ ...good, acceptance_histogram: { '1': 1, '0x2': 1 } }),
        /acceptance_histogram must be/,
      ],
      [
        'the same request twice',
        `${vllmLine(good)}\n${vllmLine(good)}`,
        /line 2 carries the counters of request "x" again \(line 1\)/,
      ],
      ['no counters anywhere', '{"id": "a", "choices": []}\n', /no per-request counters on any line/],
      ['a JSON array', '[1, 2]', /line 1 is not a JSON object/],
    ])('%s', async (_name, text, message) => {
      const path = file('bad.jsonl', text);
      expect(await refusal(main, ['--responses', path])).toMatch(message);
    });
    it('a file past the size limit is refused unread, and an empty name or a mixed source before reading', async () => {
      expect(await refusal(main, ['--responses', '/dev/zero'])).toMatch(/larger than 32 MiB/);
      expect(await refusal(main, ['--responses', ''])).toMatch(/--responses needs a file name/);
      expect(await refusal(main, ['--responses', 'x.jsonl', 'scrape.prom'])).toMatch(/give one scrape file, or/);
      expect(await refusal(main, ['--responses', 'x.jsonl', '--cost-ratio', '0.1'])).toMatch(
        /--cost-ratio goes with a scrape, not --responses/,
      );
    });
  });
});
