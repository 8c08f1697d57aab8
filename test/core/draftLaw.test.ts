import { describe, expect, it } from 'vitest';
import {
  DRAFTER_IDS,
  FREE_SOURCES,
  composeDraftLaw,
  drafterSources,
  lookupProposal,
  pointMass,
  sampledSource,
  samplesNothing,
  spanProposer,
  usesHead,
  type DrafterId,
  type Proposer,
  type SourcedPair,
} from '../../src/core/draftLaw';
import { copySpan } from '../../src/core/copyDraft';
import { headLogitPair, syntheticHead } from '../../src/core/draftHead';
import type { ModelPair } from '../../src/core/modelPair';
import { logitsToProbs } from '../../src/core/sampling';
import { VERIFIERS, VERIFIER_IDS, type Verifier } from '../../src/core/verify';
import { checkLossless } from './verify/exactness';
import { treePair, type RowKind } from './verify/instances';

/** The prompt every instance follows: it gives prompt lookup something to find. */
const CONTEXT = [0, 1, 0];

/** A tree pair read after CONTEXT: rows keyed by the tokens past it. */
function afterContext(pair: ModelPair): ModelPair {
  const tail = (prefix: readonly number[]) => prefix.slice(CONTEXT.length);
  return { V: pair.V, target: (prefix) => pair.target(tail(prefix)), draft: (prefix) => pair.draft(tail(prefix)) };
}

/** A stand-in for the schema: a pure function of the prefix that forces a token after about a third of them. */
function forcedBy(V: number, salt: number): Proposer {
  return (prefix) => {
    let hash = salt;
    for (const token of prefix) hash = (Math.imul(hash ^ token, 0x01000193) >>> 0) % 1000003;
    hash = (Math.imul(hash ^ prefix.length, 0x01000193) >>> 0) % 1000003;
    return hash % 3 === 0 ? Math.floor(hash / 3) % V : null;
  };
}

/** The head drafters' temperature in the proofs: q is the head's row after it. */
const HEAD_T = 0.7;

/**
 * A synthetic target with features and a synthetic head (src/core/draftHead.ts): the draft row after CONTEXT
 * and d_1..d_{j−1} is the head's chain from the target's feature at CONTEXT's second-to-last position, at
 * temperature `temperature`. The target's rows are `pair`'s (sparse rows: zero mass anywhere).
 */
function headDraftPair(pair: ModelPair, seed: number, temperature = HEAD_T): ModelPair {
  const head = headLogitPair(syntheticHead({ V: pair.V, width: 4, seed }), CONTEXT);
  return {
    V: pair.V,
    target: (prefix) => pair.target(prefix),
    draft: (prefix) => logitsToProbs(head.draft(prefix), { temperature }),
  };
}

/** A tiny vocabulary with a word's worth of letters, longest match first: "ab" is one token, or two. */
const COPY_TEXTS = ['a', 'b', 'ab'];
const copyDetokenize = (tokens: readonly number[]) => tokens.map((token) => COPY_TEXTS[token] ?? '?').join('');
function copyTokenize(V: number): (text: string) => number[] {
  return (text) => {
    const ids: number[] = [];
    for (let at = 0; at < text.length;) {
      const id = V > 2 && text.startsWith('ab', at) ? 2 : COPY_TEXTS.indexOf(text[at] as string);
      if (id < 0) throw new Error(`no token spells ${text.slice(at)}`);
      ids.push(id);
      at += (COPY_TEXTS[id] as string).length;
    }
    return ids;
  };
}
/** The prompt the copy drafter copies from: "id" points to "abb" once; "ba" is another word to match. */
const COPY_PROMPT = 'Record id: abb, then ba.';

/**
 * The real copy drafter (src/core/copyDraft.ts) on the tiny vocabulary: the tokens past CONTEXT are the text so
 * far of the JSON string value of key "id". Empty: the key's value "abb"; "a": "bb" (from "abb"); "b": "a" (from
 * "ba"); "aa": nothing. Spans followed as the engine follows them (spanProposer).
 */
function copyProposer(V: number): Proposer {
  const tokenize = copyTokenize(V);
  return spanProposer(CONTEXT.length, (prefix) => {
    const value = prefix.slice(CONTEXT.length);
    return copySpan(COPY_PROMPT, value, `{"id": "${copyDetokenize(value)}`, tokenize, copyDetokenize);
  });
}

function drafterPair(drafter: DrafterId, pair: ModelPair, salt: number): SourcedPair {
  const { grammar, copy, lookup } = drafterSources(drafter);
  return composeDraftLaw(
    usesHead(drafter) ? headDraftPair(pair, salt) : pair,
    {
      ...(grammar ? { grammar: forcedBy(pair.V, salt) } : {}),
      ...(copy ? { copy: copyProposer(pair.V) } : {}),
      ...(lookup ? { lookup: (prefix: readonly number[]) => lookupProposal(prefix) } : {}),
    },
    sampledSource(drafter),
  );
}

/**
 * How many tokens a step of the `copy` drafter drafts after CONTEXT (decode.ts: copyStep): the free sources'
 * proposals as far as they go, at most L. Its drafts are that span, with q = 1, verified as an L'-token step.
 */
function freeSpan(pair: SourcedPair, L: number): number {
  const prefix = [...CONTEXT];
  while (prefix.length - CONTEXT.length < L && pair.source(prefix) !== 'model') {
    const row = pair.draft(prefix);
    prefix.push(row.indexOf(1));
  }
  return prefix.length - CONTEXT.length;
}

describe('prompt lookup', () => {
  it('proposes the token after the most recent match of the longest recurring suffix', () => {
    // Suffix [1, 2] recurs at 0..2 (followed by 3) and 4..6 (followed by 9): the most recent wins.
    expect(lookupProposal([1, 2, 3, 5, 1, 2, 9, 7, 1, 2])).toBe(9);
    // No 3- or 2-gram recurs; the 1-gram 4 occurred before 8.
    expect(lookupProposal([4, 8, 6, 4])).toBe(8);
    expect(lookupProposal([1, 2, 3])).toBeNull();
    expect(lookupProposal([5])).toBeNull();
    // A 3-gram match is preferred to a more recent 1-gram match.
    expect(lookupProposal([7, 8, 9, 1, 9, 2, 7, 8, 9])).toBe(1);
  });

  it('drafts a point mass, so a proposal the target forbids is never accepted', () => {
    expect(Array.from(pointMass(3, 2))).toEqual([0, 0, 1]);
    expect(() => pointMass(3, 3)).toThrow(/outside the vocabulary/);
  });
});

describe('composed draft law', () => {
  it('puts the grammar before copy before lookup before the model, and names the source', () => {
    const row = Float64Array.from([0.5, 0.5]);
    const pair: ModelPair = { V: 2, target: () => row, draft: () => row };
    const law = composeDraftLaw(pair, {
      grammar: (prefix) => (prefix.length === 1 ? 1 : null),
      copy: (prefix) => (prefix.length <= 2 ? 1 : null),
      lookup: (prefix) => (prefix.length <= 3 ? 0 : null),
    });
    expect([law.source([0]), law.source([0, 0]), law.source([0, 0, 0]), law.source([0, 0, 0, 0])]).toEqual([
      'grammar',
      'copy',
      'lookup',
      'model',
    ]);
    expect(Array.from(law.draft([0, 0]))).toEqual([0, 1]);
    expect(Array.from(law.draft([0, 0, 0]))).toEqual([1, 0]);
    expect(law.draft([0, 0, 0, 0])).toBe(row);
  });
});

// Every verifier with every drafter, exact enumeration after a context (the same standard as
// test/core/verify/lossless.test.ts): deterministic spans shared by every draft, target mass anywhere
// (zero included) on a forced or looked-up token, error ≤ 1e-12.
const KINDS: readonly RowKind[] = ['sparse', 'mixed'];
const CASES = [2, 3].flatMap((V) =>
  [2, 3].flatMap((L) => [1, 3].flatMap((K) => KINDS.map((kind) => ({ V, L, K, kind })))),
);

/** Every prefix past CONTEXT up to `depth` tokens. */
function prefixesTo(V: number, depth: number): number[][] {
  const all: number[][] = [[...CONTEXT]];
  for (let at = 0; at < all.length; at++) {
    const prefix = all[at] as number[];
    if (prefix.length - CONTEXT.length < depth) for (let x = 0; x < V; x++) all.push([...prefix, x]);
  }
  return all;
}

describe.each(VERIFIER_IDS)('%s stays lossless with every drafter', (method) => {
  it.each(DRAFTER_IDS.filter((drafter) => drafter !== 'model'))('%s', (drafter) => {
    const sources = new Set<string>();
    let steps = 0;
    for (const { V, L, K, kind } of CASES) {
      const seed = 7000 + 1000 * V + 100 * L + 10 * K + KINDS.indexOf(kind);
      const pair = drafterPair(drafter, afterContext(treePair(V, L, kind, seed)), seed);
      // The copy drafter alone drafts only the free span, as long as it goes; none: the target writes one token.
      const length = samplesNothing(drafter) ? freeSpan(pair, L) : L;
      if (length === 0) continue;
      steps++;
      const report = checkLossless(VERIFIERS[method], pair, K, length, CONTEXT);
      for (const prefix of prefixesTo(V, length - 1)) sources.add(pair.source(prefix));
      expect(Math.abs(report.totalProbability - 1), `V=${V} L=${L} K=${K} ${kind}`).toBeLessThanOrEqual(1e-12);
      expect(report.maxError, `V=${V} L=${L} K=${K} ${kind}`).toBeLessThanOrEqual(1e-12);
    }
    expect(steps).toBeGreaterThan(CASES.length / 2);
    // Not vacuous: each deterministic source drafted somewhere, the model elsewhere.
    const free = drafterSources(drafter);
    const used = FREE_SOURCES.filter((source) => free[source]);
    expect([...sources].filter((source) => source !== 'model' && source !== 'head').sort()).toEqual(used.sort());
    if (!samplesNothing(drafter)) expect(sources.has(sampledSource(drafter))).toBe(true);
  });
});

describe('the copy drafter: what it proposes, and a negative control', () => {
  it('copies the key’s value at the start, the matched word’s rest inside, nothing where no word matches', () => {
    const propose = copyProposer(3);
    const after = (...tokens: number[]) => propose([...CONTEXT, ...tokens]);
    // Empty value: "abb" is ab·b; after "a" (one token) the rest is "bb": b·b; after "b", "a" (from "ba").
    expect([after(), after(2), after(0), after(1), after(0, 0)]).toEqual([2, 1, 1, 0, null]);
    // A draft that follows the span is proposed its next token; one that left it reads a new one.
    expect([after(0, 1), after(2, 1)]).toEqual([1, null]);
  });

  // The copied token is drafted with q = 1, but the verifier is told q is the draft model's row there: the proof must catch it.
  it.each(VERIFIER_IDS)('%s: a copied token verified against the model’s row breaks the exact law', (method) => {
    let worst = 0;
    for (const { V, L, K, kind } of CASES.filter((each) => each.kind === 'mixed')) {
      const seed = 9500 + 100 * V + 10 * L + K;
      const target = afterContext(treePair(V, L, kind, seed));
      const law = drafterPair('model+copy', target, seed);
      const prefixOf = (view: Parameters<Verifier>[0], k: number, j: number) => [
        ...CONTEXT,
        ...Array.from({ length: j }, (_, i) => view.token(k, i)),
      ];
      const misreporting: Verifier = (view, source) =>
        VERIFIERS[method](
          {
            ...view,
            draftRow: (k, j) =>
              law.source(prefixOf(view, k, j)) === 'copy' ? target.draft(prefixOf(view, k, j)) : view.draftRow(k, j),
          },
          source,
        );
      worst = Math.max(worst, checkLossless(misreporting, law, K, L, CONTEXT).maxError);
      if (worst > 1e-3) break;
    }
    expect(worst).toBeGreaterThan(1e-3);
  });
});

describe('the draft head: its chain and a negative control', () => {
  it('depth 1 reads the target feature at the context’s second-to-last position, later depths the head’s own', () => {
    const head = syntheticHead({ V: 3, width: 4, seed: 5 });
    const pair = headLogitPair(head, CONTEXT);
    const first = head.run(head.targetFeature(CONTEXT.slice(0, -1)), CONTEXT.at(-1) as number);
    expect(Array.from(pair.draft(CONTEXT))).toEqual(Array.from(first.logits));
    expect(Array.from(pair.draft([...CONTEXT, 2]))).toEqual(Array.from(head.run(first.feature, 2).logits));
    // Not the target's own feature after the draft token: the head predicts it.
    expect(Array.from(pair.draft([...CONTEXT, 2]))).not.toEqual(
      Array.from(head.run(head.targetFeature(CONTEXT), 2).logits),
    );
  });

  // Drafts sampled from the head's row at HEAD_T, but the verifier told q is the row at T = 1: the proof must catch it.
  it.each(VERIFIER_IDS)('%s: a q that is not the row the draft was sampled from breaks the exact law', (method) => {
    let worst = 0;
    for (const { V, L, K, kind } of CASES.filter((each) => each.kind === 'mixed')) {
      const seed = 9000 + 100 * V + 10 * L + K;
      const target = afterContext(treePair(V, L, kind, seed));
      const sampling = headDraftPair(target, seed);
      const reported = headDraftPair(target, seed, 1);
      const reportedRow = (view: Parameters<Verifier>[0], k: number, j: number) =>
        reported.draft([...CONTEXT, ...Array.from({ length: j }, (_, i) => view.token(k, i))]);
      const misreporting: Verifier = (view, source) =>
        VERIFIERS[method]({ ...view, draftRow: (k, j) => reportedRow(view, k, j) }, source);
      worst = Math.max(worst, checkLossless(misreporting, sampling, K, L, CONTEXT).maxError);
      // One instance caught is the point; the rest would only cost time.
      if (worst > 1e-3) break;
    }
    expect(worst).toBeGreaterThan(1e-3);
  });
});
