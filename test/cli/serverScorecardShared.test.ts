/**
 * `scorecard --server` against `npm run serve` (the real CLI and bundled pair, as a process), as an engineer
 * runs it on a shared server (issue 54): once quiet, once while a second client keeps sending requests, and
 * twice identically with --repeats 5 for the speed verdict. Decoding is seeded, so every request decodes the
 * same tokens in both runs; only the attribution of /metrics differs. No wall-clock time is asserted: the
 * speed test checks that two identical runs do not contradict each other under the shared verdict rule.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as scorecard } from '../../tools/cli/scorecard';
import { startServe, type ServeProcess } from '../support/serveProcess';

let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--L', '3', '--per-request-spec-decode-metrics', 'summary']);
}, 120_000);

afterAll(() => serve.stop());

interface Row {
  bucket: string;
  constrained: boolean;
  requests: number;
  completion_tokens: number;
  effective_concurrency: number;
  foreign_traffic: { requests: number; tokens: number | null } | null;
  foreign_traffic_unchecked: string | null;
  counters_contaminated: boolean;
  acceptance_source: string;
  per_request: { pooled: object };
  counters: { vllm: { num_drafts: number; D: number; A: number; R: number; I: number } };
}

interface Speed {
  bucket: string;
  pairs: number;
  schema_on_over_off: number;
  ci95: { low: number; high: number };
  verdict: string;
}

async function card(args: string[]): Promise<{ rows: Row[]; speed: Speed[] }> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const code = await scorecard([
      '--server',
      serve.base,
      '--model',
      'speclab-bundled',
      '--cases',
      'examples/cases.jsonl',
      '--buckets',
      'small-enum',
      '--json',
      ...args,
    ]);
    expect(code).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return JSON.parse(lines.join('\n')) as { rows: Row[]; speed: Speed[] };
}

/** Another client: non-streamed requests one after another until stopped; what it ran. */
function secondClient() {
  let running = true;
  const sent = { requests: 0, tokens: 0 };
  const loop = (async () => {
    while (running) {
      const response = await fetch(`${serve.base}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'speclab-bundled', prompt: 'Text: a note.\nJSON: ', max_tokens: 6, seed: 7 }),
      });
      const body = (await response.json()) as { usage: { completion_tokens: number } };
      sent.requests++;
      sent.tokens += body.usage.completion_tokens;
    }
  })();
  return {
    sent,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

const counters = (row: Row) => {
  const { num_drafts, D, A, R, I } = row.counters.vllm;
  return { num_drafts, D, A, R, I };
};

describe('scorecard --server against npm run serve', () => {
  it('says which window traffic was not its own while another client sends requests, and keeps the per-request figures exact', async () => {
    const args = ['--repeats', '2', '--max-tokens', '12'];
    const quiet = await card(args);
    for (const row of quiet.rows) expect(row).toMatchObject({ foreign_traffic: null, foreign_traffic_unchecked: null });
    const other = secondClient();
    let busy: Awaited<ReturnType<typeof card>>;
    try {
      busy = await card(args);
    } finally {
      await other.stop();
    }
    expect(other.sent.requests).toBeGreaterThan(0);
    for (const [i, row] of busy.rows.entries()) {
      const alone = quiet.rows[i] as Row;
      // The scorecard's own requests decode the same tokens: its usage and per-request counters are a quiet run's.
      expect(row.completion_tokens).toBe(alone.completion_tokens);
      expect(row.per_request).toEqual(alone.per_request);
      expect(row.foreign_traffic_unchecked).toBeNull();
      if (row.foreign_traffic === null) {
        expect(counters(row)).toEqual(counters(alone));
        expect(row.acceptance_source).toBe('per-request');
      } else {
        expect(row.foreign_traffic.requests).toBeGreaterThan(0);
        expect(row.foreign_traffic.tokens).toBeGreaterThan(0);
        expect(row.counters_contaminated).toBe(true);
        expect(row.acceptance_source).toBe('per-request');
        // The window's counters hold the other client's drafts too.
        expect(counters(row).num_drafts).toBeGreaterThan(counters(alone).num_drafts);
      }
    }
    // The client ran between the windows too, so at most its traffic lands in them.
    const foreign = busy.rows.map((row) => row.foreign_traffic ?? { requests: 0, tokens: 0 });
    expect(foreign.reduce((total, f) => total + f.requests, 0)).toBeLessThanOrEqual(other.sent.requests);
    expect(foreign.reduce((total, f) => total + (f.tokens ?? 0), 0)).toBeLessThanOrEqual(other.sent.tokens);
    expect(busy.rows.some((row) => row.foreign_traffic !== null)).toBe(true);
  }, 300_000);

  it('two identical runs with --repeats 5 give speed verdicts that do not contradict', async () => {
    const args = ['--repeats', '5', '--max-tokens', '8', '--concurrency', '4'];
    const runs = [await card(args), await card(args)];
    const verdicts = runs.map((run) => run.speed[0] as Speed);
    for (const [i, run] of runs.entries()) {
      const speed = verdicts[i] as Speed;
      // Five rounds, each a pair; the ratio is the median of pairs, inside its interval.
      expect(speed).toMatchObject({ bucket: 'small-enum', pairs: 5 });
      expect(speed.verdict).not.toBe('too few samples');
      expect(speed.ci95.low).toBeLessThanOrEqual(speed.schema_on_over_off);
      expect(speed.ci95.high).toBeGreaterThanOrEqual(speed.schema_on_over_off);
      // Two cases in the bucket: at most two requests were in flight, whatever --concurrency asked.
      for (const row of run.rows) expect(row.effective_concurrency).toBe(2);
    }
    const [a, b] = verdicts as [Speed, Speed];
    const contradicts = (x: Speed, y: Speed) =>
      (x.verdict === 'faster' && (y.verdict === 'slower' || y.schema_on_over_off < 1)) ||
      (x.verdict === 'slower' && (y.verdict === 'faster' || y.schema_on_over_off > 1));
    expect(contradicts(a, b) || contradicts(b, a), `${JSON.stringify(a)} against ${JSON.stringify(b)}`).toBe(false);
  }, 300_000);
});
