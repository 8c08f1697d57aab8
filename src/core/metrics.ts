/**
 * The counters of spec §6 and the structured-output scorecard. All are sums over verification steps.
 *   R raw draft tokens proposed; I invalidated by the grammar (from a draft's first invalid token to its end);
 *   D = R − I; A accepted by the target (emitted tokens minus the one correction/bonus token).
 * Multi-draft steps count every proposed token of every draft in R and D. Because K drafts often share
 * prefixes, the distinct prefix-tree nodes are counted too (`distinctRaw`, `distinctEligible`), and both are
 * shown: "all tokens" is what the drafter computed, "distinct nodes" is what the target really had to score.
 */
import { DRAFT_SOURCES, type DraftSource } from './draftLaw';
import { prefixTree } from './tokenTree';

/** Drafted, invalidated and accepted tokens of one source (src/core/draftLaw.ts); R, I and A split by where the tokens came from. */
export interface SourceCounts {
  readonly drafted: number;
  readonly invalidated: number;
  readonly accepted: number;
}
export type BySource = Readonly<Record<DraftSource, SourceCounts>>;

export const emptyBySource = (): BySource =>
  Object.fromEntries(DRAFT_SOURCES.map((source) => [source, { drafted: 0, invalidated: 0, accepted: 0 }])) as Record<
    DraftSource,
    SourceCounts
  >;

function addBySource(a: BySource, b: BySource): BySource {
  const sum = (source: DraftSource): SourceCounts => ({
    drafted: a[source].drafted + b[source].drafted,
    invalidated: a[source].invalidated + b[source].invalidated,
    accepted: a[source].accepted + b[source].accepted,
  });
  return Object.fromEntries(DRAFT_SOURCES.map((source) => [source, sum(source)])) as Record<DraftSource, SourceCounts>;
}

/**
 * One step's tokens by source: every proposed token of every draft is drafted; those from a draft's first
 * grammar-invalid token on are invalidated; the chosen draft's first `accepted` are accepted.
 */
export function countBySource(
  sources: readonly (readonly DraftSource[])[],
  lengths: readonly number[],
  validLengths: readonly number[],
  chosen: number,
  accepted: number,
): BySource {
  const counts = Object.fromEntries(
    DRAFT_SOURCES.map((source) => [source, { drafted: 0, invalidated: 0, accepted: 0 }]),
  ) as Record<DraftSource, { drafted: number; invalidated: number; accepted: number }>;
  sources.forEach((each, k) => {
    const length = Math.min(each.length, lengths[k] ?? each.length);
    for (let j = 0; j < length; j++) {
      const entry = counts[each[j] as DraftSource];
      entry.drafted++;
      if (j >= (validLengths[k] ?? length)) entry.invalidated++;
      if (k === chosen && j < accepted) entry.accepted++;
    }
  });
  return counts;
}

export interface StepCounts {
  /** Draft tokens proposed in this step (K·L unless a draft ended early). */
  proposed: number;
  /** Of those, invalidated by the grammar. */
  invalidated: number;
  /** Distinct prefix-tree nodes among the proposed tokens. */
  distinctProposed: number;
  /** Distinct prefix-tree nodes among the grammar-valid tokens. */
  distinctEligible: number;
  /** Draft tokens the verifier accepted (0..L). */
  accepted: number;
  /** The same tokens by source, where the step recorded them (speculative steps do). */
  bySource?: BySource;
}

export interface Counters {
  /** Draft length: the histogram has buckets 0..L. */
  readonly L: number;
  readonly steps: number;
  readonly raw: number;
  readonly invalidated: number;
  readonly accepted: number;
  readonly distinctRaw: number;
  readonly distinctEligible: number;
  /** histogram[n] = steps that accepted exactly n draft tokens (the bonus token excluded). */
  readonly histogram: readonly number[];
  /** acceptedAtLeast[i] = steps that accepted i + 1 or more draft tokens, i = 0..L−1. */
  readonly acceptedAtLeast: readonly number[];
  /**
   * raw, invalidated and accepted by source: model, head, grammar (forced by the schema), copy (a value copied
   * from the prompt), lookup (the prompt's own tokens).
   */
  readonly bySource: BySource;
}

export function emptyCounters(L: number): Counters {
  if (!(Number.isInteger(L) && L >= 1)) throw new RangeError(`L must be a positive integer, got ${L}`);
  return {
    L,
    steps: 0,
    raw: 0,
    invalidated: 0,
    accepted: 0,
    distinctRaw: 0,
    distinctEligible: 0,
    histogram: new Array<number>(L + 1).fill(0),
    acceptedAtLeast: new Array<number>(L).fill(0),
    bySource: emptyBySource(),
  };
}

function checkStep(counters: Counters, step: StepCounts): void {
  const { proposed, invalidated, distinctProposed, distinctEligible, accepted } = step;
  for (const [name, value] of Object.entries({ proposed, invalidated, distinctProposed, distinctEligible, accepted })) {
    if (!(Number.isInteger(value) && value >= 0))
      throw new RangeError(`step ${name} must be a non-negative integer, got ${value}`);
  }
  if (invalidated > proposed)
    throw new RangeError(`step invalidated ${invalidated} of only ${proposed} proposed tokens`);
  if (accepted > counters.L) throw new RangeError(`step accepted ${accepted} tokens, more than L = ${counters.L}`);
  if (accepted > proposed - invalidated) {
    throw new RangeError(
      `step accepted ${accepted} tokens, more than its ${proposed - invalidated} grammar-valid ones`,
    );
  }
  if (distinctProposed > proposed || distinctEligible > distinctProposed || distinctEligible > proposed - invalidated) {
    throw new RangeError('step distinct-node counts exceed the token counts they summarise');
  }
  if (accepted > distinctEligible)
    throw new RangeError(`step accepted ${accepted} tokens from ${distinctEligible} distinct valid nodes`);
}

/** The counters after one more verification step; the input is left unchanged. */
export function recordStep(counters: Counters, step: StepCounts): Counters {
  checkStep(counters, step);
  return {
    L: counters.L,
    steps: counters.steps + 1,
    raw: counters.raw + step.proposed,
    invalidated: counters.invalidated + step.invalidated,
    accepted: counters.accepted + step.accepted,
    distinctRaw: counters.distinctRaw + step.distinctProposed,
    distinctEligible: counters.distinctEligible + step.distinctEligible,
    histogram: counters.histogram.map((count, length) => (length === step.accepted ? count + 1 : count)),
    acceptedAtLeast: counters.acceptedAtLeast.map((count, i) => (step.accepted > i ? count + 1 : count)),
    bySource: step.bySource ? addBySource(counters.bySource, step.bySource) : counters.bySource,
  };
}

/** Counters of two runs with the same L, summed: one slice over many runs. */
export function addCounters(a: Counters, b: Counters): Counters {
  if (a.L !== b.L) throw new RangeError(`cannot add counters of L = ${a.L} and L = ${b.L}`);
  const sum = (x: readonly number[], y: readonly number[]) => x.map((value, i) => value + (y[i] as number));
  return {
    L: a.L,
    steps: a.steps + b.steps,
    raw: a.raw + b.raw,
    invalidated: a.invalidated + b.invalidated,
    accepted: a.accepted + b.accepted,
    distinctRaw: a.distinctRaw + b.distinctRaw,
    distinctEligible: a.distinctEligible + b.distinctEligible,
    histogram: sum(a.histogram, b.histogram),
    acceptedAtLeast: sum(a.acceptedAtLeast, b.acceptedAtLeast),
    bySource: addBySource(a.bySource, b.bySource),
  };
}

/**
 * Counts one step's drafts. `validLengths[k]` is how many leading tokens of draft k the grammar allowed
 * (L when it allowed them all); `lengths[k]`, when given, is how many tokens draft k proposed.
 */
export function countDraftTokens(
  drafts: Int32Array,
  K: number,
  L: number,
  validLengths: readonly number[],
  accepted: number,
  lengths: readonly number[] = new Array<number>(K).fill(L),
): StepCounts {
  let proposed = 0;
  let invalidated = 0;
  const tree = prefixTree(Array.from({ length: K }, (_, k) => drafts.subarray(k * L, k * L + (lengths[k] ?? L))));
  const eligibleNodes = new Set<number>();
  tree.nodeOf.forEach((nodes, k) => {
    const valid = Math.min(validLengths[k] ?? nodes.length, nodes.length);
    proposed += nodes.length;
    invalidated += nodes.length - valid;
    for (let j = 0; j < valid; j++) eligibleNodes.add(nodes[j] as number);
  });
  return { proposed, invalidated, distinctProposed: tree.size, distinctEligible: eligibleNodes.size, accepted };
}

export interface DerivedRatios {
  /** D/R: how often the drafter stays inside the grammar. */
  grammarSurvival: number | null;
  /** A/D: vLLM's draft_acceptance_rate. */
  conditionalAcceptance: number | null;
  /** A/R: accepted work per raw proposal. */
  draftYield: number | null;
  /** 1 + A/steps: emitted tokens per verification step, bonus included. */
  meanAcceptanceLength: number | null;
  /** A/D over distinct prefix-tree nodes. */
  distinctConditionalAcceptance: number | null;
}

/** null stands for 0/0: a ratio whose denominator has not been seen yet. */
function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

export function eligible(counters: Counters): number {
  return counters.raw - counters.invalidated;
}

export function derivedRatios(counters: Counters): DerivedRatios {
  const D = eligible(counters);
  return {
    grammarSurvival: ratio(D, counters.raw),
    conditionalAcceptance: ratio(counters.accepted, D),
    draftYield: ratio(counters.accepted, counters.raw),
    meanAcceptanceLength: counters.steps === 0 ? null : 1 + counters.accepted / counters.steps,
    distinctConditionalAcceptance: ratio(counters.accepted, counters.distinctEligible),
  };
}

/**
 * Why a source pays, per source that drafted: its A/D (accepted over its grammar-valid drafted tokens) and its
 * accepted tokens a step (A_source / steps; over all sources they sum to A/steps, the mean acceptance length
 * less the one token every step emits).
 */
export function sourceRatios(
  counters: Counters,
): { source: DraftSource; conditionalAcceptance: number | null; tokensPerStep: number | null }[] {
  return DRAFT_SOURCES.filter((source) => counters.bySource[source].drafted > 0).map((source) => {
    const { drafted, invalidated, accepted } = counters.bySource[source];
    return {
      source,
      conditionalAcceptance: ratio(accepted, drafted - invalidated),
      tokensPerStep: ratio(accepted, counters.steps),
    };
  });
}

/**
 * The counters with the schema's forced tokens (source `grammar`, q = p = 1: no test can reject them) set
 * apart: A and A/D of the tokens a drafter proposed, 1 + A/steps over those, and the forced tokens' share of
 * A. A step of forced text then reads as what it is, not as 100% acceptance.
 */
export interface ProposedRatios {
  /** A of proposed (not forced) draft tokens. */
  accepted: number;
  /** D of proposed draft tokens. */
  eligible: number;
  /** A/D over proposed draft tokens. */
  conditionalAcceptance: number | null;
  /** 1 + A(proposed)/steps. */
  meanAcceptanceLength: number | null;
  /** Forced tokens' share of A. */
  forcedShare: number | null;
}

export function proposedRatios(counters: Counters): ProposedRatios {
  const forced = counters.bySource.grammar;
  const accepted = counters.accepted - forced.accepted;
  const proposedEligible = eligible(counters) - (forced.drafted - forced.invalidated);
  return {
    accepted,
    eligible: proposedEligible,
    conditionalAcceptance: ratio(accepted, proposedEligible),
    meanAcceptanceLength: counters.steps === 0 ? null : 1 + accepted / counters.steps,
    forcedShare: ratio(forced.accepted, counters.accepted),
  };
}

/** Per-position acceptance: accepted_at_or_past_pos[i] / steps, for positions 1..L. */
export function perPositionAcceptance(counters: Counters): (number | null)[] {
  return counters.acceptedAtLeast.map((count) => ratio(count, counters.steps));
}

const roundTo = (value: number | null, digits: number | undefined) =>
  value === null || digits === undefined ? value : Number(value.toFixed(digits));

/**
 * The counters and their ratios under the names every export uses (the CLI's JSON, the sweep, the
 * scorecard, the counter panel's files); `digits` rounds the ratios for tables.
 */
export function counterFields(counters: Counters, digits?: number) {
  const derived = derivedRatios(counters);
  return {
    R: counters.raw,
    I: counters.invalidated,
    D: eligible(counters),
    A: counters.accepted,
    steps: counters.steps,
    acceptance_histogram: [...counters.histogram],
    grammar_survival: roundTo(derived.grammarSurvival, digits),
    conditional_acceptance: roundTo(derived.conditionalAcceptance, digits),
    draft_yield: roundTo(derived.draftYield, digits),
    mean_acceptance_length: roundTo(derived.meanAcceptanceLength, digits),
    by_source: counters.bySource,
  };
}

/** Everything we count, under our names. */
function speclabFields(counters: Counters) {
  return {
    ...counterFields(counters),
    distinct_R: counters.distinctRaw,
    distinct_D: counters.distinctEligible,
    accepted_per_position: [...counters.acceptedAtLeast],
    per_position_acceptance: perPositionAcceptance(counters),
  };
}

type SpeclabFields = ReturnType<typeof speclabFields>;

/**
 * vLLM's spec-decode names for the counters it shares with us (its D is ours: grammar-invalid drafts never
 * reach its counters). The one place the two namings meet.
 */
export const VLLM_NAMES = {
  steps: 'num_drafts',
  D: 'num_draft_tokens',
  A: 'num_accepted_tokens',
  accepted_per_position: 'num_accepted_tokens_per_pos',
  conditional_acceptance: 'draft_acceptance_rate',
  mean_acceptance_length: 'mean_acceptance_length',
} as const satisfies Partial<Record<keyof SpeclabFields, string>>;

type VllmFields = { [Field in keyof typeof VLLM_NAMES as (typeof VLLM_NAMES)[Field]]: SpeclabFields[Field] };

/** Our counters with vLLM's field names beside them. */
export function exportCounters(counters: Counters) {
  const speclab = speclabFields(counters);
  const vllm = Object.fromEntries(
    Object.entries(VLLM_NAMES).map(([ours, theirs]) => [theirs, speclab[ours as keyof typeof VLLM_NAMES]]),
  ) as VllmFields;
  return { speclab, vllm };
}

/** How one completed output fared, judged independently of the grammar (by the JSON-schema validator). */
export type CompletionKind = 'valid' | 'invalid' | 'truncated' | 'dead-end';

/** The scorecard's correctness rows, shown next to R, I, D and A. */
export interface Scorecard {
  readonly completions: number;
  readonly valid: number;
  readonly invalid: number;
  /** Max tokens reached mid-JSON. */
  readonly truncated: number;
  /** The grammar allowed no next token. */
  readonly deadEnds: number;
}

export const EMPTY_SCORECARD: Scorecard = { completions: 0, valid: 0, invalid: 0, truncated: 0, deadEnds: 0 };

export function recordCompletion(card: Scorecard, kind: CompletionKind): Scorecard {
  const field = ({ valid: 'valid', invalid: 'invalid', truncated: 'truncated', 'dead-end': 'deadEnds' } as const)[kind];
  return { ...card, completions: card.completions + 1, [field]: card[field] + 1 };
}

/** Schema-valid completions over all completions. */
export function schemaValidRate(card: Scorecard): number | null {
  return ratio(card.valid, card.completions);
}
