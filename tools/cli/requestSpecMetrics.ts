/**
 * Per-request speculative-decoding metrics, as servers now report them with each response:
 * - vLLM (PR #48915, `--per-request-spec-decode-metrics summary|detailed`): a top-level
 *   `metrics.speculative_decoding` object (non-streamed; streamed, on the final usage chunk), null for n > 1;
 * - SGLang: `meta_info` with spec_verify_ct, spec_accept_token_num, spec_draft_token_num.
 * `npm run serve` writes vLLM's object (plus R and I as named extensions); `scorecard --server` and
 * `import:vllm --responses` read either into one engine-neutral record per request, so every figure is
 * attributed to its request (and through it to its bucket), at any concurrency.
 */
import { percentile } from './percentile';

export type SpecDecodeLevel = 'none' | 'summary' | 'detailed';

/** One request's counters, whichever server reported them. */
export interface RequestSpecRecord {
  source: 'vllm' | 'sglang';
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
/** AIPerf's adapter also accepts a histogram as {"j": count}: read both, dense. */
const histogramOf = (value: unknown): number[] | null => {
  if (Array.isArray(value)) return counts(value);
  if (!isRecord(value)) return null;
  const entries = Object.entries(value).map(([key, n]) => [Number(key), count(n)] as const);
  if (!entries.every(([j, n]) => Number.isInteger(j) && j >= 0 && j < 1024 && n !== null)) return null;
  const dense = new Array<number>(Math.max(-1, ...entries.map(([j]) => j)) + 1).fill(0);
  for (const [j, n] of entries) dense[j] = n as number;
  return dense;
};

/**
 * The per-request record in a response body or stream chunk (vLLM's metrics.speculative_decoding, or SGLang's
 * meta_info at the top or on a choice), or null when it carries none. A record whose counts do not add up
 * (histogram against steps, accepted above drafted) is refused, not repaired.
 */
export function readRequestSpecMetrics(json: unknown): RequestSpecRecord | null {
  if (!isRecord(json)) return null;
  const vllm = isRecord(json.metrics) ? json.metrics.speculative_decoding : undefined;
  if (isRecord(vllm)) {
    const steps = count(vllm.num_spec_steps);
    const draftTokens = count(vllm.num_draft_tokens);
    const accepted = count(vllm.num_accepted_draft_tokens);
    if (steps === null || draftTokens === null || accepted === null || accepted > draftTokens)
      throw new RangeError(
        'metrics.speculative_decoding: num_spec_steps, num_draft_tokens, num_accepted_draft_tokens must be counts, accepted ≤ drafted',
      );
    const histogram = vllm.acceptance_histogram === undefined ? null : histogramOf(vllm.acceptance_histogram);
    if (histogram !== null && histogram.reduce((a, b) => a + b, 0) !== steps)
      throw new RangeError('metrics.speculative_decoding: acceptance_histogram does not sum to num_spec_steps');
    return {
      source: 'vllm',
      steps,
      draftTokens,
      accepted,
      histogram,
      raw: count(vllm.raw_draft_tokens),
      invalidated: count(vllm.invalidated_draft_tokens),
      perStepAccepted: counts(vllm.per_step_accepted),
      perStepDrafted: counts(vllm.per_step_drafted),
    };
  }
  const choices = Array.isArray(json.choices) ? (json.choices as unknown[]) : [];
  const meta = [json.meta_info, ...choices.map((choice) => (isRecord(choice) ? choice.meta_info : undefined))].find(
    (candidate) => isRecord(candidate) && candidate.spec_verify_ct !== undefined,
  );
  if (!isRecord(meta)) return null;
  const steps = count(meta.spec_verify_ct);
  const accepted = count(meta.spec_accept_token_num);
  const draftTokens = count(meta.spec_draft_token_num);
  if (steps === null || accepted === null || draftTokens === null || accepted > draftTokens)
    throw new RangeError(
      'meta_info: spec_verify_ct, spec_accept_token_num, spec_draft_token_num must be counts, accepted ≤ drafted',
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
