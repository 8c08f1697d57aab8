/**
 * `npm run scorecard -- --server URL --model NAME --cases FILE.jsonl [--concurrency N]`: the structured-output
 * scorecard against any OpenAI-compatible server (vLLM, SGLang, `npm run serve`). Buckets run one at a time,
 * and within a bucket the schema-on requests (the case's schema as response_format json_schema, strict) and
 * then the same prompts without it, each a window: --concurrency requests in flight, at the fixed
 * temperature, seed and max_tokens. Every request streams (server-sent events), so time to first token and
 * each gap between content chunks are measured; every output is judged by the repo's JSON-schema validator
 * (valid, parse error, truncated by max_tokens), and failures are counted by HTTP status and timeout. The
 * server's /metrics is read before and after each window and its counters for the model are attributed to
 * it through import:vllm's own reader (src/core/vllmMetrics.ts, readingJson). All HTTP goes through
 * boundedFetch; URL credentials and the API key are sent, never printed.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { BoundedReadError, NetworkTimeoutError, boundedFetch } from '../../src/contract/boundedFetch';
import { SCRAPE_LIMITS } from '../../src/contract/limits';
import { ScrapeError, readMetrics, readingDelta, type ScrapeReading } from '../../src/core/vllmMetrics';
import type { SchemaValidator } from '../../src/grammar/score';
import { SCRAPE_BYTE_LIMIT } from '../../src/store/liveScrape';
import { readingJson } from './vllmReading';
import { UsageError } from './args';
import { bucketsOf, type Case } from './cases';
import { terminalSafe } from './terminalSafe';
import { percentile } from './percentile';
import { readRequestSpecMetrics, requestDistribution, type RequestSpecRecord } from './requestSpecMetrics';

export { percentile } from './percentile';

/** The most one streamed response may hold (a 512-token answer is a few tens of kilobytes of events). */
const RESPONSE_LIMIT = { bytes: 16 * 2 ** 20, why: 'the most one streamed completion may be' };

/** Our own counters, which vLLM lacks: R and I (npm run serve exposes them). */
const SPECLAB_R = 'speclab:spec_decode_num_raw_draft_tokens_total';
const SPECLAB_I = 'speclab:spec_decode_num_invalidated_draft_tokens_total';
/** GPU utilisation as a DCGM exporter (or a server that embeds one) exposes it, in percent. */
const GPU_UTIL = /^(DCGM_FI_DEV_GPU_UTIL|.*gpu_utili[sz]ation.*|.*gpu_util)$/i;

export interface ServerTarget {
  /** The base URL without credentials: safe to print. */
  base: URL;
  headers: Record<string, string>;
}

/** The server URL with any user:password moved into a Basic header, and the API key as a Bearer token; the URL printed carries neither. */
export function serverTarget(text: string, apiKey: string | null): ServerTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `--server: ${JSON.stringify(terminalSafe(text.replace(/\/\/[^/@]*@/, '//…@'), { maxChars: 80 }))} is not a URL such as http://127.0.0.1:8000`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--server must be http or https, got ${url.protocol}`);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (url.username !== '' || url.password !== '')
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  // "http://host:8000" and "http://host:8000/v1" both mean the server: the routes are added below.
  url.pathname = url.pathname.replace(/v1\/$/, '');
  return { base: url, headers };
}

/** Server-sent events, fed in chunks as they arrive: complete events' data, comments dropped. */
export class SseReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();

  push(bytes: Uint8Array): string[] {
    this.buffer += this.decoder.decode(bytes, { stream: true }).replace(/\r\n?/g, '\n');
    const events: string[] = [];
    let end;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length > 0) events.push(data.join('\n'));
    }
    return events;
  }
}

export type RequestOutcome =
  'valid' | 'invalid' | 'parse-error' | 'truncated' | 'server-error' | 'timeout' | 'connection-error';

export interface RequestResult {
  outcome: RequestOutcome;
  /** The HTTP status of a server error. */
  status: number | null;
  content: string;
  finishReason: string | null;
  ttftMs: number | null;
  /** Gaps between successive chunks that carried content (a speculative step can bring several tokens in one). */
  gapsMs: number[];
  contentChunks: number;
  /** usage.completion_tokens, when the server sent usage. */
  completionTokens: number | null;
  /** The request's own speculative-decoding counters, when the server reports them per request. */
  spec: RequestSpecRecord | null;
}

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** The JSON part of an output: after the case's trigger (reasoning, then JSON) when it appears, else all of it. */
export function jsonPart(content: string, trigger: string | null): string {
  if (trigger === null) return content;
  const at = content.lastIndexOf(trigger);
  return at < 0 ? content : content.slice(at + trigger.length);
}

/** How one finished output fares against its case's schema: cut short by max_tokens, not JSON, invalid, or valid. */
export function judge(
  content: string,
  finishReason: string | null,
  item: Case,
  validate: SchemaValidator,
): RequestOutcome {
  if (finishReason === 'length') return 'truncated';
  let value: unknown;
  try {
    value = JSON.parse(jsonPart(content, item.trigger));
  } catch {
    return 'parse-error';
  }
  return validate(item.schema, value) === null ? 'valid' : 'invalid';
}

export interface RequestSettings {
  model: string;
  /** POST /v1/chat/completions or /v1/completions. */
  endpoint: 'chat' | 'completions';
  temperature: number;
  seed: number;
  maxTokens: number;
  timeoutMs: number;
}

/** The request body (chat: the prompt as one user message; completions: as text): the schema as response_format (json_schema, strict) when constrained. */
export function requestBody(item: Case, constrained: boolean, settings: RequestSettings) {
  return {
    model: settings.model,
    ...(settings.endpoint === 'chat'
      ? { messages: [{ role: 'user', content: item.prompt }] }
      : { prompt: item.prompt }),
    temperature: settings.temperature,
    seed: settings.seed,
    max_tokens: settings.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
    ...(constrained
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: `${item.bucket}_line_${item.line}`, schema: item.schema, strict: true },
          },
        }
      : {}),
  };
}

interface ChunkJson {
  choices?: {
    delta?: { content?: string | null; reasoning_content?: string | null };
    /** The completions endpoint's text. */
    text?: string | null;
    finish_reason?: string | null;
  }[];
  usage?: { completion_tokens?: number } | null;
  error?: unknown;
}

/** One streamed request, timed from the moment it is sent. */
export async function sendRequest(
  target: ServerTarget,
  item: Case,
  constrained: boolean,
  settings: RequestSettings,
  validate: SchemaValidator,
): Promise<RequestResult> {
  const reader = new SseReader();
  const started = performance.now();
  let content = '';
  let finishReason: string | null = null;
  let completionTokens: number | null = null;
  let spec: RequestSpecRecord | null = null;
  let last: number | null = null;
  let ttftMs: number | null = null;
  let streamError = false;
  const gapsMs: number[] = [];
  let contentChunks = 0;
  const result = (outcome: RequestOutcome, status: number | null = null): RequestResult => ({
    outcome,
    status,
    content,
    finishReason,
    ttftMs,
    gapsMs,
    contentChunks,
    completionTokens,
    spec,
  });
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  try {
    await boundedFetch(new URL(settings.endpoint === 'chat' ? 'v1/chat/completions' : 'v1/completions', target.base), {
      limit: RESPONSE_LIMIT,
      signal: deadline,
      init: { method: 'POST', headers: target.headers, body: JSON.stringify(requestBody(item, constrained, settings)) },
      checkResponse: (response) => {
        if (!response.ok) throw new HttpStatusError(response.status);
      },
      stream: {
        pace: false,
        onChunk: (bytes, at) => {
          for (const data of reader.push(bytes)) {
            if (data === '[DONE]') continue;
            let json: ChunkJson;
            try {
              json = JSON.parse(data) as ChunkJson;
            } catch {
              streamError = true;
              continue;
            }
            if (json.error !== undefined) streamError = true;
            if (json.usage?.completion_tokens !== undefined) completionTokens = json.usage.completion_tokens;
            try {
              spec = readRequestSpecMetrics(json) ?? spec;
            } catch {
              // Counts that do not add up are not this request's figures: the window's /metrics stand in.
              spec = null;
            }
            for (const choice of json.choices ?? []) {
              const text = choice.delta?.content ?? choice.text ?? '';
              const reasoning = choice.delta?.reasoning_content ?? '';
              if (text !== '' || reasoning !== '') {
                contentChunks++;
                if (last === null) ttftMs = at - started;
                else gapsMs.push(at - last);
                last = at;
              }
              content += text;
              if (choice.finish_reason !== undefined && choice.finish_reason !== null)
                finishReason = choice.finish_reason;
            }
          }
        },
      },
    });
  } catch (error) {
    if (error instanceof HttpStatusError) return result('server-error', error.status);
    if (error instanceof NetworkTimeoutError || deadline.aborted) return result('timeout');
    if (error instanceof BoundedReadError) return result('server-error');
    return result('connection-error');
  }
  // An error event in the stream, or a stream that ended without a finish reason, is the server's failure.
  if (streamError || finishReason === null) return result('server-error');
  return result(judge(content, finishReason, item, validate));
}

const round = (value: number | null, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));
const percentiles = (values: readonly number[]) => ({
  p50: round(percentile(values, 50)),
  p90: round(percentile(values, 90)),
  p99: round(percentile(values, 99)),
  samples: values.length,
});

/** One scrape: the text, or why there is none (a server without /metrics still gets its correctness rows). */
async function scrape(target: ServerTarget): Promise<{ text: string } | { error: string }> {
  const url = new URL('metrics', target.base);
  try {
    const bytes = await boundedFetch(url, {
      limit: SCRAPE_BYTE_LIMIT,
      init: { headers: target.headers },
      checkResponse: (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
      },
    });
    return { text: new TextDecoder().decode(bytes) };
  } catch (error) {
    return { error: `${url.href}: ${(error as Error).message}` };
  }
}

/** Sum of a counter over the series of one model (all series when none is labelled with it). */
function summed(text: string, name: string, model: string): number | null {
  let families;
  try {
    families = parsePrometheusTextFormat(text.length <= SCRAPE_LIMITS.bytes ? text : '');
  } catch {
    return null;
  }
  const family = families.find(
    (candidate) => candidate.name === name || candidate.name === name.replace(/_total$/, ''),
  );
  if (!family) return null;
  const values = family.metrics
    .filter((sample) => (sample.labels?.model_name ?? model) === model)
    .map((sample) => Number(sample.value));
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
}

/** vLLM's queue-time histogram: time from a request's arrival to the start of its decode. */
const QUEUE_TIME = 'vllm:request_queue_time_seconds';

/** A histogram's _sum and _count for one model (all series when none is labelled with it), or null when the scrape has none. */
export function histogramTotals(text: string, name: string, model: string): { sum: number; count: number } | null {
  const totals = { sum: 0, count: 0 };
  let found = false;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const line = new RegExp(`^${escaped}_(sum|count)(?:\\{([^}]*)\\})? (\\S+)`, 'gm');
  for (const match of text.slice(0, SCRAPE_LIMITS.bytes).matchAll(line)) {
    const labelled = /model_name="((?:[^"\\]|\\.)*)"/.exec(match[2] ?? '')?.[1];
    if (labelled !== undefined && labelled !== model) continue;
    const value = Number(match[3]);
    if (!Number.isFinite(value)) return null;
    totals[match[1] as 'sum' | 'count'] += value;
    found = true;
  }
  return found ? totals : null;
}

/**
 * The window's mean queue wait in milliseconds over the requests that left the queue in it, from two scrapes;
 * null where the server exposes no queue-time histogram.
 */
export function queueWait(
  before: string,
  after: string,
  model: string,
): { requests: number; mean_ms: number | null } | null {
  const [a, b] = [histogramTotals(before, QUEUE_TIME, model), histogramTotals(after, QUEUE_TIME, model)];
  if (a === null || b === null) return null;
  const requests = b.count - a.count;
  return { requests, mean_ms: requests > 0 ? round(((b.sum - a.sum) / requests) * 1000) : null };
}

/** GPU utilisation in percent (mean over the GPUs exposed), or null when the scrape has none. */
export function gpuUtilisation(text: string): number | null {
  let families;
  try {
    families = parsePrometheusTextFormat(text);
  } catch {
    return null;
  }
  const values = families
    .filter((family) => GPU_UTIL.test(family.name))
    .flatMap((family) => family.metrics.map((sample) => Number(sample.value)));
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** histogram[n] = steps that accepted exactly n draft tokens, from vLLM's per-position counts (position i accepted needs every earlier one). */
export function histogramFromPositions(drafts: number, perPosition: readonly number[]): number[] {
  return Array.from(
    { length: perPosition.length + 1 },
    (_, n) => (n === 0 ? drafts : (perPosition[n - 1] as number)) - (perPosition[n] ?? 0),
  );
}

/** The note's source of R and I: the server's own counters, never the user, in a scorecard. */
const countedBy = (fromI: boolean) => `counted by the server (${fromI ? SPECLAB_I : SPECLAB_R}, window delta)`;

/** The window's counters for the model from two scrapes, through import:vllm's reader; null with the reason when there are none. */
function windowCounters(before: string, after: string, model: string) {
  let delta: ScrapeReading;
  try {
    delta = readingDelta(readMetrics(before, 'the scrape before'), readMetrics(after, 'the scrape after'));
  } catch (error) {
    if (error instanceof ScrapeError) return { error: error.message };
    throw error;
  }
  const difference = (name: string) => {
    const [a, b] = [summed(before, name, model), summed(after, name, model)];
    return a === null || b === null ? null : b - a;
  };
  // R where the server counts it (npm run serve), else I; vLLM and SGLang count neither.
  const R = difference(SPECLAB_R);
  const I = difference(SPECLAB_I);
  // Supplied for this model only: by its name, or unnamed where the scrape holds one model; R wins over I.
  const names = [...delta.vllm.keys()];
  const owner = names.includes(model) ? model : names.length === 1 ? null : undefined;
  const entry = (value: number | null) => (value === null || owner === undefined ? [] : [{ model: owner, value }]);
  const report = readingJson(delta, { R: entry(R), I: R === null ? entry(I) : [] }, null, countedBy(R === null));
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

export interface ServerScorecardSpec {
  target: ServerTarget;
  cases: Case[];
  concurrency: number;
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

/** Every window's figures, buckets one at a time, schema on then off; the first scrape fails loudly (the server is not there). */
export async function serverScorecard(
  spec: ServerScorecardSpec,
  validate: SchemaValidator,
  onProgress?: (line: string) => void,
) {
  const { target, cases, concurrency, settings } = spec;
  let previous = await scrape(target);
  const unreachable = 'error' in previous && !/HTTP \d/.test(previous.error);
  if (unreachable) throw new UsageError(`cannot reach the server: ${'error' in previous ? previous.error : ''}`);
  const rows = [];
  let gpu: number | null = null;
  for (const bucket of bucketsOf(cases)) {
    const items = cases.filter((item) => item.bucket === bucket);
    for (const constrained of [true, false]) {
      const started = performance.now();
      const results = await pool(items, concurrency, (item) =>
        sendRequest(target, item, constrained, settings, validate),
      );
      const seconds = (performance.now() - started) / 1000;
      const current = await scrape(target);
      const counters =
        'text' in previous && 'text' in current
          ? windowCounters(previous.text, current.text, settings.model)
          : { error: `no /metrics: ${'error' in current ? current.error : 'error' in previous ? previous.error : ''}` };
      const queue =
        'text' in previous && 'text' in current ? queueWait(previous.text, current.text, settings.model) : null;
      if ('text' in current) gpu = gpuUtilisation(current.text) ?? gpu;
      previous = current;
      const count = (outcome: RequestOutcome) => results.filter((result) => result.outcome === outcome).length;
      const statuses = new Map<string, number>();
      for (const result of results.filter((r) => r.outcome === 'server-error'))
        statuses.set(String(result.status ?? 'stream'), (statuses.get(String(result.status ?? 'stream')) ?? 0) + 1);
      const completed = results.filter((result) =>
        ['valid', 'invalid', 'parse-error', 'truncated'].includes(result.outcome),
      );
      const records = completed.map((result) => result.spec);
      const perRequest =
        completed.length > 0 && records.every((record) => record !== null)
          ? requestDistribution(records as RequestSpecRecord[])
          : null;
      const ttfts = completed.flatMap((result) => (result.ttftMs === null ? [] : [result.ttftMs]));
      const ttftMean = ttfts.length === 0 ? null : round(ttfts.reduce((a, b) => a + b, 0) / ttfts.length);
      const tokens = completed.every((result) => result.completionTokens !== null)
        ? completed.reduce((total, result) => total + (result.completionTokens as number), 0)
        : null;
      rows.push({
        bucket,
        constrained,
        requests: results.length,
        completed: completed.length,
        valid: count('valid'),
        schema_valid_rate: completed.length === 0 ? null : round(count('valid') / completed.length, 3),
        invalid: count('invalid'),
        parse_errors: count('parse-error'),
        truncated: count('truncated'),
        server_errors: [...statuses].map(([status, n]) => ({ status, count: n })),
        timeouts: count('timeout'),
        connection_errors: count('connection-error'),
        ttft_ms: percentiles(ttfts),
        queue:
          queue === null
            ? null
            : {
                ...queue,
                ttft_mean_ms: ttftMean,
                after_queue_ms: queue.mean_ms === null || ttftMean === null ? null : round(ttftMean - queue.mean_ms),
              },
        itl_ms: percentiles(completed.flatMap((result) => result.gapsMs)),
        content_chunks: completed.reduce((total, result) => total + result.contentChunks, 0),
        completion_tokens: tokens,
        window_seconds: round(seconds, 3),
        tokens_per_second: tokens === null ? null : round(tokens / seconds),
        per_request: perRequest,
        counters: 'error' in counters ? null : counters,
        counters_missing: 'error' in counters ? counters.error : null,
      });
      onProgress?.(`scorecard: ${bucket}, schema ${constrained ? 'on' : 'off'}: ${results.length} requests`);
    }
  }
  return { rows, gpu_utilisation_percent: gpu === null ? null : round(gpu) };
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
          `The server exposes no queue-time histogram (vllm:request_queue_time_seconds) on /metrics: at concurrency ${concurrency}, above the server's parallelism TTFT includes the wait in its queue, so it measures queueing as much as decoding.`,
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

/** The Markdown report: correctness and latency per window, then the server's counters per window. */
export function serverScorecardMarkdown(card: ServerScorecard, spec: ServerScorecardSpec): string {
  const { settings } = spec;
  const lines = [
    `${spec.target.base.href} (model ${terminalSafe(settings.model, { maxChars: 80 })}): ${spec.cases.length} cases in ${new Set(spec.cases.map((c) => c.bucket)).size} buckets, each with the schema as response_format (on) and without it (off); concurrency ${spec.concurrency}, T = ${settings.temperature}, seed ${settings.seed}, max_tokens ${settings.maxTokens}, timeout ${settings.timeoutMs / 1000} s; buckets one at a time, /metrics read before and after each window`,
    `GPU utilisation: ${card.gpu_utilisation_percent === null ? 'not exposed (no DCGM_FI_DEV_GPU_UTIL or *gpu_util* metric in /metrics)' : `${card.gpu_utilisation_percent}% (at the last scrape)`}`,
    '',
    '| bucket | schema | requests | valid | invalid | parse errors | truncated | server errors | timeouts | TTFT ms p50 / p90 / p99 | ITL ms p50 / p90 / p99 | tokens | tokens/s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const trio = (p: { p50: number | null; p90: number | null; p99: number | null }) =>
    `${cell(p.p50, 1)} / ${cell(p.p90, 1)} / ${cell(p.p99, 1)}`;
  for (const row of card.rows) {
    const errors = [
      ...row.server_errors.map((e) => `${e.count} × ${e.status === 'stream' ? 'error in stream' : `HTTP ${e.status}`}`),
      ...(row.connection_errors > 0 ? [`${row.connection_errors} × no connection`] : []),
    ];
    lines.push(
      `| ${row.bucket} | ${row.constrained ? 'on' : 'off'} | ${row.requests} | ${row.valid} | ${row.invalid} | ${row.parse_errors} | ${row.truncated} | ${errors.length === 0 ? '0' : errors.join(', ')} | ${row.timeouts} | ${trio(row.ttft_ms)} | ${trio(row.itl_ms)} | ${cell(row.completion_tokens)} | ${cell(row.tokens_per_second, 1)} |`,
    );
  }
  lines.push(
    '',
    'ITL: the gaps between chunks that carried content; a speculative step can bring several tokens in one chunk. Percentiles are nearest-rank over every request of the window.',
    '',
    ...queueLines(card, spec.concurrency),
  );
  lines.push(...perRequestLines(card));
  lines.push(
    '| bucket | schema | num_drafts (steps) | R | I | D | A | D/R | A/D | A/R | mean acceptance length | histogram (steps accepting 0, 1, … drafts) | bonus tokens |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  const sglang: string[] = [];
  for (const row of card.rows) {
    const schema = row.constrained ? 'on' : 'off';
    const vllm = row.counters?.vllm;
    if (row.counters === null)
      lines.push(
        `| ${row.bucket} | ${schema} | ${terminalSafe(row.counters_missing ?? '', { maxChars: 200 })} |||||||||||`,
      );
    else if (vllm)
      lines.push(
        `| ${row.bucket} | ${schema} | ${vllm.num_drafts} | ${cell(vllm.R)} | ${cell(vllm.I)} | ${vllm.D} | ${vllm.A} | ${cell(vllm.grammar_survival)} | ${cell(vllm.draft_acceptance_rate)} | ${cell(vllm.draft_yield)} | ${cell(vllm.mean_acceptance_length)} | ${vllm.histogram?.join(', ') ?? '—'} | ${cell(vllm.bonus_tokens)} |`,
      );
    const sg = row.counters?.sglang;
    if (sg)
      sglang.push(
        `| ${row.bucket} | ${schema} | ${cell(sg.spec_accept_length)} | ${cell(sg.spec_accept_rate)} | ${cell(sg.spec_verify_calls)} |`,
      );
  }
  lines.push(
    '',
    "R and I come from the server only where it counts them (npm run serve does; vLLM counts D and A only, so R, I, D/R and A/R show —). Bonus tokens: steps that accepted every draft position, so the target's token was a bonus, not a correction.",
  );
  if (sglang.length > 0)
    lines.push(
      '',
      '| bucket | schema | SGLang spec_accept_length (gauge) | spec_accept_rate (gauge) | spec_verify_calls (window) |',
      '|---|---|---|---|---|',
      ...sglang,
      '',
      "SGLang's accept length and rate are gauges over its own last logging window, not this window's.",
    );
  return lines.join('\n');
}
