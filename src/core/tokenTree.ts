/**
 * K drafts merged into a prefix tree: one node per distinct prefix, so that a target can score each once
 * (tree attention, as in SpecInfer and Medusa/EAGLE verifiers) and the inspector can draw the tree the
 * drafts share. Pure: no models, no caches.
 *
 * The scoring layout, shared with the exported models' tree_attention_mask input: the step's fresh context
 * tokens first, as a chain, then the nodes in insertion order, so a parent always comes before its children.
 */

export interface PrefixTree {
  /** Distinct non-empty prefixes. */
  readonly size: number;
  /** Per node: its last token, its parent node (-1: the root, the context) and its depth (1 = first draft token). */
  readonly tokens: Int32Array;
  readonly parents: Int32Array;
  readonly depths: Int32Array;
  /** nodeOf[k][j]: the node of the prefix d_k[0..j] (j + 1 tokens). */
  readonly nodeOf: readonly Int32Array[];
}

/** Merges drafts of any lengths; nodes are numbered in the order first met, draft by draft. */
export function prefixTree(drafts: readonly ArrayLike<number>[]): PrefixTree {
  const tokens: number[] = [];
  const parents: number[] = [];
  const depths: number[] = [];
  // children[node + 1] maps a token to the child node; slot 0 is the root's.
  const children: Map<number, number>[] = [new Map()];
  const nodeOf = drafts.map((draft) => {
    const nodes = new Int32Array(draft.length);
    let parent = -1;
    for (let j = 0; j < draft.length; j++) {
      const token = draft[j] as number;
      const siblings = children[parent + 1] as Map<number, number>;
      let node = siblings.get(token);
      if (node === undefined) {
        node = tokens.length;
        siblings.set(token, node);
        tokens.push(token);
        parents.push(parent);
        depths.push(j + 1);
        children.push(new Map());
      }
      nodes[j] = node;
      parent = node;
    }
    return nodes;
  });
  return {
    size: tokens.length,
    tokens: Int32Array.from(tokens),
    parents: Int32Array.from(parents),
    depths: Int32Array.from(depths),
    nodeOf,
  };
}

/** The K×L drafts of a step (padding after a stop token included: identical paddings merge). */
export function tokenTree(drafts: Int32Array, K: number, L: number): PrefixTree {
  if (drafts.length !== K * L) throw new RangeError(`${drafts.length} draft tokens for K = ${K} × L = ${L}`);
  return prefixTree(Array.from({ length: K }, (_, k) => drafts.subarray(k * L, (k + 1) * L)));
}

/** One batch-1 forward over the fresh context tokens and the tree's nodes. */
export interface TreeInput {
  /** Sequence length: fresh tokens, then nodes. */
  readonly seq: number;
  readonly inputIds: Int32Array;
  /** Absolute positions: the fresh chain continues the cache; a node of depth d sits at C - 1 + d. */
  readonly positionIds: Int32Array;
  /** seq × seq, row-major: 1 where position i may attend to position j (its chain, its ancestors, itself). */
  readonly mask: Uint8Array;
}

/** `pastLength`: positions the cache already holds; the context is those plus `fresh`. */
export function treeInput(tree: PrefixTree, fresh: ArrayLike<number>, pastLength: number): TreeInput {
  const F = fresh.length;
  if (F === 0)
    throw new RangeError('a tree forward needs at least one fresh context token: the root the drafts continue');
  const seq = F + tree.size;
  const inputIds = new Int32Array(seq);
  const positionIds = new Int32Array(seq);
  const mask = new Uint8Array(seq * seq);
  const contextLength = pastLength + F;
  for (let i = 0; i < F; i++) {
    inputIds[i] = fresh[i] as number;
    positionIds[i] = pastLength + i;
    mask.fill(1, i * seq, i * seq + i + 1);
  }
  for (let n = 0; n < tree.size; n++) {
    const row = (F + n) * seq;
    inputIds[F + n] = tree.tokens[n] as number;
    positionIds[F + n] = contextLength - 1 + (tree.depths[n] as number);
    mask.fill(1, row, row + F);
    for (let node = n; node !== -1; node = tree.parents[node] as number) mask[row + F + node] = 1;
  }
  return { seq, inputIds, positionIds, mask };
}

/**
 * The sequence index of each of the verifier's K×(L+1) rows: row (k, 0) is the last fresh token, row (k, j)
 * the node of d_k[0..j).
 */
export function verifierRows(tree: PrefixTree, freshCount: number, L: number): Int32Array {
  const K = tree.nodeOf.length;
  const rows = new Int32Array(K * (L + 1));
  tree.nodeOf.forEach((nodes, k) => {
    if (nodes.length !== L) throw new RangeError(`draft ${k} has ${nodes.length} tokens; the verifier reads L = ${L}`);
    rows[k * (L + 1)] = freshCount - 1;
    for (let j = 1; j <= L; j++) rows[k * (L + 1) + j] = freshCount + (nodes[j - 1] as number);
  });
  return rows;
}

/**
 * Cache positions to keep after the tree forward: the context [0, pastLength + freshCount), then draft
 * `chosen`'s first `accepted` nodes. Strictly increasing, since a parent precedes its children.
 */
export function keptPositions(
  tree: PrefixTree,
  pastLength: number,
  freshCount: number,
  chosen: number,
  accepted: number,
): number[] {
  const nodes = tree.nodeOf[chosen];
  if (!nodes) throw new RangeError(`draft ${chosen} is not in a tree of ${tree.nodeOf.length} drafts`);
  if (!(accepted >= 0 && accepted <= nodes.length))
    throw new RangeError(`cannot keep ${accepted} tokens of a draft of ${nodes.length}`);
  const contextLength = pastLength + freshCount;
  const kept = Array.from({ length: contextLength }, (_, i) => i);
  for (let j = 0; j < accepted; j++) kept.push(contextLength + (nodes[j] as number));
  return kept;
}
