import type { ModelPair } from '../../../src/core/modelPair';
import { createRng, type Rng } from '../../../src/core/rng';

/** How the rows of a test instance are drawn (spec §5 asks for each of these edge cases). */
export type RowKind = 'dirichlet' | 'sparse' | 'one-hot' | 'equal' | 'disjoint' | 'mixed';
export const ROW_KINDS: readonly RowKind[] = ['dirichlet', 'sparse', 'one-hot', 'equal', 'disjoint', 'mixed'];

function normalise(values: number[]): Float64Array {
  const total = values.reduce((a, b) => a + b, 0);
  return Float64Array.from(values, (v) => v / total);
}

/** Dirichlet(1, …, 1): normalised exponentials. */
function dirichlet(V: number, rng: Rng): Float64Array {
  return normalise(Array.from({ length: V }, () => -Math.log(1 - rng.uniform())));
}

function oneHot(V: number, rng: Rng): Float64Array {
  const row = new Float64Array(V);
  row[Math.floor(rng.uniform() * V)] = 1;
  return row;
}

/** Dirichlet restricted to a random non-empty subset of tokens. */
function sparse(V: number, rng: Rng): Float64Array {
  const keep = Array.from({ length: V }, () => rng.uniform() > 0.4);
  if (!keep.some(Boolean)) keep[Math.floor(rng.uniform() * V)] = true;
  return normalise(Array.from({ length: V }, (_, x) => (keep[x] ? -Math.log(1 - rng.uniform()) : 0)));
}

function rowsFor(kind: Exclude<RowKind, 'mixed'>, V: number, rng: Rng): { target: Float64Array; draft: Float64Array } {
  switch (kind) {
    case 'dirichlet':
      return { target: dirichlet(V, rng), draft: dirichlet(V, rng) };
    case 'sparse':
      return { target: sparse(V, rng), draft: sparse(V, rng) };
    case 'one-hot': {
      // Greedy rows on one side or both.
      const side = Math.floor(rng.uniform() * 3);
      return {
        target: side === 1 ? dirichlet(V, rng) : oneHot(V, rng),
        draft: side === 2 ? dirichlet(V, rng) : oneHot(V, rng),
      };
    }
    case 'equal': {
      const row = dirichlet(V, rng);
      return { target: row, draft: row };
    }
    case 'disjoint': {
      // Split the vocabulary so that target and draft have disjoint supports (β = 0).
      const cut = 1 + Math.floor(rng.uniform() * (V - 1));
      const target = dirichlet(V, rng).map((p, x) => (x < cut ? p : 0));
      const draft = dirichlet(V, rng).map((p, x) => (x >= cut ? p : 0));
      return { target: normalise([...target]), draft: normalise([...draft]) };
    }
  }
}

/**
 * A context-dependent pair with a fresh row for every prefix up to `depth` tokens, drawn up front in a fixed
 * order so that an instance is a pure function of (V, depth, kind, seed).
 */
export function treePair(V: number, depth: number, kind: RowKind, seed: number): ModelPair {
  const rng = createRng(seed);
  const rows = new Map<string, { target: Float64Array; draft: Float64Array }>();
  const kinds = ROW_KINDS.filter((k): k is Exclude<RowKind, 'mixed'> => k !== 'mixed');
  const build = (prefix: number[]) => {
    const rowKind =
      kind === 'mixed' ? (kinds[Math.floor(rng.uniform() * kinds.length)] as Exclude<RowKind, 'mixed'>) : kind;
    rows.set(prefix.join(','), rowsFor(rowKind, V, rng));
    if (prefix.length === depth) return;
    for (let x = 0; x < V; x++) build([...prefix, x]);
  };
  build([]);
  const lookup = (prefix: readonly number[]) => {
    const row = rows.get(prefix.join(','));
    if (!row) throw new Error(`test instance has no row for prefix [${prefix.join(',')}]`);
    return row;
  };
  return { V, target: (prefix) => lookup(prefix).target, draft: (prefix) => lookup(prefix).draft };
}

/** The same rows after every prefix: the spec's context-free toy instances. */
export function contextFreePair(target: number[], draft: number[]): ModelPair {
  const t = Float64Array.from(target);
  const d = Float64Array.from(draft);
  return { V: t.length, target: () => t, draft: () => d };
}
