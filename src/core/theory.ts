import { enumerateOutcomes } from './enumerate';
import { lazyDraftView, type ModelPair } from './modelPair';
import type { RandomSource } from './random';
import type { DraftBlockView, VerifyOutcome } from './verify';

export type Verifier = (view: DraftBlockView, source: RandomSource) => VerifyOutcome;

export interface ExactOutcomeLaw {
  /** Probability of each emitted token sequence, keyed by the tokens joined with ','. */
  emitted: Map<string, number>;
  /** E[accepted draft tokens] (the bonus or correction token excluded). */
  expectedAccepted: number;
  /** Total probability of all paths: 1 up to rounding. */
  totalProbability: number;
  runs: number;
}

/**
 * The exact law of one verification step: every draft token and every random choice of the verifier is
 * enumerated with its probability. Pass a function of VERIFIERS to prove what production runs.
 */
export function exactOutcomeLaw(
  verifier: Verifier,
  pair: ModelPair,
  context: readonly number[],
  K: number,
  L: number,
  maxRuns = Infinity,
  deadline = Infinity,
): ExactOutcomeLaw {
  const emitted = new Map<string, number>();
  let expectedAccepted = 0;
  let totalProbability = 0;
  const runs = enumerateOutcomes(
    (source) => verifier(lazyDraftView(pair, context, K, L, source), source),
    (outcome, probability) => {
      const key = outcome.tokens.join(',');
      emitted.set(key, (emitted.get(key) ?? 0) + probability);
      expectedAccepted += probability * outcome.accepted;
      totalProbability += probability;
    },
    maxRuns,
    deadline,
  );
  return { emitted, expectedAccepted, totalProbability, runs };
}

/** Visits every prefix x^i (i = 1..depth) with its joint target probability Q and draft probability P. */
function forEachPrefix(
  pair: ModelPair,
  context: readonly number[],
  depth: number,
  visit: (length: number, targetJoint: number, draftJoint: number, prefix: readonly number[]) => void,
): void {
  const walk = (prefix: number[], targetJoint: number, draftJoint: number) => {
    if (prefix.length - context.length === depth) return;
    const target = pair.target(prefix);
    const draft = pair.draft(prefix);
    for (let x = 0; x < pair.V; x++) {
      const q = targetJoint * (target[x] as number);
      const p = draftJoint * (draft[x] as number);
      if (q === 0 && p === 0) continue;
      prefix.push(x);
      visit(prefix.length - context.length, q, p, prefix);
      walk(prefix, q, p);
      prefix.pop();
    }
  };
  walk([...context], 1, 1);
}

/** Closed form for token-wise SD (spec §1): Σ_i Σ_{x^i} Π_{j≤i} min(draft_j(x_j), target_j(x_j)). */
export function tokenwiseExpectedAccepted(pair: ModelPair, context: readonly number[], L: number): number {
  let expected = 0;
  const walk = (prefix: number[], overlap: number) => {
    if (prefix.length - context.length === L) return;
    const target = pair.target(prefix);
    const draft = pair.draft(prefix);
    for (let x = 0; x < pair.V; x++) {
      const next = overlap * Math.min(target[x] as number, draft[x] as number);
      if (next === 0) continue;
      expected += next;
      prefix.push(x);
      walk(prefix, next);
      prefix.pop();
    }
  };
  walk([...context], 1);
  return expected;
}

/**
 * The universal bound for any valid verifier with K i.i.d. drafts (spec §4):
 * E[accepted] ≤ Σ_{i=1..L} Σ_{x^i} min(Q(x^i), 1 − (1 − P(x^i))^K).
 */
export function universalAcceptanceBound(pair: ModelPair, context: readonly number[], K: number, L: number): number {
  let bound = 0;
  forEachPrefix(pair, context, L, (_length, targetJoint, draftJoint) => {
    bound += Math.min(targetJoint, 1 - (1 - draftJoint) ** K);
  });
  return bound;
}

/** Q(x) for every x in V^length after the context: the law plain target sampling gives. */
export function targetSequenceLaw(pair: ModelPair, context: readonly number[], length: number): Map<string, number> {
  const law = new Map<string, number>();
  forEachPrefix(pair, context, length, (depth, targetJoint, _draftJoint, prefix) => {
    if (depth === length && targetJoint > 0) law.set(prefix.slice(context.length).join(','), targetJoint);
  });
  return law;
}

/**
 * Extends each emitted sequence with target samples up to `length` tokens (ext(B, x) of spec §5), giving the
 * law of the first `length` tokens of the whole stream. Lossless means it equals targetSequenceLaw.
 */
export function extendWithTarget(
  pair: ModelPair,
  context: readonly number[],
  emitted: Map<string, number>,
  length: number,
): Map<string, number> {
  const law = new Map<string, number>();
  const extend = (sequence: number[], probability: number) => {
    if (sequence.length >= length) {
      const key = sequence.slice(0, length).join(',');
      law.set(key, (law.get(key) ?? 0) + probability);
      return;
    }
    const target = pair.target([...context, ...sequence]);
    for (let x = 0; x < pair.V; x++) {
      const p = target[x] as number;
      if (p > 0) extend([...sequence, x], probability * p);
    }
  };
  for (const [key, probability] of emitted) extend(key.split(',').map(Number), probability);
  return law;
}

/**
 * P(accepted = j | the drafts), j = 0..L, for one verification problem: every choice of the verifier is
 * enumerated except its final draw (correction or bonus), which comes after the length is decided and which
 * the verifier announces with a `final` note: it does not branch, and returns the first possible token. `lengthOf` reads the length from an outcome (the decode
 * loop cuts it at a stop token). Throws EnumerationBudgetExceeded past `maxRuns` paths.
 */
export function acceptedLengthLaw(
  verifier: Verifier,
  view: DraftBlockView,
  maxRuns: number,
  lengthOf: (outcome: VerifyOutcome) => number = (outcome) => outcome.accepted,
): Float64Array {
  const law = new Float64Array(view.L + 1);
  enumerateOutcomes(
    (source) => {
      // The verifiers announce each choice (`explain`); only the final token's draw is left unbranched, so a
      // categorical that decides acceptance (optimal-tree's transport choice) is enumerated like a Bernoulli.
      let nextIsFinal = false;
      return lengthOf(
        verifier(view, {
          explain: (note) => {
            nextIsFinal = note.kind === 'final';
          },
          bernoulli: (p) => source.bernoulli(p),
          categorical: (weights) =>
            nextIsFinal
              ? Array.prototype.findIndex.call(weights, (weight: number) => weight > 0)
              : source.categorical(weights),
        }),
      );
    },
    (length, probability) => {
      law[length] = (law[length] as number) + probability;
    },
    maxRuns,
  );
  return law;
}

/**
 * α*: the largest probability that any lossless verifier accepts one of K i.i.d. candidates drawn from
 * `draft`, for one position with law `target`. It is the value of the optimal transport between
 * the candidates' multiset and the target token; by max-flow/min-cut
 *   α* = 1 − max over token sets H of [draft(H)^K − target(H)]
 * (if every candidate lands in H, at most target(H) of that can be accepted). At K = 1 it is 1 − TV.
 * The maximising H can be taken among the prefixes of the tokens sorted by target/draft: for a fixed
 * draft(H) the smallest target(H) is such a prefix (plus a fraction of one token), and between two
 * consecutive prefixes the objective is convex, so its maximum sits at a prefix. Tokens the draft never
 * proposes only add target mass, so they never belong to H.
 */
export function transportOptimum(target: ArrayLike<number>, draft: ArrayLike<number>, K: number): number {
  if (target.length !== draft.length) throw new RangeError(`target has ${target.length} tokens, draft ${draft.length}`);
  if (!(Number.isInteger(K) && K >= 1)) throw new RangeError(`K must be a positive integer, got ${K}`);
  const drafted: number[] = [];
  for (let x = 0; x < draft.length; x++) if ((draft[x] as number) > 0) drafted.push(x);
  // Ascending target/draft, compared without dividing.
  drafted.sort((a, b) => (target[a] as number) * (draft[b] as number) - (target[b] as number) * (draft[a] as number));
  let draftMass = 0;
  let targetMass = 0;
  let worst = 0;
  for (const x of drafted) {
    draftMass += draft[x] as number;
    targetMass += target[x] as number;
    worst = Math.max(worst, draftMass ** K - targetMass);
  }
  return 1 - worst;
}
