/**
 * A vLLM server's speculative-decoding counters, read from a Prometheus text scrape of its /metrics.
 * vLLM (v1/spec_decode/metrics.py) counts, per engine and model: drafts (verification steps), draft tokens
 * (D: it subtracts drafts the structured-output grammar invalidated), accepted tokens (A), and accepted
 * tokens per draft position (label position = 0, 1, …). R and I are not among them. vLLM's v0 engine
 * (vllm/engine/metrics.py before v1) counted no drafts and no positions: draft and accepted tokens, emitted tokens
 * (accepted plus one per step) and two gauges over the server's lifetime, the acceptance rate and the efficiency
 * (emitted over steps · (k + 1) = steps + draft tokens), from which the steps follow.
 * Shared by `npm run import:vllm` and the app's vLLM view.
 */
import { bootstrapInterval, median } from './bootstrap';
import { MIN_SAMPLES_FOR_VERDICT, compareRatios, pairRatios } from './verdict';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { SCRAPE_LIMITS } from '../contract/limits';

/** vLLM's counters by their exposed names (prometheus_client adds `_total`; some exporters do not: both are read). */
export const VLLM_METRIC_NAMES = {
  drafts: 'vllm:spec_decode_num_drafts_total',
  draftTokens: 'vllm:spec_decode_num_draft_tokens_total',
  accepted: 'vllm:spec_decode_num_accepted_tokens_total',
  acceptedPerPosition: 'vllm:spec_decode_num_accepted_tokens_per_pos_total',
} as const;

/** vLLM v0's names: no num_drafts and no per-position counter, an emitted-token counter and two lifetime gauges. */
export const VLLM_V0_METRIC_NAMES = {
  emitted: 'vllm:spec_decode_num_emitted_tokens_total',
  acceptanceRate: 'vllm:spec_decode_draft_acceptance_rate',
  efficiency: 'vllm:spec_decode_efficiency',
} as const;

/**
 * SGLang's speculative-decoding metrics. Unlike vLLM's cumulative counters, spec_accept_length and
 * spec_accept_rate are gauges over SGLang's last logging window (accepted tokens per verify call,
 * counting the bonus token, and accepted over drafted), so two scrapes give the later window's value,
 * not a delta; spec_verify_calls_total counts target verify forwards.
 */
export const SGLANG_METRIC_NAMES = {
  acceptLength: 'sglang:spec_accept_length',
  acceptRate: 'sglang:spec_accept_rate',
  verifyCalls: 'sglang:spec_verify_calls_total',
} as const;

/** Bad input, named for the person who pasted it. */
export class ScrapeError extends Error {
  override readonly name = 'ScrapeError';
}

/** A counter went down between two scrapes: the server restarted (or the scrapes are swapped). Live mode starts a new baseline. */
export class CounterResetError extends ScrapeError {}

/** What a v0 engine gives instead of num_drafts: its emitted tokens and the steps its efficiency gauge implies. */
export interface VllmV0Counters {
  /** Tokens emitted by speculative steps (accepted plus the one bonus or recovered token per step); null where absent. */
  emittedTokens: number | null;
  /** Verification steps, emitted / efficiency − draft tokens; null where the gauge is absent, NaN or spread over several series. */
  steps: number | null;
}

/** The four counters, each summed over every label but position. */
export interface VllmCounters {
  /** Null where the engine does not count drafts (v0): unknown, never 0. */
  numDrafts: number | null;
  numDraftTokens: number;
  numAcceptedTokens: number;
  /** acceptedPerPosition[i]: drafts whose token at position i was accepted. */
  acceptedPerPosition: number[];
  /** Present only for a model served by vLLM's v0 engine. */
  v0?: VllmV0Counters;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** The refusal of a scrape of `size` characters (or a file of `size` bytes) past the limit, or null within it. */
export function scrapeSizeError(label: string, size: number): string | null {
  if (size <= SCRAPE_LIMITS.bytes) return null;
  return `${label} is ${(size / 2 ** 20).toFixed(1)} MiB of text; a scrape may be at most ${SCRAPE_LIMITS.bytes / 2 ** 20} MiB (a vLLM /metrics page is tens of kilobytes)`;
}

function parseText(text: string, label: string): PrometheusFamily[] {
  const tooLarge = scrapeSizeError(label, text.length);
  if (tooLarge !== null) throw new ScrapeError(tooLarge);
  let families: PrometheusFamily[];
  try {
    families = parsePrometheusTextFormat(text);
  } catch (error) {
    throw new ScrapeError(`${label} is not Prometheus text: ${(error as Error).message}`);
  }
  const series = families.reduce((total, family) => total + family.metrics.length, 0);
  if (series > SCRAPE_LIMITS.series)
    throw new ScrapeError(`${label} holds ${series} series; a scrape may hold at most ${SCRAPE_LIMITS.series}`);
  if (families.length === 0)
    throw new ScrapeError(
      `${label} is not Prometheus text: it holds no metrics (paste the whole page a vLLM server serves at /metrics)`,
    );
  for (const family of families) {
    if (!METRIC_NAME.test(family.name))
      throw new ScrapeError(
        `${label} is not Prometheus text: ${JSON.stringify(family.name.slice(0, 40))} is not a metric name`,
      );
    for (const sample of family.metrics) {
      if (sample.value !== undefined && Number.isNaN(Number(sample.value)) && sample.value !== 'NaN') {
        throw new ScrapeError(
          `${label} is not Prometheus text: ${family.name} has the value ${JSON.stringify(sample.value.slice(0, 40))}, not a number`,
        );
      }
    }
  }
  return families;
}

const bare = (name: string) => name.replace(/_total$/, '');
/** A family by name, with or without `_total`. */
const named = (family: PrometheusFamily, name: string) => bare(family.name) === bare(name);

/** The label that tells models apart (vLLM and SGLang both use model_name). */
const MODEL_LABEL = 'model_name';
const NO_MODEL = '(no model_name label)';
const modelOf = (labels: Record<string, string> | undefined) => labels?.[MODEL_LABEL] ?? NO_MODEL;

function counterValue(name: string, text: string | undefined, label: string): number {
  const value = Number(text);
  if (!(Number.isFinite(value) && value >= 0 && value <= SCRAPE_LIMITS.counterMax)) {
    throw new ScrapeError(
      `${label}: ${name} is ${String(text).slice(0, 40)}; a counter is a finite number from 0 to 2^53`,
    );
  }
  return value;
}

/** Adds counters, refusing a sum past 2^53, where a double stops counting exactly. */
function addCounts(total: number, value: number, name: string, label: string): number {
  const sum = total + value;
  if (sum > SCRAPE_LIMITS.counterMax)
    throw new ScrapeError(`${label}: ${name} sums past 2^53 over its series, beyond what can be counted exactly`);
  return sum;
}

/** A sample's labels as one key, so that a series listed twice is refused rather than counted twice. */
const seriesKey = (name: string, labels: Record<string, string> | undefined) =>
  `${name}{${Object.entries(labels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(',')}}`;

function checkDuplicates(families: readonly PrometheusFamily[], label: string): void {
  const seen = new Set<string>();
  for (const name of [...Object.values(VLLM_METRIC_NAMES), ...Object.values(VLLM_V0_METRIC_NAMES)]) {
    for (const sample of families.filter((family) => named(family, name)).flatMap((family) => family.metrics)) {
      const key = seriesKey(name, sample.labels);
      if (seen.has(key))
        throw new ScrapeError(
          `${label}: the series ${key.slice(0, 120)} appears twice; each series must be listed once`,
        );
      seen.add(key);
    }
  }
}

/** A position label: a decimal integer 0, 1, … below SCRAPE_LIMITS.positions ("0x2", "1e1", "02" are refused). */
const POSITION = /^(0|[1-9][0-9]{0,3})$/;

export interface SglangFigures {
  /** Mean accepted tokens per verify call, bonus included, over SGLang's last window (a gauge). */
  acceptLength: number | null;
  /** Accepted over drafted tokens over the last window (a gauge). */
  acceptRate: number | null;
  /** Target verify forwards (a counter: deltas between scrapes are windows). */
  verifyCalls: number | null;
}

/** One scrape, per model: vLLM's counters and SGLang's figures, and one line for each spec-decode family left unread. */
export interface ScrapeReading {
  vllm: Map<string, VllmCounters>;
  sglang: Map<string, SglangFigures>;
  warnings: string[];
}

/** accepted_tokens_per_pos by position, summed over its other labels; positions never counted are 0 up to the highest. */
function perPositionCounts(series: PrometheusFamily['metrics'], label: string): number[] {
  const byPosition = new Map<number, number>();
  for (const sample of series) {
    const text = sample.labels?.position;
    const position = Number(text);
    if (!(text !== undefined && POSITION.test(text) && position < SCRAPE_LIMITS.positions)) {
      throw new ScrapeError(
        `${label}: ${VLLM_METRIC_NAMES.acceptedPerPosition} needs a position label 0, 1, … below ${SCRAPE_LIMITS.positions} in decimal, got ${JSON.stringify(text?.slice(0, 40) ?? null)}`,
      );
    }
    const count = counterValue(VLLM_METRIC_NAMES.acceptedPerPosition, sample.value, label);
    byPosition.set(
      position,
      addCounts(byPosition.get(position) ?? 0, count, VLLM_METRIC_NAMES.acceptedPerPosition, label),
    );
  }
  const positions = byPosition.size === 0 ? 0 : Math.max(...byPosition.keys()) + 1;
  return Array.from({ length: positions }, (_, i) => byPosition.get(i) ?? 0);
}

/**
 * A v0 model's emitted tokens and steps. The efficiency gauge is emitted / (steps · (k + 1)) over the server's
 * lifetime, and steps · k = draft tokens, so steps = emitted / efficiency − draft tokens. A gauge cannot be summed
 * over engines, so with several series (or a NaN gauge, before any step) the steps are unknown.
 */
function v0Counters(
  of: (name: string) => PrometheusFamily['metrics'],
  draftTokens: number,
  sum: (name: string) => number,
  label: string,
): VllmV0Counters {
  const emitted = of(VLLM_V0_METRIC_NAMES.emitted).length === 0 ? null : sum(VLLM_V0_METRIC_NAMES.emitted);
  const gauges = of(VLLM_V0_METRIC_NAMES.efficiency);
  const efficiency = gauges.length === 1 ? Number(gauges[0]?.value) : NaN;
  if (emitted === null || !(efficiency > 0 && efficiency <= 1)) return { emittedTokens: emitted, steps: null };
  const steps = emitted / efficiency - draftTokens;
  const whole = Math.round(steps);
  // The gauge is printed to double precision: anything but a whole number of steps means the figures disagree.
  if (!(whole >= 0 && Math.abs(steps - whole) <= 1e-6 * Math.max(1, whole)))
    throw new ScrapeError(
      `${label}: ${VLLM_V0_METRIC_NAMES.efficiency} ${efficiency} gives ${steps.toFixed(3)} steps (emitted / efficiency − draft tokens), not a whole number: the gauge and the counters disagree`,
    );
  return { emittedTokens: emitted, steps: whole };
}

const IGNORED_SUFFIXES = /_created$/;

/** Reads one scrape per model_name (summed over engines, the replicas serving that model, and every other label but position). */
export function readMetrics(text: string, label = 'the scrape'): ScrapeReading {
  const families = parseText(text, label);
  const known = [
    ...Object.values(VLLM_METRIC_NAMES),
    ...Object.values(VLLM_V0_METRIC_NAMES),
    ...Object.values(SGLANG_METRIC_NAMES),
  ];
  const warnings = families
    .filter(
      (family) =>
        /^(vllm:spec_decode|sglang:spec)/.test(family.name) &&
        !IGNORED_SUFFIXES.test(family.name) &&
        family.metrics.length > 0 &&
        !known.some((name) => named(family, name)),
    )
    .map((family) => `${label}: ${family.name} is not read (not a speculative-decoding figure SpecLab knows)`);
  const samples = (name: string) =>
    families.filter((family) => named(family, name)).flatMap((family) => family.metrics);
  const vllmNames = Object.values(VLLM_METRIC_NAMES);
  const v0Names = Object.values(VLLM_V0_METRIC_NAMES);
  const vllm = new Map<string, VllmCounters>();
  const present = [...vllmNames, ...v0Names].filter((name) => samples(name).length > 0);
  if (present.length > 0) {
    checkDuplicates(families, label);
    const models = [...new Set(present.flatMap((name) => samples(name).map((sample) => modelOf(sample.labels))))];
    for (const model of models) {
      const where = models.length > 1 ? `${label}, model ${model}` : label;
      const of = (name: string) => samples(name).filter((sample) => modelOf(sample.labels) === model);
      // Each model on its own: beside a v1 model, a v0 model's missing num_drafts is unknown, not 0.
      const v0 = v0Names.some((name) => of(name).length > 0);
      const required = [
        VLLM_METRIC_NAMES.draftTokens,
        VLLM_METRIC_NAMES.accepted,
        ...(v0 ? [] : [VLLM_METRIC_NAMES.drafts]),
      ];
      const missing = required.filter((name) => of(name).length === 0);
      if (missing.length > 0)
        throw new ScrapeError(`${where} lacks ${missing.join(' and ')}, so its counters cannot be read`);
      const sum = (name: string) =>
        of(name).reduce((total, sample) => addCounts(total, counterValue(name, sample.value, label), name, label), 0);
      const counters: VllmCounters = {
        numDrafts: of(VLLM_METRIC_NAMES.drafts).length === 0 ? null : sum(VLLM_METRIC_NAMES.drafts),
        numDraftTokens: sum(VLLM_METRIC_NAMES.draftTokens),
        numAcceptedTokens: sum(VLLM_METRIC_NAMES.accepted),
        acceptedPerPosition: perPositionCounts(of(VLLM_METRIC_NAMES.acceptedPerPosition), label),
      };
      if (v0) counters.v0 = v0Counters(of, counters.numDraftTokens, sum, where);
      checkCounters(counters, where);
      vllm.set(model, counters);
    }
  }
  const sglang = new Map<string, SglangFigures>();
  const sglangModels = [
    ...new Set(
      Object.values(SGLANG_METRIC_NAMES).flatMap((name) => samples(name).map((sample) => modelOf(sample.labels))),
    ),
  ];
  for (const model of sglangModels) {
    // A gauge per model: the mean over its ranks.
    const mean = (name: string) => {
      const xs = samples(name)
        .filter((sample) => modelOf(sample.labels) === model)
        .map((sample) => counterValue(name, sample.value, label));
      return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    // Tensor-parallel ranks count the same verify calls: the largest per tp_rank group; other groups (data-parallel ranks) are summed.
    const groups = new Map<string, number>();
    for (const sample of samples(SGLANG_METRIC_NAMES.verifyCalls).filter(
      (sample) => modelOf(sample.labels) === model,
    )) {
      const key = JSON.stringify(
        Object.entries(sample.labels ?? {})
          .filter(([name]) => name !== 'tp_rank')
          .sort(),
      );
      groups.set(
        key,
        Math.max(groups.get(key) ?? 0, counterValue(SGLANG_METRIC_NAMES.verifyCalls, sample.value, label)),
      );
    }
    sglang.set(model, {
      acceptLength: mean(SGLANG_METRIC_NAMES.acceptLength),
      acceptRate: mean(SGLANG_METRIC_NAMES.acceptRate),
      verifyCalls: groups.size === 0 ? null : [...groups.values()].reduce((a, b) => a + b, 0),
    });
  }
  if (vllm.size === 0 && sglang.size === 0) {
    throw new ScrapeError(
      `${label} has no speculative-decoding metrics (vLLM's ${vllmNames.map(bare).join(', ')} with or without _total, its v0 engine's ${v0Names.map(bare).join(', ')}, or SGLang's ${Object.values(SGLANG_METRIC_NAMES).join(', ')}): was the server started with speculative decoding on?`,
    );
  }
  return { vllm, sglang, warnings };
}

/** The window between two readings, per model: vLLM's counters as deltas, SGLang's gauges as the later window's, its verify calls as a delta. */
export function readingDelta(before: ScrapeReading, after: ScrapeReading): ScrapeReading {
  const vllm = new Map<string, VllmCounters>();
  for (const [model, counters] of after.vllm)
    vllm.set(
      model,
      scrapeDelta(
        before.vllm.get(model) ?? {
          numDrafts: counters.numDrafts === null ? null : 0,
          numDraftTokens: 0,
          numAcceptedTokens: 0,
          acceptedPerPosition: [],
          ...(counters.v0 === undefined ? {} : { v0: { emittedTokens: 0, steps: 0 } }),
        },
        counters,
      ),
    );
  const sglang = new Map<string, SglangFigures>();
  for (const [model, figures] of after.sglang) {
    const earlier = before.sglang.get(model)?.verifyCalls ?? null;
    const calls =
      figures.verifyCalls === null ? null : earlier === null ? figures.verifyCalls : figures.verifyCalls - earlier;
    if (calls !== null && calls < 0)
      throw new CounterResetError(
        `${SGLANG_METRIC_NAMES.verifyCalls} went backwards between the scrapes: the server restarted, or the scrapes are swapped`,
      );
    sglang.set(model, { ...figures, verifyCalls: calls });
  }
  return { vllm, sglang, warnings: [...new Set([...before.warnings, ...after.warnings])] };
}

function checkCounters(counters: VllmCounters, label: string): void {
  const { numDrafts, numDraftTokens, numAcceptedTokens, acceptedPerPosition } = counters;
  acceptedPerPosition.forEach((count, i) => {
    if (numDrafts !== null && count > numDrafts)
      throw new ScrapeError(
        `${label}: ${count} drafts accepted position ${i}, but there were only ${numDrafts} drafts; per-position counters cannot exceed the drafts`,
      );
  });
  if (numAcceptedTokens > numDraftTokens)
    throw new ScrapeError(`${label}: ${numAcceptedTokens} accepted tokens exceed the ${numDraftTokens} draft tokens`);
}

/** The counters of one benchmark window: `after` less `before`, refused where a counter went backwards. */
export function scrapeDelta(before: VllmCounters, after: VllmCounters): VllmCounters {
  const backwards = (name: string, a: number, b: number) => {
    if (b < a)
      throw new CounterResetError(
        `${name} went backwards between the scrapes (${a} before, ${b} after): the server restarted, or the scrapes are swapped`,
      );
    return b - a;
  };
  const positions = Math.max(before.acceptedPerPosition.length, after.acceptedPerPosition.length);
  // An uncounted figure at either end leaves the window's figure unknown.
  const known = (name: string, a: number | null | undefined, b: number | null | undefined) =>
    a == null || b == null ? null : backwards(name, a, b);
  const delta: VllmCounters = {
    numDrafts: known(VLLM_METRIC_NAMES.drafts, before.numDrafts, after.numDrafts),
    numDraftTokens: backwards(VLLM_METRIC_NAMES.draftTokens, before.numDraftTokens, after.numDraftTokens),
    numAcceptedTokens: backwards(VLLM_METRIC_NAMES.accepted, before.numAcceptedTokens, after.numAcceptedTokens),
    acceptedPerPosition: Array.from({ length: positions }, (_, i) =>
      backwards(
        `${VLLM_METRIC_NAMES.acceptedPerPosition}{position="${i}"}`,
        before.acceptedPerPosition[i] ?? 0,
        after.acceptedPerPosition[i] ?? 0,
      ),
    ),
  };
  if (after.v0 !== undefined)
    delta.v0 = {
      emittedTokens: known(VLLM_V0_METRIC_NAMES.emitted, before.v0?.emittedTokens, after.v0.emittedTokens),
      steps: known('the steps implied by vllm:spec_decode_efficiency', before.v0?.steps, after.v0.steps),
    };
  checkCounters(delta, 'the window between the scrapes');
  return delta;
}

/** R and I, which only the user can supply: vLLM does not count them. */
export interface SuppliedDraftCounts {
  R?: number;
  I?: number;
}

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? null : numerator / denominator);

/** What vLLM's v0 engine never counts, so its report leaves them unknown. */
export const V0_UNKNOWN_FIGURES = [
  'num_drafts (counted; the steps are derived from the efficiency gauge instead)',
  'per-position acceptance and the accepted-length histogram',
  'the draft-length advice (it needs per-position acceptance)',
] as const;

/** Where R or I came from, for the report's note: the user by default; the server where it counts them (npm run serve). */
export const SUPPLIED_BY_USER = 'as supplied by you';

/** vLLM's own derived figures (its names), and ours where R or I is known (`source` says from where). */
export function vllmReport(counters: VllmCounters, supplied: SuppliedDraftCounts = {}, source = SUPPLIED_BY_USER) {
  const { numDrafts, numDraftTokens, numAcceptedTokens, acceptedPerPosition, v0 } = counters;
  const R = supplied.R ?? (supplied.I === undefined ? null : numDraftTokens + supplied.I);
  if (R !== null && R < numDraftTokens)
    throw new ScrapeError(
      `R = ${R} is below D = ${numDraftTokens}; R counts every raw draft token, D only the grammar-valid ones`,
    );
  const emitted = v0?.emittedTokens ?? null;
  const steps = v0?.steps ?? null;
  return {
    engine: v0 === undefined ? ('v1' as const) : ('v0' as const),
    num_drafts: numDrafts,
    num_draft_tokens: numDraftTokens,
    num_accepted_tokens: numAcceptedTokens,
    num_accepted_tokens_per_pos: [...acceptedPerPosition],
    draft_acceptance_rate: ratio(numAcceptedTokens, numDraftTokens),
    mean_acceptance_length: numDrafts === null || numDrafts === 0 ? null : 1 + numAcceptedTokens / numDrafts,
    per_position_acceptance: acceptedPerPosition.map((count) => (numDrafts === null ? null : ratio(count, numDrafts))),
    ...(v0 === undefined
      ? {}
      : {
          num_emitted_tokens: emitted,
          verification_steps: steps,
          // Emitted tokens per step: what each step gave the client, its bonus or recovered token included.
          emitted_mean_acceptance_length: emitted === null || steps === null ? null : ratio(emitted, steps),
          unknown_in_v0: [...V0_UNKNOWN_FIGURES],
        }),
    D: numDraftTokens,
    A: numAcceptedTokens,
    R,
    I: R === null ? null : R - numDraftTokens,
    grammar_survival: R === null ? null : ratio(numDraftTokens, R),
    draft_yield: R === null ? null : ratio(numAcceptedTokens, R),
    note:
      R === null
        ? 'vLLM counts D (num_draft_tokens, grammar-invalidated drafts already subtracted) and A, not R or I: supply R or I to see D/R and A/R.'
        : `R and I ${source}; vLLM counts only D and A.`,
  };
}

export type VllmReport = ReturnType<typeof vllmReport>;

/** A reading's vLLM figures, one report per model_name in the scrape's order (never summed across models). */
export function modelReports(
  reading: ScrapeReading,
  supplied: SuppliedDraftCounts = {},
): { model: string; report: VllmReport }[] {
  return [...reading.vllm].map(([model, counters]) => ({ model, report: vllmReport(counters, supplied) }));
}

/** 1.96: the two-sided 95% normal quantile, for the advice's intervals over drafts. */
const Z95 = 1.959964;

/**
 * Which draft length L to run, from measured per-position acceptance a_i (the fraction of drafts whose
 * position i was accepted, which needs every earlier position accepted too) and C, one draft step's cost
 * over one target forward: a step drafting L tokens emits 1 + Σ_{i≤L} a_i tokens on average and costs
 * 1 + L·C target forwards, so its expected speedup over plain decoding is their ratio. Only L up to the
 * positions measured can be advised.
 *
 * The a_i give the whole distribution of a draft's accepted length X (P(X > i) = a_i), so with the window's
 * `numDrafts` drafts as the samples each L's expected speedup gets a 95% interval, and each L's difference
 * from the best L gets one too (the same drafts, so the difference is paired). The recommended L is the
 * smallest whose difference from the best holds 0: a longer draft that is not measurably faster costs
 * drafting for nothing. Without `numDrafts` there are no intervals and the best point estimate is recommended.
 */
export function adviseDraftLength(
  perPositionAcceptance: readonly (number | null)[],
  costRatio: number,
  numDrafts: number | null = null,
) {
  const rates: number[] = [];
  for (const rate of perPositionAcceptance) {
    if (rate === null) break;
    rates.push(rate);
  }
  const n = rates.length;
  // P(X = k) for k = 0..n, X capped at the positions measured.
  const probability = Array.from({ length: n + 1 }, (_, k) =>
    Math.max(0, (k === 0 ? 1 : (rates[k - 1] as number)) - (k === n ? 0 : (rates[k] as number))),
  );
  const moments = (g: (k: number) => number) => {
    const mean = probability.reduce((sum, p, k) => sum + p * g(k), 0);
    const variance = Math.max(0, probability.reduce((sum, p, k) => sum + p * g(k) ** 2, 0) - mean ** 2);
    const half = numDrafts === null || numDrafts === 0 ? null : (Z95 * Math.sqrt(variance)) / Math.sqrt(numDrafts);
    return { mean, half };
  };
  const speedupAt = (L: number) => (k: number) => (1 + Math.min(k, L)) / (1 + L * costRatio);
  let tokens = 1;
  const points = rates.map((rate, i) => {
    tokens += rate;
    const L = i + 1;
    return { L, expected_tokens_per_step: tokens, expected_speedup: tokens / (1 + L * costRatio) };
  });
  const best = points.reduce<(typeof points)[number] | null>(
    (top, row) => (top === null || row.expected_speedup > top.expected_speedup ? row : top),
    null,
  );
  const rows = points.map((row) => {
    const own = moments(speedupAt(row.L));
    const difference = best === null ? null : moments((k) => speedupAt(row.L)(k) - speedupAt(best.L)(k));
    const ci95 =
      own.half === null ? null : { low: row.expected_speedup - own.half, high: row.expected_speedup + own.half };
    return {
      ...row,
      expected_speedup_ci95: ci95,
      within_noise_of_best: difference?.half == null ? row.L === best?.L : difference.mean + difference.half >= 0,
    };
  });
  const recommended = rows.find((row) => row.within_noise_of_best) ?? null;
  return {
    cost_ratio: costRatio,
    num_drafts: numDrafts,
    rows,
    best_L: best?.L ?? null,
    recommended_L: recommended?.L ?? null,
  };
}

export type DraftLengthAdvice = ReturnType<typeof adviseDraftLength>;

/**
 * The L advice over a live run's windows: each window's expected speedup per L (from its own per-position
 * acceptance), the median over windows with its 95% bootstrap interval, and each L against the highest by the
 * shared verdict rule (src/core/verdict.ts), window by window as pairs. The recommended L is the smallest not
 * measurably slower than the highest; under the rule's 5 windows nothing is measured, and it is the highest.
 */
export function adviseOverWindows(windows: readonly (readonly (number | null)[])[], costRatio: number) {
  const perWindow = windows.map((rates) => adviseDraftLength(rates, costRatio).rows.map((row) => row.expected_speedup));
  const positions = Math.min(...perWindow.map((speedups) => speedups.length));
  if (windows.length === 0 || positions === 0)
    return {
      cost_ratio: costRatio,
      windows: windows.length,
      rows: [],
      best_L: null,
      recommended_L: null,
      measured: false,
    };
  const speedups = (L: number) => perWindow.map((window) => window[L - 1] as number);
  const medians = Array.from({ length: positions }, (_, i) => median(speedups(i + 1)));
  const bestL = medians.indexOf(Math.max(...medians)) + 1;
  const rows = medians.map((value, i) => {
    const L = i + 1;
    const interval = bootstrapInterval(speedups(L));
    return {
      L,
      median_speedup: value,
      speedup_ci95: { low: interval.low, high: interval.high },
      against_best: L === bestL ? null : compareRatios(pairRatios(speedups(L), speedups(bestL))).verdict,
    };
  });
  const measured = windows.length >= MIN_SAMPLES_FOR_VERDICT;
  const recommended = measured ? (rows.find((row) => row.against_best !== 'slower')?.L ?? bestL) : bestL;
  return { cost_ratio: costRatio, windows: windows.length, rows, best_L: bestL, recommended_L: recommended, measured };
}

/** A --R or --I entry: `MODEL=N` for one model, or a bare N, which only a scrape of one model may take. */
export type SuppliedEntry = { model: string | null; value: number };

/**
 * R or I per model from entries such as `big-k4=1200` or `1200`: a bare number with several models, a model
 * named twice, or a model the scrape lacks is refused with one line (a ScrapeError).
 */
export function suppliedPerModel(
  models: readonly string[],
  R: readonly SuppliedEntry[],
  I: readonly SuppliedEntry[],
): Map<string, SuppliedDraftCounts> {
  const supplied = new Map<string, SuppliedDraftCounts>(models.map((model) => [model, {}]));
  for (const [key, entries] of [
    ['R', R],
    ['I', I],
  ] as const) {
    for (const { model, value } of entries) {
      if (model === null && models.length !== 1)
        throw new ScrapeError(
          `--${key} ${value} is one number for ${models.length} models (${models.join(', ')}): give --${key} MODEL=N for each`,
        );
      const name = model ?? (models[0] as string);
      const counts = supplied.get(name);
      if (counts === undefined)
        throw new ScrapeError(
          `--${key} ${name}=${value}: the scrape has no model_name ${JSON.stringify(name)} (it has ${models.join(', ') || 'none'})`,
        );
      if (counts[key] !== undefined) throw new ScrapeError(`--${key} for ${name} given twice`);
      if (counts[key === 'R' ? 'I' : 'R'] !== undefined)
        throw new ScrapeError(`--R and --I for ${name}: give one (R = D + I)`);
      counts[key] = value;
    }
  }
  return supplied;
}
