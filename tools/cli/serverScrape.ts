/**
 * The server's /metrics as `scorecard --server` reads it: one scrape parsed once into the figures a window
 * needs (the speculative-decoding counters through import:vllm's reader, R and I where the server counts
 * them, its finished requests and generated tokens to check that a window holds only the scorecard's own
 * traffic, its queue-time histogram, GPU utilisation), each number checked finite and non-negative. A bad
 * number loses the figure it carries, with one line saying why, never the window.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { boundedFetch } from '../../src/contract/boundedFetch';
import { SCRAPE_LIMITS } from '../../src/contract/limits';
import {
  ScrapeError,
  readMetrics,
  readingDelta,
  type ScrapeReading,
  type VllmCounters,
} from '../../src/core/vllmMetrics';
import { SCRAPE_BYTE_LIMIT } from '../../src/store/liveScrape';
import type { ServerTarget } from './serverRequest';
import { terminalSafe } from './terminalSafe';

/** A sample's value as the scrape wrote it, short and escaped. */
const shownSample = (text: string | undefined) => terminalSafe(String(text), { maxChars: 40 });

/** Our own counters, which vLLM lacks: R and I (npm run serve exposes them). */
export const SPECLAB_R = 'speclab:spec_decode_num_raw_draft_tokens_total';
export const SPECLAB_I = 'speclab:spec_decode_num_invalidated_draft_tokens_total';
/** Requests the server finished, and tokens it generated: vLLM's names (npm run serve's too), then SGLang's. */
export const FINISHED_REQUESTS = ['vllm:request_success_total', 'sglang:num_requests_total'] as const;
export const GENERATED_TOKENS = ['vllm:generation_tokens_total', 'sglang:generation_tokens_total'] as const;
/** vLLM's queue-time histogram (npm run serve's too): time from a request's arrival to the start of its decode. */
export const QUEUE_TIME = 'vllm:request_queue_time_seconds';
/** GPU utilisation as a DCGM exporter (or a server that embeds one) exposes it, in percent. */
const GPU_UTIL = /^(DCGM_FI_DEV_GPU_UTIL|.*gpu_utili[sz]ation.*|.*gpu_util)$/i;

/** A figure from the server: its value, null where the server does not expose it, or why it cannot be used. */
export type Figure<T> = { value: T } | { absent: string } | { error: string };
export const isValue = <T>(figure: Figure<T>): figure is { value: T } => 'value' in figure;
export const whyNot = (figure: Figure<unknown>): string =>
  'error' in figure ? figure.error : 'absent' in figure ? figure.absent : '';

/** One scrape, read once. */
export interface Snapshot {
  reading: Figure<ScrapeReading>;
  R: Figure<number>;
  I: Figure<number>;
  requests: Figure<number>;
  tokens: Figure<number>;
  queue: Figure<{ sum: number; count: number }>;
  gpu: Figure<number>;
}

/** One scrape: the text, or why there is none; `answered` says whether the server answered at all (an HTTP status). */
export async function scrape(target: ServerTarget): Promise<{ text: string } | { error: string; answered: boolean }> {
  const url = new URL('metrics', target.base);
  let answered = false;
  try {
    const bytes = await boundedFetch(url, {
      limit: SCRAPE_BYTE_LIMIT,
      init: { headers: target.headers, redirect: 'manual' },
      checkResponse: (response) => {
        answered = true;
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
      },
    });
    return { text: new TextDecoder().decode(bytes) };
  } catch (error) {
    return { error: `${url.href}: ${(error as Error).message}`, answered };
  }
}

type Families = ReturnType<typeof parsePrometheusTextFormat>;
type Sample = Families[number]['metrics'][number];

/** A counter's value as a count (finite, from 0 to 2^53), or a ScrapeError naming the series. */
function countOf(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!(text !== undefined && text.trim() !== '' && Number.isFinite(value) && value >= 0 && value <= 2 ** 53))
    throw new ScrapeError(`the server's ${name} is ${shownSample(text)}, not a count (a finite number from 0)`);
  return value;
}

const ofModel = (sample: Sample, model: string) => (sample.labels?.model_name ?? model) === model;

/**
 * The first of `names` the scrape has (with or without _total), summed over the model's series (all series when
 * none names a model); absent when none is there.
 */
function counterSum(families: Families, names: readonly string[], model: string): Figure<number> {
  for (const name of names) {
    const family = families.find(
      (candidate) => candidate.name === name || candidate.name === name.replace(/_total$/, ''),
    );
    if (family === undefined) continue;
    try {
      const values = family.metrics
        .filter((sample) => ofModel(sample, model))
        .map((sample) => countOf(name, sample.value));
      return { value: values.reduce((a, b) => a + b, 0) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  return { absent: `the server exposes no ${names.join(' or ')}` };
}

/**
 * The queue-time histogram's _sum and _count for the model (all series when none names a model), read from the
 * text's lines: the Prometheus parser drops a labelled histogram's _sum and _count.
 */
function queueTotals(text: string, model: string): Figure<{ sum: number; count: number }> {
  const totals = { sum: 0, count: 0 };
  let found = false;
  const line = new RegExp(`^${QUEUE_TIME}_(sum|count)(?:\\{([^}]*)\\})? (\\S+)`, 'gm');
  for (const match of text.matchAll(line)) {
    const labelled = /model_name="((?:[^"\\]|\\.)*)"/.exec(match[2] ?? '')?.[1];
    if (labelled !== undefined && labelled !== model) continue;
    try {
      totals[match[1] as 'sum' | 'count'] += countOf(`${QUEUE_TIME}_${match[1]}`, match[3]);
    } catch (error) {
      return { error: (error as Error).message };
    }
    found = true;
  }
  return found ? { value: totals } : { absent: `the server exposes no queue-time histogram (${QUEUE_TIME})` };
}

/** GPU utilisation in percent (mean over the GPUs exposed); each value must be a percentage. */
function gpuUtilisation(families: Families): Figure<number> {
  const samples = families
    .filter((family) => GPU_UTIL.test(family.name))
    .flatMap((family) => family.metrics.map((sample) => ({ name: family.name, value: sample.value })));
  if (samples.length === 0) return { absent: 'not exposed (no DCGM_FI_DEV_GPU_UTIL or *gpu_util* metric in /metrics)' };
  const values = samples.map(({ value }) => Number(value));
  const bad = samples.find((_, i) => !((values[i] as number) >= 0 && (values[i] as number) <= 100));
  if (bad !== undefined)
    return { error: `the server's ${bad.name} is ${shownSample(bad.value)}, not a percentage from 0 to 100` };
  return { value: values.reduce((a, b) => a + b, 0) / values.length };
}

/** Every figure of one scrape for `model`; a scrape that is not Prometheus text leaves each figure with that reason. */
export function snapshotOf(scraped: { text: string } | { error: string }, model: string): Snapshot {
  const unread = (why: string): Snapshot => {
    const error = { error: why };
    return { reading: error, R: error, I: error, requests: error, tokens: error, queue: error, gpu: error };
  };
  if ('error' in scraped) return unread(`no /metrics: ${scraped.error}`);
  // The text format ends every line with a newline; the parser drops a last line without one.
  const text = scraped.text.endsWith('\n') ? scraped.text : `${scraped.text}\n`;
  let families: Families;
  try {
    if (text.length > SCRAPE_LIMITS.bytes) throw new Error(`it is over ${SCRAPE_LIMITS.bytes} characters`);
    families = parsePrometheusTextFormat(text);
  } catch (error) {
    return unread(`/metrics is not Prometheus text: ${terminalSafe((error as Error).message, { maxChars: 120 })}`);
  }
  let reading: Figure<ScrapeReading>;
  try {
    reading = { value: readMetrics(text, 'the scrape') };
  } catch (error) {
    if (!(error instanceof ScrapeError)) throw error;
    reading = { error: error.message };
  }
  return {
    reading,
    R: counterSum(families, [SPECLAB_R], model),
    I: counterSum(families, [SPECLAB_I], model),
    requests: counterSum(families, FINISHED_REQUESTS, model),
    tokens: counterSum(families, GENERATED_TOKENS, model),
    queue: queueTotals(text, model),
    gpu: gpuUtilisation(families),
  };
}

/** A counter's window: after less before, unknown where either end is, refused where it went backwards (a restart). */
export function counterDelta(before: Figure<number>, after: Figure<number>, name: string): Figure<number> {
  if (!isValue(before)) return before;
  if (!isValue(after)) return after;
  if (after.value < before.value)
    return {
      error: `${name} went backwards between the scrapes (${before.value}, then ${after.value}): the server restarted`,
    };
  return { value: after.value - before.value };
}

/** The window's speculative-decoding counters, per model. */
export function readingWindow(before: Figure<ScrapeReading>, after: Figure<ScrapeReading>): Figure<ScrapeReading> {
  if (!isValue(before)) return before;
  if (!isValue(after)) return after;
  try {
    return { value: readingDelta(before.value, after.value) };
  } catch (error) {
    if (!(error instanceof ScrapeError)) throw error;
    return { error: error.message };
  }
}

const plus = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);

function addCounters(a: VllmCounters, b: VllmCounters): VllmCounters {
  const positions = Math.max(a.acceptedPerPosition.length, b.acceptedPerPosition.length);
  return {
    numDrafts: plus(a.numDrafts, b.numDrafts),
    numDraftTokens: a.numDraftTokens + b.numDraftTokens,
    numAcceptedTokens: a.numAcceptedTokens + b.numAcceptedTokens,
    acceptedPerPosition: Array.from(
      { length: positions },
      (_, i) => (a.acceptedPerPosition[i] ?? 0) + (b.acceptedPerPosition[i] ?? 0),
    ),
    ...(a.v0 === undefined && b.v0 === undefined
      ? {}
      : {
          v0: {
            emittedTokens: plus(a.v0?.emittedTokens ?? null, b.v0?.emittedTokens ?? null),
            steps: plus(a.v0?.steps ?? null, b.v0?.steps ?? null),
          },
        }),
  };
}

/** Several windows' readings as one: vLLM's counters and SGLang's verify calls summed, its gauges the last window's. */
export function sumReadings(readings: readonly ScrapeReading[]): ScrapeReading {
  const vllm = new Map<string, VllmCounters>();
  const sglang: ScrapeReading['sglang'] = new Map();
  for (const reading of readings) {
    for (const [model, counters] of reading.vllm) {
      const earlier = vllm.get(model);
      vllm.set(model, earlier === undefined ? counters : addCounters(earlier, counters));
    }
    for (const [model, figures] of reading.sglang) {
      const earlier = sglang.get(model);
      sglang.set(model, {
        ...figures,
        verifyCalls: earlier === undefined ? figures.verifyCalls : plus(earlier.verifyCalls, figures.verifyCalls),
      });
    }
  }
  return { vllm, sglang, warnings: [...new Set(readings.flatMap((reading) => reading.warnings))] };
}
