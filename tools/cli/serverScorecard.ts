/**
 * `npm run scorecard -- --server URL --model NAME --cases FILE.jsonl [--concurrency N] [--repeats N]`: the
 * structured-output scorecard against any OpenAI-compatible server (vLLM, SGLang, `npm run serve`). Buckets
 * run one at a time; each starts with --warm-up untimed requests each way, then --repeats rounds, each a pair
 * of windows (the bucket's cases with the schema as response_format json_schema, strict, and the same prompts
 * without it), which of the two goes first alternating by round; a window holds at most min(--concurrency,
 * cases in the bucket) requests in flight. Every request streams (tools/cli/serverRequest.ts), so time to first
 * token and each gap between content chunks are measured; every output is judged by the repo's JSON-schema
 * validator. The server's /metrics is read before and after each window (tools/cli/serverScrape.ts): its
 * counters for the model are attributed to the window through import:vllm's reader, after checking that the
 * window's finished requests and generated tokens are the scorecard's own; where they are not, the counters
 * are marked contaminated and per-request counters, where the server sends them, are the figures to use.
 * Speed is judged per bucket by the shared verdict rule (src/core/verdict.ts) over the rounds' pairs.
 */
import { bootstrapInterval, median } from '../../src/core/bootstrap';
import type { ScrapeReading } from '../../src/core/vllmMetrics';
import {
  MIN_SAMPLES_FOR_VERDICT,
  VERDICT_RULE,
  VERDICT_TEXT,
  compareRatios,
  type Verdict,
} from '../../src/core/verdict';
import type { SchemaValidator } from '../../src/grammar/score';
import { readingJson } from './vllmReading';
import { UsageError } from './args';
import { bucketsOf, type Case } from './cases';
import { percentile } from '../../src/core/percentile';
import { terminalSafe } from './terminalSafe';
import { requestDistribution, type RequestSpecRecord } from '../../src/core/requestSpecMetrics';
import {
  COMPLETED_OUTCOMES,
  sendRequest,
  type RequestOutcome,
  type RequestResult,
  type RequestSettings,
  type ServerTarget,
} from './serverRequest';
import {
  FINISHED_REQUESTS,
  GENERATED_TOKENS,
  SPECLAB_I,
  SPECLAB_R,
  counterDelta,
  isValue,
  readingWindow,
  scrape,
  snapshotOf,
  sumReadings,
  whyNot,
  type Figure,
  type Snapshot,
} from './serverScrape';

export { percentile } from '../../src/core/percentile';
export { serverTarget, type ServerTarget, type RequestSettings } from './serverRequest';

const round = (value: number | null, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));
const percentiles = (values: readonly number[]) => ({
  p50: round(percentile(values, 50)),
  p90: round(percentile(values, 90)),
  p99: round(percentile(values, 99)),
  samples: values.length,
});

/** histogram[n] = steps that accepted exactly n draft tokens, from vLLM's per-position counts (position i accepted needs every earlier one). */
export function histogramFromPositions(drafts: number, perPosition: readonly number[]): number[] {
  return Array.from(
    { length: perPosition.length + 1 },
    (_, n) => (n === 0 ? drafts : (perPosition[n - 1] as number)) - (perPosition[n] ?? 0),
  );
}

/** The note's source of R and I: the server's own counters, never the user, in a scorecard. */
const countedBy = (fromI: boolean) => `counted by the server (${fromI ? SPECLAB_I : SPECLAB_R}, window delta)`;

/** Windows' counters for the model, summed, as import:vllm reports them; the reason where there are none. */
function countersOf(reading: ScrapeReading, R: number | null, I: number | null, model: string) {
  // Supplied for this model only: by its name, or unnamed where the scrape holds one model; R wins over I.
  const names = [...reading.vllm.keys()];
  const owner = names.includes(model) ? model : names.length === 1 ? null : undefined;
  const entry = (value: number | null) => (value === null || owner === undefined ? [] : [{ model: owner, value }]);
  const report = readingJson(reading, { R: entry(R), I: R === null ? entry(I) : [] }, null, countedBy(R === null));
  const vllm =
    report.models.find((entry) => entry.model_name === model) ??
    (report.models.length === 1 ? report.models[0] : undefined);
  const sglang =
    report.sglang.find((entry) => entry.model_name === model) ??
    (report.sglang.length === 1 ? report.sglang[0] : undefined);
  if (vllm === undefined && sglang === undefined)
    return { error: `no speculative-decoding counters for model_name ${JSON.stringify(model)} in the scrapes` };
  const positions = vllm?.num_accepted_tokens_per_pos ?? [];
  const histogram =
    vllm === undefined || vllm.num_drafts === null ? null : histogramFromPositions(vllm.num_drafts, positions);
  return {
    vllm:
      vllm === undefined
        ? null
        : {
            ...vllm,
            histogram,
            bonus_tokens: histogram === null || positions.length === 0 ? null : (histogram.at(-1) as number),
          },
    sglang: sglang ?? null,
  };
}

/** Rounds per bucket by default: the fewest pairs the verdict rule judges (MIN_SAMPLES_FOR_VERDICT). */
export const SERVER_DEFAULT_REPEATS = MIN_SAMPLES_FOR_VERDICT;

export interface ServerScorecardSpec {
  target: ServerTarget;
  cases: Case[];
  concurrency: number;
  /** Rounds per bucket: each a schema-on and a schema-off window, the pairs of the speed verdict. */
  repeats: number;
  /** Untimed requests each way before a bucket's first round (the bucket's first cases), outside every window. */
  warmUp: number;
  settings: RequestSettings;
}

async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

const completedOf = (results: readonly RequestResult[]) =>
  results.filter((result) => COMPLETED_OUTCOMES.includes(result.outcome));

/** The tokens of the window's finished requests by their usage; null where one has none. */
function ownTokens(results: readonly RequestResult[]): number | null {
  const completed = completedOf(results);
  return completed.every((result) => result.completionTokens !== null)
    ? completed.reduce((total, result) => total + (result.completionTokens as number), 0)
    : null;
}

/** What other clients ran in the window: its finished requests and generated tokens on /metrics less the scorecard's own. */
export interface ForeignTraffic {
  requests: number;
  /** Null where the server exposes no generated-token counter or a response of the scorecard's gave no usage. */
  tokens: number | null;
}

/**
 * The window's traffic beyond the scorecard's own, or why it cannot be checked. The server counts at least the
 * scorecard's completed requests, and at most every one it accepted (a bad response, an error in the stream or
 * a request the client gave up on may count or not); only requests past that are another client's. Tokens are
 * compared where every accepted request reported its usage.
 */
function foreignTraffic(before: Snapshot, after: Snapshot, results: readonly RequestResult[]): Figure<ForeignTraffic> {
  const requests = counterDelta(before.requests, after.requests, FINISHED_REQUESTS[0]);
  if (!isValue(requests)) return requests;
  const tokens = counterDelta(before.tokens, after.tokens, GENERATED_TOKENS[0]);
  const accepted = results.filter((result) => result.status === null && result.outcome !== 'connection-error');
  const own = {
    completed: completedOf(results).length,
    accepted: accepted.length,
    tokens: accepted.every((result) => result.completionTokens !== null)
      ? accepted.reduce((total, result) => total + (result.completionTokens as number), 0)
      : null,
  };
  const foreignTokens = isValue(tokens) && own.tokens !== null ? tokens.value - own.tokens : null;
  if (requests.value < own.completed || (foreignTokens ?? 0) < 0)
    return {
      error: `the server counted ${requests.value} finished requests${isValue(tokens) ? ` and ${tokens.value} generated tokens` : ''} in the window, fewer than the scorecard's own ${own.completed}${own.tokens === null ? '' : ` and ${own.tokens}`}`,
    };
  return { value: { requests: Math.max(0, requests.value - own.accepted), tokens: foreignTokens } };
}

/** Why the first of two figures that is not a value is missing (the second's reason when the first is known). */
function missing(a: Figure<unknown>, b: Figure<unknown>): { absent: string } | { error: string } {
  const figure = isValue(a) ? b : a;
  return 'error' in figure ? { error: figure.error } : { absent: whyNot(figure) };
}

/** One window: a bucket's requests one way, with the server's figures between the scrapes around it. */
interface Window {
  round: number;
  items: readonly Case[];
  results: RequestResult[];
  seconds: number;
  reading: Figure<ScrapeReading>;
  R: Figure<number>;
  I: Figure<number>;
  foreign: Figure<ForeignTraffic>;
  queue: Figure<{ requests: number; seconds: number }>;
  tokens: number | null;
}

function windowOf(
  round: number,
  items: readonly Case[],
  results: RequestResult[],
  seconds: number,
  before: Snapshot,
  after: Snapshot,
): Window {
  const part = (snapshot: Snapshot, key: 'sum' | 'count'): Figure<number> =>
    isValue(snapshot.queue) ? { value: snapshot.queue.value[key] } : snapshot.queue;
  const sum = counterDelta(part(before, 'sum'), part(after, 'sum'), 'vllm:request_queue_time_seconds_sum');
  const count = counterDelta(part(before, 'count'), part(after, 'count'), 'vllm:request_queue_time_seconds_count');
  return {
    round,
    items,
    results,
    seconds,
    reading: readingWindow(before.reading, after.reading),
    R: counterDelta(before.R, after.R, SPECLAB_R),
    I: counterDelta(before.I, after.I, SPECLAB_I),
    foreign: foreignTraffic(before, after, results),
    queue:
      isValue(sum) && isValue(count) ? { value: { requests: count.value, seconds: sum.value } } : missing(sum, count),
    tokens: ownTokens(results),
  };
}

const tokensPerSecond = (window: Window) =>
  window.tokens === null || window.seconds <= 0 ? null : window.tokens / window.seconds;

/** Known values summed, or null when any window lacks it. */
function summed(figures: readonly Figure<number>[]): number | null {
  return figures.every(isValue) ? figures.reduce((total, figure) => total + figure.value, 0) : null;
}

/** The first reason a figure is missing in any window, or null when every window has it. */
const firstMissing = (figures: readonly Figure<unknown>[]) => {
  const missing = figures.find((figure) => !isValue(figure));
  return missing === undefined ? null : whyNot(missing);
};

/** One row: a bucket one way, over every round's window. */
function rowOf(bucket: string, constrained: boolean, windows: readonly Window[], model: string, effective: number) {
  const results = windows.flatMap((window) => window.results);
  const count = (outcome: RequestOutcome) => results.filter((result) => result.outcome === outcome).length;
  const statuses = new Map<string, number>();
  for (const result of results.filter((r) => r.outcome === 'server-error'))
    statuses.set(String(result.status ?? 'stream'), (statuses.get(String(result.status ?? 'stream')) ?? 0) + 1);
  const completed = completedOf(results);
  const records = completed.map((result) => result.spec);
  const perRequest =
    completed.length > 0 && records.every((record) => record !== null)
      ? requestDistribution(records as RequestSpecRecord[])
      : null;
  const ttfts = completed.flatMap((result) => (result.ttftMs === null ? [] : [result.ttftMs]));
  const ttftMean = ttfts.length === 0 ? null : round(ttfts.reduce((a, b) => a + b, 0) / ttfts.length);
  const tokens = windows.every((window) => window.tokens !== null)
    ? windows.reduce((total, window) => total + (window.tokens as number), 0)
    : null;
  const speeds = windows.flatMap((window) => tokensPerSecond(window) ?? []);
  const speedInterval = speeds.length === 0 ? null : bootstrapInterval(speeds, { statistic: median });
  const queue =
    firstMissing(windows.map((window) => window.queue)) === null
      ? windows.map((window) => (window.queue as { value: { requests: number; seconds: number } }).value)
      : null;
  const queued = queue === null ? null : queue.reduce((total, q) => total + q.requests, 0);
  const queueMean =
    queue === null || queued === 0
      ? null
      : round((queue.reduce((total, q) => total + q.seconds, 0) / (queued as number)) * 1000);
  const readings = windows.map((window) => window.reading);
  const readingsMissing = firstMissing(readings);
  const counters =
    readingsMissing === null
      ? countersOf(
          sumReadings(readings.map((reading) => (reading as { value: ScrapeReading }).value)),
          summed(windows.map((window) => window.R)),
          summed(windows.map((window) => window.I)),
          model,
        )
      : { error: readingsMissing };
  const checks = windows.map((window) => window.foreign);
  const foreignKnown = checks.filter(isValue).map((check) => check.value);
  const foreignRequests = foreignKnown.reduce((total, f) => total + f.requests, 0);
  const foreignTokens = foreignKnown.every((f) => f.tokens !== null)
    ? foreignKnown.reduce((total, f) => total + (f.tokens as number), 0)
    : null;
  const contaminated = foreignRequests > 0 || (foreignTokens ?? 0) > 0;
  return {
    bucket,
    constrained,
    rounds: windows.length,
    effective_concurrency: effective,
    requests: results.length,
    completed: completed.length,
    valid: count('valid'),
    schema_valid_rate: completed.length === 0 ? null : round(count('valid') / completed.length, 3),
    invalid: count('invalid'),
    parse_errors: count('parse-error'),
    truncated: count('truncated'),
    server_errors: [...statuses].map(([status, n]) => ({ status, count: n })),
    bad_responses: count('bad-response'),
    timeouts: count('timeout'),
    connection_errors: count('connection-error'),
    response_problems: windows.flatMap((window) =>
      window.results.flatMap((result, i) =>
        result.problems.length === 0
          ? []
          : [
              {
                case_line: window.items[i]?.line ?? null,
                round: window.round + 1,
                problem: result.problems.join('; '),
              },
            ],
      ),
    ),
    ttft_ms: percentiles(ttfts),
    queue:
      queue === null
        ? null
        : {
            requests: queued,
            mean_ms: queueMean,
            ttft_mean_ms: ttftMean,
            after_queue_ms: queueMean === null || ttftMean === null ? null : round(ttftMean - queueMean),
          },
    queue_unknown: firstMissing(windows.map((window) => window.queue)),
    itl_ms: percentiles(completed.flatMap((result) => result.gapsMs)),
    content_chunks: completed.reduce((total, result) => total + result.contentChunks, 0),
    completion_tokens: tokens,
    window_seconds: round(
      windows.reduce((total, window) => total + window.seconds, 0),
      3,
    ),
    tokens_per_second: speeds.length === 0 ? null : round(median(speeds)),
    tokens_per_second_ci95:
      speedInterval === null ? null : { low: round(speedInterval.low), high: round(speedInterval.high) },
    foreign_traffic: contaminated ? { requests: foreignRequests, tokens: foreignTokens } : null,
    foreign_traffic_unchecked: firstMissing(checks),
    counters_contaminated: contaminated,
    acceptance_source:
      perRequest !== null
        ? 'per-request'
        : 'error' in counters
          ? null
          : contaminated
            ? 'window, contaminated'
            : 'window',
    per_request: perRequest,
    counters: 'error' in counters ? null : counters,
    counters_missing: 'error' in counters ? counters.error : null,
  };
}

/** A bucket's speed, schema on over off, judged by the shared verdict rule over the rounds' pairs. */
function speedOf(bucket: string, on: readonly Window[], off: readonly Window[]) {
  const ratios = on.flatMap((window, i) => {
    const [a, b] = [tokensPerSecond(window), off[i] === undefined ? null : tokensPerSecond(off[i] as Window)];
    return a === null || b === null || b === 0 ? [] : [a / b];
  });
  const comparison = ratios.length === 0 ? null : compareRatios(ratios);
  return {
    bucket,
    rounds: on.length,
    pairs: ratios.length,
    schema_on_over_off: comparison === null ? null : round(comparison.ratio, 3),
    ci95:
      comparison === null ? null : { low: round(comparison.interval.low, 3), high: round(comparison.interval.high, 3) },
    verdict: (comparison?.verdict ?? 'too few samples') as Verdict,
  };
}

/** Every bucket's rows and speed; the first scrape fails loudly when the server does not answer at all. */
export async function serverScorecard(
  spec: ServerScorecardSpec,
  validate: SchemaValidator,
  onProgress?: (line: string) => void,
) {
  const { target, cases, concurrency, repeats, warmUp, settings } = spec;
  const first = await scrape(target);
  if ('error' in first && !first.answered) throw new UsageError(`cannot reach the server: ${first.error}`);
  const rows = [];
  const speed = [];
  let last: Snapshot = snapshotOf(first, settings.model);
  for (const bucket of bucketsOf(cases)) {
    const items = cases.filter((item) => item.bucket === bucket);
    const effective = Math.min(concurrency, items.length);
    // Untimed, outside every window: the server's first request of a schema (its grammar compile) is not timed.
    for (const constrained of [true, false])
      await pool(items.slice(0, warmUp), effective, (item) =>
        sendRequest(target, item, constrained, settings, validate),
      );
    let previous = warmUp > 0 ? snapshotOf(await scrape(target), settings.model) : last;
    const windows = { on: [] as Window[], off: [] as Window[] };
    for (let r = 0; r < repeats; r++) {
      for (const constrained of r % 2 === 0 ? [true, false] : [false, true]) {
        const started = performance.now();
        const results = await pool(items, effective, (item) =>
          sendRequest(target, item, constrained, settings, validate),
        );
        const seconds = (performance.now() - started) / 1000;
        const current = snapshotOf(await scrape(target), settings.model);
        const window = windowOf(r, items, results, seconds, previous, current);
        (constrained ? windows.on : windows.off).push(window);
        previous = current;
        const way = `${bucket}, schema ${constrained ? 'on' : 'off'}`;
        results.forEach((result, i) => {
          if (result.problems.length > 0)
            onProgress?.(
              `scorecard: ${way}, line ${items[i]?.line}: the server's response: ${result.problems.join('; ')}`,
            );
        });
        const foreign =
          isValue(window.foreign) && (window.foreign.value.requests > 0 || (window.foreign.value.tokens ?? 0) > 0)
            ? `; /metrics holds ${window.foreign.value.requests} requests and ${window.foreign.value.tokens ?? 'unknown'} tokens not the scorecard's`
            : '';
        onProgress?.(`scorecard: ${way}, round ${r + 1}/${repeats}: ${results.length} requests${foreign}`);
      }
    }
    last = previous;
    rows.push(
      rowOf(bucket, true, windows.on, settings.model, effective),
      rowOf(bucket, false, windows.off, settings.model, effective),
    );
    speed.push(speedOf(bucket, windows.on, windows.off));
  }
  return {
    rows,
    speed,
    gpu_utilisation_percent: isValue(last.gpu) ? round(last.gpu.value) : null,
    gpu_utilisation_unknown: isValue(last.gpu) ? null : whyNot(last.gpu),
  };
}

export type ServerScorecard = Awaited<ReturnType<typeof serverScorecard>>;

/** The per-request table, where the server reported each request's counters, and what it means beside the window's. */
function perRequestLines(card: ServerScorecard): string[] {
  const rows = card.rows.filter((row) => row.per_request !== null);
  const windows =
    "The table below is /metrics read before and after each window: window aggregates, which hold every request the server ran in the window (another client's too) and cannot say which request contributed what.";
  if (rows.length === 0) return [windows, ''];
  const pair = (p: { median: number | null; p90: number | null }) => `${cell(p.median)} / ${cell(p.p90)}`;
  return [
    "Per request: each response's own counters (vLLM's metrics.speculative_decoding, SGLang's meta_info), summed over the bucket's requests, so exact at any concurrency. Pooled figures weigh every step and draft token alike, as vLLM's /metrics aggregate does (long completions weigh more); median and p90 weigh every request alike.",
    '',
    '| bucket | schema | requests | steps | R | I | D | A | A/D pooled (vLLM /metrics) | A/D median / p90 | acceptance length pooled (vLLM /metrics) | acceptance length median / p90 | histogram (steps accepting 0, 1, … drafts) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => {
      const d = row.per_request as NonNullable<typeof row.per_request>;
      const p = d.pooled;
      return `| ${row.bucket} | ${row.constrained ? 'on' : 'off'} | ${d.requests} | ${p.num_spec_steps} | ${cell(p.R)} | ${cell(p.I)} | ${p.D} | ${p.A} | ${cell(p.draft_acceptance_rate)} | ${pair(d.per_request.draft_acceptance_rate)} | ${cell(p.mean_acceptance_length)} | ${pair(d.per_request.acceptance_length)} | ${p.acceptance_histogram?.join(', ') ?? '—'} |`;
    }),
    '',
    ...(rows.length < card.rows.length
      ? ['Windows without a per-request row: a response carried no per-request counters.', '']
      : []),
    windows,
    '',
  ];
}

/** Whether TTFT measured queueing: the server's queue wait beside it where /metrics exposes it, else a line that says it may. */
function queueLines(card: ServerScorecard, concurrency: number): string[] {
  const rows = card.rows.filter((row) => row.queue !== null);
  if (rows.length === 0)
    return concurrency > 1
      ? [
          `No queue wait (${terminalSafe(card.rows[0]?.queue_unknown ?? '', { maxChars: 200 })}): at concurrency ${concurrency}, above the server's parallelism TTFT includes the wait in its queue, so it measures queueing as much as decoding.`,
          '',
        ]
      : [];
  return [
    "Queue wait, from the server's vllm:request_queue_time_seconds (mean over the requests that left its queue in the window); TTFT less it is the time to the first token once decoding began:",
    '',
    '| bucket | schema | requests dequeued | mean queue wait ms | mean TTFT ms | mean TTFT after the queue ms |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.bucket} | ${row.constrained ? 'on' : 'off'} | ${row.queue?.requests} | ${cell(row.queue?.mean_ms, 1)} | ${cell(row.queue?.ttft_mean_ms, 1)} | ${cell(row.queue?.after_queue_ms, 1)} |`,
    ),
    '',
  ];
}

const cell = (value: number | null | undefined, digits = 3) =>
  value === null || value === undefined ? '—' : Number.isInteger(value) ? String(value) : value.toFixed(digits);

/** The window-traffic cell of a row: the scorecard's own only, contaminated by another client's, or unchecked and why. */
function trafficCell(row: ServerScorecard['rows'][number]): string {
  if (row.foreign_traffic !== null)
    return `contaminated: ${row.foreign_traffic.requests} requests and ${row.foreign_traffic.tokens ?? 'unknown'} tokens not the scorecard's`;
  if (row.foreign_traffic_unchecked !== null)
    return `unchecked: ${terminalSafe(row.foreign_traffic_unchecked, { maxChars: 160 })}`;
  return "the scorecard's own only";
}

/** The speed table: each bucket's schema-on over schema-off tokens/s, paired by round, with the shared verdict. */
function speedLines(card: ServerScorecard): string[] {
  const byWay = (bucket: string, constrained: boolean) =>
    card.rows.find((row) => row.bucket === bucket && row.constrained === constrained);
  const speedCell = (row: ServerScorecard['rows'][number] | undefined) =>
    row?.tokens_per_second === null || row === undefined
      ? '—'
      : `${cell(row.tokens_per_second, 1)} [${cell(row.tokens_per_second_ci95?.low, 1)}–${cell(row.tokens_per_second_ci95?.high, 1)}]`;
  return [
    '| bucket | rounds | tokens/s on, median [95%] | tokens/s off, median [95%] | on / off, median of pairs [95%] | verdict |',
    '|---|---|---|---|---|---|',
    ...card.speed.map(
      (speed) =>
        `| ${speed.bucket} | ${speed.rounds} | ${speedCell(byWay(speed.bucket, true))} | ${speedCell(byWay(speed.bucket, false))} | ${speed.schema_on_over_off === null ? '—' : `${cell(speed.schema_on_over_off, 2)}× [${cell(speed.ci95?.low, 2)}–${cell(speed.ci95?.high, 2)}]`} | ${VERDICT_TEXT[speed.verdict]} |`,
    ),
    '',
    `Speed: each round's tokens/s is the window's completion tokens over its wall time; schema on over off is paired round by round (which window went first alternates), judged by ${VERDICT_RULE}.`,
    '',
  ];
}

/** One line per response that broke the API or carried a number that is not one. */
function problemLines(card: ServerScorecard): string[] {
  const problems = card.rows.flatMap((row) =>
    row.response_problems.map(
      (p) =>
        `- ${row.bucket}, schema ${row.constrained ? 'on' : 'off'}, line ${p.case_line}, round ${p.round}: ${terminalSafe(p.problem, { maxChars: 300 })}`,
    ),
  );
  return problems.length === 0
    ? []
    : [
        "Responses the server sent that break the API's shape or numbers (the rest of each window is reported):",
        '',
        ...problems,
        '',
      ];
}

/** The Markdown report: correctness and latency per bucket and way, speed with its verdict, then the server's counters. */
export function serverScorecardMarkdown(card: ServerScorecard, spec: ServerScorecardSpec): string {
  const { settings } = spec;
  const buckets = bucketsOf(spec.cases);
  const inFlight = card.speed
    .map((speed) => `${speed.bucket} ${card.rows.find((row) => row.bucket === speed.bucket)?.effective_concurrency}`)
    .join(', ');
  const lines = [
    `${spec.target.base.href} (model ${terminalSafe(settings.model, { maxChars: 80 })}): ${spec.cases.length} cases in ${buckets.length} buckets, each with the schema as response_format (on) and without it (off); T = ${settings.temperature}, seed ${settings.seed}, max_tokens ${settings.maxTokens}, timeout ${settings.timeoutMs / 1000} s`,
    `Rounds: ${spec.repeats} per bucket, each a schema-on and a schema-off window (which goes first alternates by round), after ${spec.warmUp} untimed warm-up request${spec.warmUp === 1 ? '' : 's'} each way; buckets one at a time; /metrics read before and after each window`,
    `Concurrency: ${spec.concurrency} requested; in flight at most min(${spec.concurrency}, cases in the bucket): ${inFlight}`,
    `GPU utilisation: ${card.gpu_utilisation_percent === null ? terminalSafe(card.gpu_utilisation_unknown ?? '', { maxChars: 200 }) : `${card.gpu_utilisation_percent}% (at the last scrape)`}`,
    '',
    '| bucket | schema | requests | valid | invalid | parse errors | truncated | server errors | timeouts | TTFT ms p50 / p90 / p99 | ITL ms p50 / p90 / p99 | tokens | tokens/s median |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const trio = (p: { p50: number | null; p90: number | null; p99: number | null }) =>
    `${cell(p.p50, 1)} / ${cell(p.p90, 1)} / ${cell(p.p99, 1)}`;
  for (const row of card.rows) {
    const errors = [
      ...row.server_errors.map((e) => `${e.count} × ${e.status === 'stream' ? 'error in stream' : `HTTP ${e.status}`}`),
      ...(row.bad_responses > 0 ? [`${row.bad_responses} × bad response`] : []),
      ...(row.connection_errors > 0 ? [`${row.connection_errors} × no connection`] : []),
    ];
    lines.push(
      `| ${row.bucket} | ${row.constrained ? 'on' : 'off'} | ${row.requests} | ${row.valid} | ${row.invalid} | ${row.parse_errors} | ${row.truncated} | ${errors.length === 0 ? '0' : errors.join(', ')} | ${row.timeouts} | ${trio(row.ttft_ms)} | ${trio(row.itl_ms)} | ${cell(row.completion_tokens)} | ${cell(row.tokens_per_second, 1)} |`,
    );
  }
  lines.push(
    '',
    'ITL: the gaps between chunks that carried content; a speculative step can bring several tokens in one chunk. Percentiles are nearest-rank over every request of every round.',
    '',
    ...problemLines(card),
    ...speedLines(card),
    ...queueLines(card, spec.concurrency),
  );
  lines.push(...perRequestLines(card));
  lines.push(
    '| bucket | schema | num_drafts (steps) | R | I | D | A | D/R | A/D | A/R | mean acceptance length | histogram (steps accepting 0, 1, … drafts) | bonus tokens | traffic in the windows |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  const sglang: string[] = [];
  for (const row of card.rows) {
    const schema = row.constrained ? 'on' : 'off';
    const vllm = row.counters?.vllm;
    if (row.counters === null)
      lines.push(
        `| ${row.bucket} | ${schema} | ${terminalSafe(row.counters_missing ?? '', { maxChars: 200 })} ||||||||||| ${trafficCell(row)} |`,
      );
    else if (vllm)
      lines.push(
        `| ${row.bucket} | ${schema} | ${cell(vllm.num_drafts)} | ${cell(vllm.R)} | ${cell(vllm.I)} | ${vllm.D} | ${vllm.A} | ${cell(vllm.grammar_survival)} | ${cell(vllm.draft_acceptance_rate)} | ${cell(vllm.draft_yield)} | ${cell(vllm.mean_acceptance_length)} | ${vllm.histogram?.join(', ') ?? '—'} | ${cell(vllm.bonus_tokens)} | ${trafficCell(row)} |`,
      );
    const sg = row.counters?.sglang;
    if (sg)
      sglang.push(
        `| ${row.bucket} | ${schema} | ${cell(sg.spec_accept_length)} | ${cell(sg.spec_accept_rate)} | ${cell(sg.spec_verify_calls)} | ${trafficCell(row)} |`,
      );
  }
  const contaminated = card.rows.some((row) => row.counters_contaminated);
  lines.push(
    '',
    "R and I come from the server only where it counts them (npm run serve does; vLLM counts D and A only, so R, I, D/R and A/R show —). Bonus tokens: steps that accepted every draft position, so the target's token was a bonus, not a correction.",
    `Traffic in the windows: the requests the server finished (${FINISHED_REQUESTS.join(' or ')}) and the tokens ` +
      `it generated (${GENERATED_TOKENS.join(' or ')}) between the scrapes, against the scorecard's own completed ` +
      `requests and their usage.completion_tokens.${
        contaminated
          ? " Where they differ, another client's requests (or one of the scorecard's own that the server finished after its timeout) ran in the window: those rows' counters hold them, so their acceptance figures are contaminated; use the per-request table where the server sends per-request counters (vLLM's --per-request-spec-decode-metrics, SGLang's meta_info), or rerun on a quiet server."
          : ''
      }`,
  );
  if (sglang.length > 0)
    lines.push(
      '',
      '| bucket | schema | SGLang spec_accept_length (gauge) | spec_accept_rate (gauge) | spec_verify_calls (window) | traffic in the windows |',
      '|---|---|---|---|---|---|',
      ...sglang,
      '',
      "SGLang's accept length and rate are gauges over its own last logging window, not this window's.",
    );
  return lines.join('\n');
}
