/**
 * The prefix tree the target scores in one pass: checked against prefixes written out as strings, over
 * random drafts from small vocabularies (so that drafts share prefixes often).
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src/core/rng';
import {
  keptPositions,
  prefixTree,
  tokenTree,
  treeInput,
  verifierRows,
  type PrefixTree,
} from '../../src/core/tokenTree';

const below = (rng: Rng, n: number) => rng.nextUint32() % n;

function randomCase(rng: Rng) {
  const K = 1 + below(rng, 5);
  const L = 1 + below(rng, 5);
  const V = 2 + below(rng, 3);
  const drafts = Int32Array.from({ length: K * L }, () => below(rng, V));
  const fresh = Array.from({ length: 1 + below(rng, 4) }, () => below(rng, 50));
  return { K, L, drafts, fresh, pastLength: below(rng, 6) };
}

/** A node's prefix, read back along its parents, as text. */
function prefixOf(tree: PrefixTree, node: number): string {
  const tokens: number[] = [];
  for (let at = node; at !== -1; at = tree.parents[at] as number) tokens.unshift(tree.tokens[at] as number);
  return tokens.join(',');
}

const draftPrefix = (drafts: Int32Array, L: number, k: number, length: number) =>
  Array.from(drafts.subarray(k * L, k * L + length)).join(',');
const CASES = 400;

describe('tokenTree', () => {
  it('has exactly one node per distinct prefix, and nodeOf names the node of every (k, j)', () => {
    const rng = createRng(17, 0);
    for (let c = 0; c < CASES; c++) {
      const { K, L, drafts } = randomCase(rng);
      const tree = tokenTree(drafts, K, L);
      const distinct = new Set<string>();
      for (let k = 0; k < K; k++) for (let j = 1; j <= L; j++) distinct.add(draftPrefix(drafts, L, k, j));
      expect(tree.size).toBe(distinct.size);
      const prefixes = Array.from({ length: tree.size }, (_, n) => prefixOf(tree, n));
      expect(new Set(prefixes).size).toBe(tree.size);
      for (let k = 0; k < K; k++) {
        for (let j = 0; j < L; j++)
          expect(prefixes[tree.nodeOf[k]?.[j] as number]).toBe(draftPrefix(drafts, L, k, j + 1));
      }
    }
  });

  it('puts every parent before its children, one level up', () => {
    const rng = createRng(18, 0);
    for (let c = 0; c < CASES; c++) {
      const { K, L, drafts } = randomCase(rng);
      const tree = tokenTree(drafts, K, L);
      for (let n = 0; n < tree.size; n++) {
        const parent = tree.parents[n] as number;
        expect(parent).toBeLessThan(n);
        expect(tree.depths[n]).toBe(parent === -1 ? 1 : (tree.depths[parent] as number) + 1);
      }
    }
  });

  it('the mask lets a node see the fresh chain, its ancestors and itself; the fresh chain is causal', () => {
    const rng = createRng(19, 0);
    for (let c = 0; c < CASES; c++) {
      const { K, L, drafts, fresh, pastLength } = randomCase(rng);
      const tree = tokenTree(drafts, K, L);
      const F = fresh.length;
      const { seq, inputIds, positionIds, mask } = treeInput(tree, fresh, pastLength);
      expect(seq).toBe(F + tree.size);
      expect(mask).toHaveLength(seq * seq);
      // Sequence position i as the text of everything it continues after the past: the fresh tokens, then its prefix.
      const text = (i: number) =>
        i < F ? fresh.slice(0, i + 1).join(',') : `${fresh.join(',')}|${prefixOf(tree, i - F)}`;
      for (let i = 0; i < seq; i++) {
        expect(inputIds[i]).toBe(i < F ? fresh[i] : tree.tokens[i - F]);
        const depth = i < F ? i - F + 1 : (tree.depths[i - F] as number);
        expect(positionIds[i]).toBe(pastLength + F - 1 + depth);
        for (let j = 0; j < seq; j++) {
          // j is visible from i when i's text extends j's (whole tokens: compare with the separators).
          const [ti, tj] = [text(i), text(j)];
          const extends_ = ti === tj || ti.startsWith(`${tj},`) || ti.startsWith(`${tj}|`);
          expect(mask[i * seq + j], `${ti} → ${tj}`).toBe(extends_ ? 1 : 0);
        }
      }
    }
  });

  it('verifier rows: (k, 0) is the last fresh token, (k, j) the node of d_k[0..j)', () => {
    const rng = createRng(20, 0);
    for (let c = 0; c < CASES; c++) {
      const { K, L, drafts, fresh } = randomCase(rng);
      const tree = tokenTree(drafts, K, L);
      const rows = verifierRows(tree, fresh.length, L);
      for (let k = 0; k < K; k++) {
        expect(rows[k * (L + 1)]).toBe(fresh.length - 1);
        for (let j = 1; j <= L; j++)
          expect(prefixOf(tree, (rows[k * (L + 1) + j] as number) - fresh.length)).toBe(draftPrefix(drafts, L, k, j));
      }
    }
  });

  it('kept positions are the context, then the chosen path: increasing, and they hold the emitted tokens', () => {
    const rng = createRng(21, 0);
    for (let c = 0; c < CASES; c++) {
      const { K, L, drafts, fresh, pastLength } = randomCase(rng);
      const tree = tokenTree(drafts, K, L);
      const chosen = below(rng, K);
      const accepted = below(rng, L + 1);
      const kept = keptPositions(tree, pastLength, fresh.length, chosen, accepted);
      const { inputIds } = treeInput(tree, fresh, pastLength);
      expect(kept).toHaveLength(pastLength + fresh.length + accepted);
      kept.forEach((position, i) => {
        if (i > 0) expect(position).toBeGreaterThan(kept[i - 1] as number);
      });
      expect(kept.slice(0, pastLength + fresh.length)).toEqual(
        Array.from({ length: pastLength + fresh.length }, (_, i) => i),
      );
      const pathTokens = kept.slice(pastLength + fresh.length).map((position) => inputIds[position - pastLength]);
      expect(pathTokens.join(',')).toBe(draftPrefix(drafts, L, chosen, accepted));
    }
  });

  it('three drafts of four sharing their first tokens: six nodes, seven positions where the batched path has fifteen', () => {
    const drafts = Int32Array.from([5, 6, 7, 8, 5, 6, 9, 9, 5, 6, 7, 8]);
    const tree = tokenTree(drafts, 3, 4);
    expect(tree.size).toBe(6);
    expect(Array.from(tree.parents)).toEqual([-1, 0, 1, 2, 1, 4]);
    expect(treeInput(tree, [1], 10).seq).toBe(7);
    expect(Array.from(verifierRows(tree, 1, 4))).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 5, 6, 0, 1, 2, 3, 4]);
  });

  it('ragged drafts (the inspector and the counters) merge the same way', () => {
    const tree = prefixTree([[1, 2, 3], [1], [1, 4], []]);
    expect(tree.size).toBe(4);
    expect(tree.nodeOf.map((nodes) => Array.from(nodes))).toEqual([[0, 1, 2], [0], [0, 3], []]);
  });

  it('refuses a tree forward with no fresh token, and drafts of the wrong size', () => {
    expect(() => treeInput(tokenTree(Int32Array.from([1, 2]), 1, 2), [], 3)).toThrow(RangeError);
    expect(() => tokenTree(Int32Array.from([1, 2, 3]), 2, 2)).toThrow(/3 draft tokens for K = 2 × L = 2/);
    expect(() => keptPositions(tokenTree(Int32Array.from([1, 2]), 1, 2), 0, 1, 0, 3)).toThrow(RangeError);
  });
});
