/**
 * Drafts that cost nothing: the schema's forced text and the prompt's own words, beside the draft model.
 *
 * A deterministic drafter is a draft with a point-mass law: where it proposes token t after a prefix, the
 * draft row there is q = one-hot(t), so the verifiers' own rules apply unchanged (t is kept with probability
 * min(1, p(t)/1) = p(t), and the residual is max(0, p − q)). The draft law of a step is one autoregressive
 * law: after each prefix, the first source that proposes a token gives the row (grammar, then lookup), and
 * the draft model gives it otherwise. Every source is a pure function of the prefix (context and the
 * draft's tokens so far), so K drafts drawn from this law are i.i.d., as the multi-draft methods require:
 * deterministic spans are shared by every draft that reaches them, model tokens are sampled independently.
 * test/core/draftLaw.test.ts proves it by exact enumeration of every verifier with every drafter.
 */
import type { ModelPair } from './modelPair';

/** Where a draft token came from: the draft model, the draft head (src/engine/pairModels.ts), or a free source. */
export type DraftSource = 'model' | 'head' | 'grammar' | 'lookup';
export const DRAFT_SOURCES: readonly DraftSource[] = ['model', 'head', 'grammar', 'lookup'];

/**
 * The drafters a run may choose: the draft model alone, or with the free sources in front of it; or the
 * draft head (an EAGLE-style MLP over the target's own features), alone or behind the schema's forced text.
 */
export const DRAFTER_IDS = [
  'model',
  'model+grammar',
  'model+lookup',
  'model+grammar+lookup',
  'head',
  'head+grammar',
] as const;
export type DrafterId = (typeof DRAFTER_IDS)[number];

export const DRAFTER_INFO: Readonly<Record<DrafterId, { label: string; description: string }>> = {
  model: {
    label: 'Draft model only',
    description: 'Every draft token is sampled from the draft model (the plain method).',
  },
  'model+grammar': {
    label: 'Model + schema',
    description: 'Where the schema forces the next token, it is drafted with q = 1 without calling the draft model.',
  },
  'model+lookup': {
    label: 'Model + prompt lookup',
    description: 'Where the last 3, 2 or 1 tokens occurred earlier, the token that followed is drafted with q = 1.',
  },
  'model+grammar+lookup': {
    label: 'Model + schema + lookup',
    description: 'Schema-forced tokens first, then prompt lookup, then the draft model; all lossless.',
  },
  head: {
    label: 'Draft head',
    description:
      "Every draft token is sampled from the draft head, which reads the target's own last hidden state (EAGLE-style).",
  },
  'head+grammar': {
    label: 'Head + schema',
    description: 'Where the schema forces the next token, it is drafted with q = 1; elsewhere the draft head drafts.',
  },
};

/** Drafters that draw from the draft head: offered only where the target exports `features` and a head is loaded. */
export function usesHead(drafter: DrafterId): boolean {
  return drafter.startsWith('head');
}

/** The source a drafter's sampled (not free) tokens are counted under. */
export function sampledSource(drafter: DrafterId): 'model' | 'head' {
  return usesHead(drafter) ? 'head' : 'model';
}

export function isDrafterId(value: unknown): value is DrafterId {
  return typeof value === 'string' && (DRAFTER_IDS as readonly string[]).includes(value);
}

/** Which deterministic sources a drafter puts in front of the draft model. */
export function drafterSources(drafter: DrafterId): { grammar: boolean; lookup: boolean } {
  return { grammar: drafter.includes('grammar'), lookup: drafter.includes('lookup') };
}

/** Prompt lookup's n-gram range (vLLM's ngram speculator): the longest suffix of 3 tokens down to 1. */
export const LOOKUP_MAX_N = 3;
export const LOOKUP_MIN_N = 1;

/**
 * Prompt lookup: for n from `maxN` down to `minN`, the last n tokens of `history` are searched for earlier in
 * it, most recent occurrence first; the token that followed the first match is the proposal. Null when no
 * suffix recurs. A pure function of `history`.
 */
export function lookupProposal(history: readonly number[], maxN = LOOKUP_MAX_N, minN = LOOKUP_MIN_N): number | null {
  const length = history.length;
  for (let n = Math.min(maxN, length - 1); n >= minN; n--) {
    // A match ending at `end` (exclusive) must leave a following token before the suffix itself.
    for (let end = length - 1; end >= n; end--) {
      let matches = true;
      for (let i = 1; i <= n && matches; i++) matches = history[end - i] === history[length - i];
      if (matches) return history[end] as number;
    }
  }
  return null;
}

/** q for a deterministic proposal: all mass on `token`. */
export function pointMass(V: number, token: number): Float64Array {
  if (!(Number.isInteger(token) && token >= 0 && token < V))
    throw new RangeError(`proposed token ${token} is outside the vocabulary 0..${V - 1}`);
  const row = new Float64Array(V);
  row[token] = 1;
  return row;
}

/** A deterministic drafter: the token it proposes after a prefix, or null to pass. */
export type Proposer = (prefix: readonly number[]) => number | null;

export interface SourcedPair extends ModelPair {
  /** The source of the draft row after `prefix`. */
  source(prefix: readonly number[]): DraftSource;
}

/**
 * The draft law of a drafter over a model pair: after each prefix the first proposer that proposes gives a
 * point mass, else the pair's draft row. The target is the pair's.
 */
export function composeDraftLaw(
  pair: ModelPair,
  proposers: Readonly<Partial<Record<'grammar' | 'lookup', Proposer>>>,
  sampled: 'model' | 'head' = 'model',
): SourcedPair {
  const ordered = (['grammar', 'lookup'] as const).flatMap((source) => {
    const proposer = proposers[source];
    return proposer ? [{ source, proposer }] : [];
  });
  const proposal = (prefix: readonly number[]): { source: DraftSource; token: number } | null => {
    for (const { source, proposer } of ordered) {
      const token = proposer(prefix);
      if (token !== null) return { source, token };
    }
    return null;
  };
  return {
    V: pair.V,
    target: (prefix) => pair.target(prefix),
    draft: (prefix) => {
      const proposed = proposal(prefix);
      return proposed ? pointMass(pair.V, proposed.token) : pair.draft(prefix);
    },
    source: (prefix) => proposal(prefix)?.source ?? sampled,
  };
}
