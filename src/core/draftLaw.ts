/**
 * Drafts that cost nothing: the schema's forced text and the prompt's own words, beside the draft model.
 *
 * A deterministic drafter is a draft with a point-mass law: where it proposes token t after a prefix, the
 * draft row there is q = one-hot(t), so the verifiers' own rules apply unchanged (t is kept with probability
 * min(1, p(t)/1) = p(t), and the residual is max(0, p − q)). The draft law of a step is one autoregressive
 * law: after each prefix, the first source that proposes a token gives the row (grammar, copy, lookup), and
 * the draft model gives it otherwise. Every source is a pure function of the prefix (context and the
 * draft's tokens so far), so K drafts drawn from this law are i.i.d., as the multi-draft methods require:
 * deterministic spans are shared by every draft that reaches them, model tokens are sampled independently.
 * test/core/draftLaw.test.ts proves it by exact enumeration of every verifier with every drafter.
 */
import type { ModelPair } from './modelPair';

/** Where a draft token came from: the draft model, the draft head (src/engine/pairModels.ts), or a free source. */
export type DraftSource = 'model' | 'head' | 'grammar' | 'copy' | 'lookup';
export const DRAFT_SOURCES: readonly DraftSource[] = ['model', 'head', 'grammar', 'copy', 'lookup'];
/** The sources that propose one token with q = 1, in the order a drafter asks them. */
export const FREE_SOURCES = ['grammar', 'copy', 'lookup'] as const;
export type FreeSource = (typeof FREE_SOURCES)[number];

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
  'copy',
  'model+copy',
  'model+grammar+copy',
] as const;
export type DrafterId = (typeof DRAFTER_IDS)[number];

/**
 * The one default drafter: the app's fresh form, every CLI's --drafter (generate, sweep, scorecard, serve) and
 * the bench's --drafters. model+grammar: it keeps the draft model (K drafts that differ), and no drafter that
 * samples the draft model beat it beyond noise on this CPU; `copy` is faster on schema runs but drafts nothing
 * outside a schema and gives K identical drafts (docs/performance.md#choosing-the-default-drafter). A share link
 * or talk scene without a drafter still means `model` (src/store/shareUrl.ts), so links made before drafters
 * existed replay bit-identically.
 */
export const DEFAULT_DRAFTER: DrafterId = 'model+grammar';

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
  copy: {
    label: 'Schema + copy (no draft model)',
    description:
      "The schema's forced text and values copied from the prompt, with q = 1; where neither proposes, the target writes one token.",
  },
  'model+copy': {
    label: 'Model + copy',
    description:
      "Inside a JSON value, the rest of the prompt's matching text, re-tokenized in place, is drafted with q = 1; elsewhere the draft model.",
  },
  'model+grammar+copy': {
    label: 'Model + schema + copy',
    description: 'Schema-forced tokens first, then values copied from the prompt, then the draft model; all lossless.',
  },
};

/** Drafters that draw from the draft head: offered only where the target exports `features` and a head is loaded. */
export function usesHead(drafter: DrafterId): boolean {
  return drafter.startsWith('head');
}

/**
 * Drafters that sample from no model (`copy`): a step drafts only what the free sources propose, as far as
 * they go (src/engine/decode.ts), and where they propose nothing the target writes one token, as `ar` does.
 */
export function samplesNothing(drafter: DrafterId): boolean {
  return drafter === 'copy';
}

/** The source a drafter's sampled (not free) tokens are counted under. */
export function sampledSource(drafter: DrafterId): 'model' | 'head' {
  return usesHead(drafter) ? 'head' : 'model';
}

export function isDrafterId(value: unknown): value is DrafterId {
  return typeof value === 'string' && (DRAFTER_IDS as readonly string[]).includes(value);
}

/** Which deterministic sources a drafter puts in front of the draft model (`copy` alone takes the schema's too). */
export function drafterSources(drafter: DrafterId): Record<FreeSource, boolean> {
  return {
    grammar: drafter.includes('grammar') || samplesNothing(drafter),
    copy: drafter.includes('copy'),
    lookup: drafter.includes('lookup'),
  };
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

/**
 * A proposer of spans (the copy drafter's): at the step's first position, and wherever the draft left the span
 * it was following or came to its end, `spanAt(prefix)` gives the tokens to propose from there (none: pass);
 * a draft that follows a span is proposed its next token. `start` is the prefix length where the step began.
 * A pure function of the prefix, so every draft that reaches a prefix is proposed the same token; `spanAt` is
 * asked once per prefix (it may tokenize).
 */
export function spanProposer(start: number, spanAt: (prefix: readonly number[]) => readonly number[]): Proposer {
  const spans = new Map<string, readonly number[]>();
  const spanAfter = (prefix: readonly number[]) => {
    const key = prefix.slice(start).join(',');
    let span = spans.get(key);
    if (span === undefined) {
      span = spanAt(prefix);
      spans.set(key, span);
    }
    return span;
  };
  return (prefix) => {
    let span: readonly number[] = [];
    let from = start;
    for (let i = start; ; i++) {
      if (i - from >= span.length) {
        span = spanAfter(prefix.slice(0, i));
        from = i;
      }
      const proposal = span[i - from];
      if (i === prefix.length) return proposal ?? null;
      // The draft left the span: the next position reads a new one.
      if (prefix[i] !== proposal) span = [];
    }
  };
}

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
  proposers: Readonly<Partial<Record<FreeSource, Proposer>>>,
  sampled: 'model' | 'head' = 'model',
): SourcedPair {
  const ordered = FREE_SOURCES.flatMap((source) => {
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
