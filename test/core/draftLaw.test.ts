import { describe, expect, it } from 'vitest';
import {
  DRAFTER_IDS,
  composeDraftLaw,
  drafterSources,
  lookupProposal,
  pointMass,
  sampledSource,
  usesHead,
  type DrafterId,
  type Proposer,
} from '../../src/core/draftLaw';
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

function drafterPair(drafter: DrafterId, pair: ModelPair, salt: number) {
  const { grammar, lookup } = drafterSources(drafter);
  return composeDraftLaw(
    usesHead(drafter) ? headDraftPair(pair, salt) : pair,
    {
      ...(grammar ? { grammar: forcedBy(pair.V, salt) } : {}),
      ...(lookup ? { lookup: (prefix: readonly number[]) => lookupProposal(prefix) } : {}),
    },
    sampledSource(drafter),
  );
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
  it('puts the grammar before lookup before the model, and names the source', () => {
    const row = Float64Array.from([0.5, 0.5]);
    const pair: ModelPair = { V: 2, target: () => row, draft: () => row };
    const law = composeDraftLaw(pair, {
      grammar: (prefix) => (prefix.length === 1 ? 1 : null),
      lookup: (prefix) => (prefix.length <= 2 ? 0 : null),
    });
    expect([law.source([0]), law.source([0, 0]), law.source([0, 0, 0])]).toEqual(['grammar', 'lookup', 'model']);
    expect(Array.from(law.draft([0]))).toEqual([0, 1]);
    expect(Array.from(law.draft([0, 0]))).toEqual([1, 0]);
    expect(law.draft([0, 0, 0])).toBe(row);
  });
});

// Every verifier with every drafter, exact enumeration after a context (the same standard as
// test/core/verify/lossless.test.ts): deterministic spans shared by every draft, target mass anywhere
// (zero included) on a forced or looked-up token, error ≤ 1e-12.
const KINDS: readonly RowKind[] = ['sparse', 'mixed'];
const CASES = [2, 3].flatMap((V) =>
  [2, 3].flatMap((L) => [1, 3].flatMap((K) => KINDS.map((kind) => ({ V, L, K, kind })))),
);

describe.each(VERIFIER_IDS)('%s stays lossless with every drafter', (method) => {
  it.each(DRAFTER_IDS.filter((drafter) => drafter !== 'model'))('%s', (drafter) => {
    const sources = new Set<string>();
    for (const { V, L, K, kind } of CASES) {
      const seed = 7000 + 1000 * V + 100 * L + 10 * K + KINDS.indexOf(kind);
      const pair = drafterPair(drafter, afterContext(treePair(V, L, kind, seed)), seed);
      const report = checkLossless(VERIFIERS[method], pair, K, L, CONTEXT);
      for (let x = 0; x < V; x++) for (const prefix of [CONTEXT, [...CONTEXT, x]]) sources.add(pair.source(prefix));
      expect(Math.abs(report.totalProbability - 1), `V=${V} L=${L} K=${K} ${kind}`).toBeLessThanOrEqual(1e-12);
      expect(report.maxError, `V=${V} L=${L} K=${K} ${kind}`).toBeLessThanOrEqual(1e-12);
    }
    // Not vacuous: each deterministic source drafted somewhere, the model elsewhere.
    const { grammar, lookup } = drafterSources(drafter);
    expect(sources).toEqual(
      new Set([sampledSource(drafter), ...(grammar ? ['grammar'] : []), ...(lookup ? ['lookup'] : [])]),
    );
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
