/**
 * Per-request speculative-decoding metrics, as servers now report them with each response:
 * - vLLM (PR #48915, `--per-request-spec-decode-metrics summary|detailed`): a top-level
 *   `metrics.speculative_decoding` object (non-streamed; streamed, on the final usage chunk), null for n > 1;
 * - SGLang: `meta_info` with spec_verify_ct, spec_accept_token_num, spec_draft_token_num.
 * - AIPerf (ai-dynamo/aiperf PR #1191): profile_export.jsonl, one record a request, with vLLM's names in its
 *   `spec_decode_acceptance` object (the histogram as a sparse {"j": count}) and the counts among its metrics.
 * `npm run serve` writes vLLM's object (plus R and I as named extensions); `scorecard --server`,
 * `import:vllm --responses` and the app's vLLM view read them into one engine-neutral record per request, so
 * every figure is attributed to its request (and through it to its bucket), at any concurrency.
 */
import { RESPONSES_LIMITS, SCRAPE_LIMITS } from '../contract/limits';
import { percentile } from './percentile';
import { ScrapeError } from './vllmMetrics';

export type SpecDecodeLevel = 'none' | 'summary' | 'detailed';

/** One request's counters, whichever server reported them. */
export interface RequestSpecRecord {
  /** Who reported it: a vLLM (or npm run serve) response, an SGLang response, or an AIPerf record. */
  source: 'vllm' | 'sglang' | 'aiperf';
  /** Verification steps (vLLM num_spec_steps, SGLang spec_verify_ct). */
  steps: number;
  /** D: draft tokens proposed, grammar-invalidated ones excluded. */
  draftTokens: number;
  /** A: draft tokens accepted, bonus tokens excluded. */
  accepted: number;
  /** Steps that accepted exactly j drafts (vLLM only). */
  histogram: number[] | null;
  /** R and I, where the server counts them (npm run serve's extensions). */
  raw: number | null;
  invalidated: number | null;
  perStepAccepted: number[] | null;
  perStepDrafted: number[] | null;
}

/** The per-step counts serve keeps for a choice when the level is `detailed`. */
export interface StepTally {
  accepted: number;
  drafted: number;
}

/** vLLM's object for one choice, with SpecLab's R and I beside it (named as extensions: vLLM counts neither). */
export function speculativeDecodingObject(
  counters: { steps: number; raw: number; invalidated: number; accepted: number; histogram: readonly number[] },
  L: number,
  level: Exclude<SpecDecodeLevel, 'none'>,
  perStep: readonly StepTally[],
) {
  const D = counters.raw - counters.invalidated;
  return {
    mean_acceptance_length: counters.steps === 0 ? 1 : 1 + counters.accepted / counters.steps,
    draft_acceptance_rate: D === 0 ? 0 : counters.accepted / D,
    acceptance_histogram: Array.from({ length: L + 1 }, (_, j) => counters.histogram[j] ?? 0),
    num_spec_steps: counters.steps,
    num_accepted_draft_tokens: counters.accepted,
    num_draft_tokens: D,
    num_spec_tokens: L,
    raw_draft_tokens: counters.raw,
    invalidated_draft_tokens: counters.invalidated,
    ...(level === 'detailed'
      ? {
          per_step_accepted: perStep.map((step) => step.accepted),
          per_step_drafted: perStep.map((step) => step.drafted),
        }
      : {}),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER ? value : null;
const counts = (value: unknown): number[] | null => {
  if (!Array.isArray(value)) return null;
  const list = value.map(count);
  return list.every((entry) => entry !== null) ? (list as number[]) : null;
};
/** A histogram index j (drafts accepted in one step) is below SCRAPE_LIMITS.positions, as a position label is. */
const HISTOGRAM_INDEX = /^(0|[1-9][0-9]{0,3})$/;
/** vLLM sends a dense list; AIPerf's record (and its adapter's input) a sparse {"j": count}: read both, dense. */
const histogramOf = (value: unknown): number[] | null => {
  if (Array.isArray(value)) return value.length <= SCRAPE_LIMITS.positions + 1 ? counts(value) : null;
  if (!isRecord(value)) return null;
  const entries = Object.entries(value).map(([key, n]) => [key, Number(key), count(n)] as const);
  if (!entries.every(([key, j, n]) => HISTOGRAM_INDEX.test(key) && j <= SCRAPE_LIMITS.positions && n !== null))
    return null;
  const dense = new Array<number>(Math.max(-1, ...entries.map(([, j]) => j)) + 1).fill(0);
  for (const [, j, n] of entries) dense[j] = n as number;
  return dense;
};
const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** A reported ratio must be a finite number ≥ 0 and, where its denominator is not 0, the ratio of the counts. */
function checkRatio(where: string, name: string, value: unknown, expected: number | null): void {
  if (value === undefined) return;
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0))
    throw new ScrapeError(`${where}: ${name} is ${JSON.stringify(value)}, not a finite number ≥ 0`);
  if (expected !== null && Math.abs(value - expected) > 1e-9 * Math.max(1, expected))
    throw new ScrapeError(`${where}: ${name} is ${value}, but its counts give ${expected}`);
}

/**
 * vLLM's metrics.speculative_decoding, or the same fields in AIPerf's spec_decode_acceptance record. Counts that
 * do not add up (the histogram against the steps and the accepted drafts, accepted above drafted, a ratio
 * against its counts, per-step arrays against the totals) are refused, not repaired.
 */
function readCounterObject(
  object: Record<string, unknown>,
  where: string,
  source: RequestSpecRecord['source'],
): RequestSpecRecord {
  const steps = count(object.num_spec_steps);
  const draftTokens = count(object.num_draft_tokens);
  const accepted = count(object.num_accepted_draft_tokens);
  if (steps === null || draftTokens === null || accepted === null)
    throw new ScrapeError(
      `${where}: num_spec_steps, num_draft_tokens and num_accepted_draft_tokens must be whole numbers ≥ 0, got ${[object.num_spec_steps, object.num_draft_tokens, object.num_accepted_draft_tokens].map((value) => JSON.stringify(value) ?? 'nothing').join(', ')}`,
    );
  if (accepted > draftTokens)
    throw new ScrapeError(`${where}: ${accepted} accepted draft tokens of ${draftTokens} drafted: more than drafted`);
  const histogram = object.acceptance_histogram === undefined ? null : histogramOf(object.acceptance_histogram);
  if (object.acceptance_histogram !== undefined && histogram === null)
    throw new ScrapeError(
      `${where}: acceptance_histogram must be a list of counts, or {"j": count} with j below ${SCRAPE_LIMITS.positions}`,
    );
  if (histogram !== null) {
    if (sumOf(histogram) !== steps)
      throw new ScrapeError(`${where}: acceptance_histogram sums to ${sumOf(histogram)}, not num_spec_steps ${steps}`);
    const weighted = histogram.reduce((total, n, j) => total + j * n, 0);
    if (weighted !== accepted)
      throw new ScrapeError(
        `${where}: acceptance_histogram accepts ${weighted} drafts (Σ j × count), not num_accepted_draft_tokens ${accepted}`,
      );
  }
  checkRatio(where, 'mean_acceptance_length', object.mean_acceptance_length, steps === 0 ? null : 1 + accepted / steps);
  checkRatio(
    where,
    'draft_acceptance_rate',
    object.draft_acceptance_rate,
    draftTokens === 0 ? null : accepted / draftTokens,
  );
  const perStep = (name: 'per_step_accepted' | 'per_step_drafted', total: number) => {
    const value = object[name];
    if (value === undefined || value === null) return null;
    const list = counts(value);
    if (list === null || list.length !== steps || sumOf(list) !== total)
      throw new ScrapeError(`${where}: ${name} must hold one count per step (${steps}) summing to ${total}`);
    return list;
  };
  const raw = count(object.raw_draft_tokens);
  const invalidated = count(object.invalidated_draft_tokens);
  if (raw !== null && invalidated !== null && raw - invalidated !== draftTokens)
    throw new ScrapeError(
      `${where}: raw_draft_tokens − invalidated_draft_tokens is ${raw - invalidated}, not num_draft_tokens ${draftTokens}`,
    );
  return {
    source,
    steps,
    draftTokens,
    accepted,
    histogram,
    raw: invalidated === null ? null : raw,
    invalidated: raw === null ? null : invalidated,
    perStepAccepted: perStep('per_step_accepted', accepted),
    perStepDrafted: perStep('per_step_drafted', draftTokens),
  };
}

/**
 * The per-request record in a response body or stream chunk (vLLM's metrics.speculative_decoding, or SGLang's
 * meta_info at the top or on a choice), or null when it carries none. A record whose counts do not add up is
 * refused (a ScrapeError naming `where`, or only the field where `where` is empty), not repaired.
 */
export function readRequestSpecMetrics(json: unknown, where = 'the response'): RequestSpecRecord | null {
  if (!isRecord(json)) return null;
  const at = (field: string) => (where === '' ? field : `${where}: ${field}`);
  const vllm = isRecord(json.metrics) ? json.metrics.speculative_decoding : undefined;
  if (isRecord(vllm)) return readCounterObject(vllm, at('metrics.speculative_decoding'), 'vllm');
  const choices = Array.isArray(json.choices) ? (json.choices as unknown[]) : [];
  const meta = [json.meta_info, ...choices.map((choice) => (isRecord(choice) ? choice.meta_info : undefined))].find(
    (candidate) => isRecord(candidate) && candidate.spec_verify_ct !== undefined,
  );
  if (!isRecord(meta)) return null;
  const steps = count(meta.spec_verify_ct);
  const accepted = count(meta.spec_accept_token_num);
  const draftTokens = count(meta.spec_draft_token_num);
  if (steps === null || accepted === null || draftTokens === null || accepted > draftTokens)
    throw new ScrapeError(
      `${at("meta_info's")} spec_verify_ct, spec_accept_token_num and spec_draft_token_num must be whole numbers ≥ 0, accepted ≤ drafted`,
    );
  return {
    source: 'sglang',
    steps,
    draftTokens,
    accepted,
    histogram: null,
    raw: null,
    invalidated: null,
    perStepAccepted: null,
    perStepDrafted: null,
  };
}

/** AIPerf's record metrics (profile_export.jsonl `metrics`: tag → {value, unit}) that carry the counts. */
const AIPERF_TAGS = {
  steps: 'spec_decode_steps',
  accepted: 'spec_decode_accepted_draft_tokens',
  draftTokens: 'spec_decode_draft_tokens',
} as const;

/**
 * One AIPerf profile_export.jsonl record (ai-dynamo/aiperf PR #1191): its `spec_decode_acceptance` object (vLLM's
 * names, the histogram sparse), else the counts among its record metrics; null where it has neither (spec decode
 * off, or a request with no verify step, which AIPerf counts apart).
 */
function readAiperfRecord(json: Record<string, unknown>, where: string): RequestSpecRecord | null {
  if (isRecord(json.spec_decode_acceptance))
    return readCounterObject(json.spec_decode_acceptance, `${where}: spec_decode_acceptance`, 'aiperf');
  // Tags looked up among the record's own entries only.
  const metrics = new Map(Object.entries(json.metrics as Record<string, unknown>));
  const values = Object.values(AIPERF_TAGS).map((tag) => {
    const metric = metrics.get(tag);
    return isRecord(metric) ? metric.value : undefined;
  });
  if (values.every((value) => value === undefined)) return null;
  const [steps, accepted, draftTokens] = values;
  return readCounterObject(
    { num_spec_steps: steps, num_accepted_draft_tokens: accepted, num_draft_tokens: draftTokens },
    `${where}: metrics ${Object.values(AIPERF_TAGS).join(', ')}`,
    'aiperf',
  );
}

/** The refusal of a file of `size` bytes (or characters) past RESPONSES_LIMITS, or null within it. */
export function responsesSizeError(label: string, size: number): string | null {
  if (size <= RESPONSES_LIMITS.bytes) return null;
  return `${label} is ${(size / 2 ** 20).toFixed(1)} MiB; a file of per-request records may be at most ${RESPONSES_LIMITS.bytes / 2 ** 20} MiB`;
}

const NO_MODEL = '(no model field)';

/** A file of per-request records, read: each model's records, and what the other lines were. */
export interface ResponsesReading {
  models: { model: string; records: RequestSpecRecord[] }[];
  /** Lines that carried one request's counters. */
  withCounters: number;
  /** JSON lines with no counters: a streamed response's earlier chunks, a server without per-request metrics, n > 1, an AIPerf request with no verify step. */
  withoutCounters: number;
  /** Failed requests (an AIPerf record with an error, an API error body): no counters to read. */
  failed: number;
}

/**
 * Reads a JSONL file of per-request records: one JSON object a line, each a vLLM or SGLang response body (or the
 * stream chunk that carries the counters; an SSE recording's `data: ` prefix, `[DONE]` and `:` comments are
 * accepted), or an AIPerf profile_export.jsonl record. Untrusted input: bounded (RESPONSES_LIMITS), every count
 * checked, a line that is not JSON or whose counts do not add up refused with its line number, and a request
 * counted twice (the same response id or x_request_id on two lines with counters) refused.
 */
export function readResponses(text: string, label = 'the file'): ResponsesReading {
  const tooLarge = responsesSizeError(label, text.length);
  if (tooLarge !== null) throw new ScrapeError(tooLarge);
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (lines.length > RESPONSES_LIMITS.lines)
    throw new ScrapeError(`${label} has ${lines.length} lines; it may have at most ${RESPONSES_LIMITS.lines}`);
  const models = new Map<string, RequestSpecRecord[]>();
  const seen = new Map<string, number>();
  const reading: ResponsesReading = { models: [], withCounters: 0, withoutCounters: 0, failed: 0 };
  lines.forEach((rawLine, index) => {
    const where = `${label} line ${index + 1}`;
    const line = rawLine.trim().replace(/^data:\s?/, '');
    if (line === '' || line === '[DONE]' || rawLine.startsWith(':')) return;
    if (line.length > RESPONSES_LIMITS.lineChars)
      throw new ScrapeError(
        `${where} has ${line.length} characters; a line may have at most ${RESPONSES_LIMITS.lineChars}`,
      );
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new ScrapeError(
        `${where} is not JSON (one response or AIPerf record a line): ${JSON.stringify(line.slice(0, 40))}`,
      );
    }
    if (!isRecord(json)) throw new ScrapeError(`${where} is not a JSON object`);
    const aiperf = isRecord(json.metadata) && isRecord(json.metrics) && json.choices === undefined;
    if ((aiperf && json.error !== undefined && json.error !== null) || (!aiperf && isRecord(json.error))) {
      reading.failed++;
      return;
    }
    const record = aiperf ? readAiperfRecord(json, where) : readRequestSpecMetrics(json, where);
    if (record === null) {
      reading.withoutCounters++;
      return;
    }
    const metadata = isRecord(json.metadata) ? json.metadata : {};
    const meta = isRecord(json.meta_info) ? json.meta_info : {};
    const id = [json.id, metadata.x_request_id, meta.id].find((value) => typeof value === 'string');
    if (id !== undefined) {
      const first = seen.get(id as string);
      if (first !== undefined)
        throw new ScrapeError(
          `${where} carries the counters of request ${JSON.stringify((id as string).slice(0, 60))} again (line ${first}): each request must be counted once`,
        );
      seen.set(id as string, index + 1);
    }
    const model = typeof json.model === 'string' && json.model !== '' ? json.model : NO_MODEL;
    const list = models.get(model) ?? [];
    list.push(record);
    models.set(model, list);
    reading.withCounters++;
  });
  if (reading.withCounters === 0)
    throw new ScrapeError(
      `${label} has no per-request counters on any line (${reading.withoutCounters} JSON lines without them, ${reading.failed} failed requests): start vLLM (or npm run serve) with --per-request-spec-decode-metrics summary, or give AIPerf's profile_export.jsonl from a run against such a server`,
    );
  reading.models = [...models].map(([model, records]) => ({ model, records }));
  return reading;
}

const round = (value: number | null) => (value === null ? null : Number(value.toFixed(3)));
const sum = (values: readonly (number | null)[]) =>
  values.every((value) => value !== null) ? values.reduce<number>((a, b) => a + (b as number), 0) : null;

/**
 * A set of requests' figures: the pooled counters (what vLLM's /metrics aggregate would show: every step
 * and draft token weighs the same, so long completions weigh more) beside the distribution over requests
 * (each request weighs the same): median and p90 of the acceptance length and of A/D.
 */
export function requestDistribution(records: readonly RequestSpecRecord[]) {
  const steps = records.reduce((a, r) => a + r.steps, 0);
  const D = records.reduce((a, r) => a + r.draftTokens, 0);
  const A = records.reduce((a, r) => a + r.accepted, 0);
  const R = sum(records.map((r) => r.raw));
  const I = sum(records.map((r) => r.invalidated));
  const histograms = records.map((r) => r.histogram);
  const width = Math.max(0, ...histograms.map((h) => h?.length ?? 0));
  const histogram = histograms.every((h) => h !== null)
    ? Array.from({ length: width }, (_, j) => histograms.reduce((a, h) => a + ((h as number[])[j] ?? 0), 0))
    : null;
  const lengths = records.filter((r) => r.steps > 0).map((r) => 1 + r.accepted / r.steps);
  const rates = records.filter((r) => r.draftTokens > 0).map((r) => r.accepted / r.draftTokens);
  return {
    requests: records.length,
    sources: [...new Set(records.map((r) => r.source))],
    pooled: {
      num_spec_steps: steps,
      R,
      I,
      D,
      A,
      draft_acceptance_rate: D === 0 ? null : round(A / D),
      mean_acceptance_length: steps === 0 ? null : round(1 + A / steps),
      acceptance_histogram: histogram,
    },
    per_request: {
      acceptance_length: {
        median: round(percentile(lengths, 50)),
        p90: round(percentile(lengths, 90)),
        samples: lengths.length,
      },
      draft_acceptance_rate: {
        median: round(percentile(rates, 50)),
        p90: round(percentile(rates, 90)),
        samples: rates.length,
      },
    },
  };
}

export type RequestDistribution = ReturnType<typeof requestDistribution>;

/** Bin widths a per-request histogram may use: round numbers a reader can read off the axis. */
const BIN_WIDTHS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250];

/**
 * The requests' acceptance lengths (1 + A / steps, requests with no step left out) as a histogram of at most
 * `maxBins` bins: bin i holds the lengths from start + i·width up to the next bin's start. `binOf` is the bin
 * that holds a value (the pooled figure or the median, marked on the chart).
 */
export function acceptanceLengthBins(records: readonly RequestSpecRecord[], maxBins = 24) {
  const lengths = records.filter((r) => r.steps > 0).map((r) => 1 + r.accepted / r.steps);
  if (lengths.length === 0) return null;
  const low = Math.min(...lengths);
  const high = Math.max(...lengths);
  // The bin index of a value; the nudge keeps a value on a bin edge (0.3 / 0.1 = 2.9999999999999996) in its bin.
  const index = (value: number, w: number) => Math.floor(value / w + 1e-9);
  // A length is at most 1 + SCRAPE_LIMITS.positions, so the widest width always fits.
  const width = BIN_WIDTHS.find((w) => index(high, w) - index(low, w) + 1 <= maxBins) as number;
  const first = index(low, width);
  const binOf = (value: number) => index(value, width) - first;
  const counts = new Array<number>(binOf(high) + 1).fill(0);
  for (const length of lengths) counts[binOf(length)] = (counts[binOf(length)] as number) + 1;
  // Bin starts rounded to the width's decimals, so that 0.1 × 13 reads 1.3, not 1.3000000000000003.
  const starts = counts.map((_, i) => Number(((first + i) * width).toFixed(2)));
  return { width, bins: counts.map((requests, i) => ({ from: starts[i] as number, requests })), binOf };
}
