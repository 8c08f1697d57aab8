/**
 * The block optimum: the largest expected number of tokens one verification step can emit, over
 * every lossless verifier of K i.i.d. drafts of length L, as a linear program solved by HiGHS (wasm).
 *
 * Variables: u(M, B) = Q(M)·π(B | M), the joint mass of the drafts' multiset M and the emitted block B.
 * B is s ++ [y]: s (0..L tokens) a prefix of one of the drafts (the accepted tokens: the target scored every
 * drafted prefix, so nothing else can be kept) and y any token (the correction or bonus). A rule may depend on
 * the drafts' order only through M without loss: averaging a rule over the K! orders keeps both the
 * constraints and the objective. Constraints: Σ_B u(M, B) = Q(M) for each M; lossless: with a(b) the mass of
 * blocks that start with b, a(b·y) = p(y | b) · Σ_y' a(b·y') for every prefix b (|b| ≤ L) and token y (later
 * steps extend a block with the target, so this is the emitted stream's law being the target's; spec §5).
 * Objective: max Σ u(M, B) · |B| (= 1 + E[accepted]).
 * docs/verification.md#the-block-optimum has the proof sketch (why this is the optimum, and its values at
 * L = 1 and K = 1).
 */
import type { ModelPair } from './modelPair';

/** Block columns (u entries) past which the program is not built: HiGHS solves this size in about a second. */
export const BLOCK_OPTIMUM_COLUMN_BUDGET = 40_000;

/** The part of HiGHS the block optimum uses (the `highs` package's loaded module). */
export interface LpSolver {
  solve(
    problem: string,
    options?: Readonly<{
      solver?: 'simplex' | 'ipm';
      primal_feasibility_tolerance?: number;
      dual_feasibility_tolerance?: number;
      small_matrix_value?: number;
    }>,
  ): { Status: string; ObjectiveValue: number };
}

/** Loads HiGHS (about 3 MB of wasm) once. */
let solverPromise: Promise<LpSolver> | null = null;
export function loadLpSolver(): Promise<LpSolver> {
  solverPromise ??= import('highs').then((module) => module.default());
  return solverPromise;
}

interface Path {
  tokens: number[];
  probability: number;
}

/**
 * Every x ∈ V^length after the context with its joint probability under `row` (zero-probability ones left
 * out), or null as soon as there are more than `limit`: V^L paths are not listed to learn there are too many.
 */
function sequences(
  row: (prefix: readonly number[]) => Float64Array,
  V: number,
  context: readonly number[],
  length: number,
  limit: number,
): Path[] | null {
  const out: Path[] = [];
  const walk = (tokens: number[], probability: number): boolean => {
    if (tokens.length === length) {
      out.push({ tokens: [...tokens], probability });
      return out.length <= limit;
    }
    const next = row([...context, ...tokens]);
    for (let x = 0; x < V; x++) {
      const p = probability * (next[x] as number);
      if (p <= 0) continue;
      tokens.push(x);
      const more = walk(tokens, p);
      tokens.pop();
      if (!more) return false;
    }
    return true;
  };
  return walk([], 1) ? out : null;
}

/** Multisets of size K over n draft paths: C(n + K − 1, K). */
function multisetCount(n: number, K: number): number {
  let count = 1;
  for (let i = 1; i <= K; i++) count = (count * (n + i - 1)) / i;
  return count;
}

/**
 * The most draft paths a program within `columnBudget` can have: every multiset of K paths has at least
 * L + 1 nodes (one draft's prefixes), each with V blocks.
 */
function pathLimit(V: number, K: number, L: number, columnBudget: number): number {
  let n = 0;
  while (multisetCount(n + 1, K) * (L + 1) * V <= columnBudget) n++;
  return n;
}

/** Every multiset of size K over n items as non-decreasing index lists, with its multinomial probability. */
function multisets(paths: readonly Path[], K: number): { members: number[]; probability: number }[] {
  const out: { members: number[]; probability: number }[] = [];
  const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));
  const walk = (members: number[], from: number) => {
    if (members.length === K) {
      let probability = factorial(K);
      let run = 1;
      for (let i = 0; i < K; i++) {
        probability *= (paths[members[i] as number] as Path).probability;
        if (i > 0 && members[i] === members[i - 1]) run++;
        else run = 1;
        probability /= run;
      }
      out.push({ members: [...members], probability });
      return;
    }
    for (let i = from; i < paths.length; i++) {
      members.push(i);
      walk(members, i);
      members.pop();
    }
  };
  walk([], 0);
  return out;
}

export interface BlockOptimumProgram {
  /** CPLEX LP text for HiGHS. */
  lp: string;
  columns: number;
  rows: number;
}

/**
 * Builds the program for one context, or returns null when it would have more than `columnBudget` columns.
 */
export function blockOptimumProgram(
  pair: ModelPair,
  context: readonly number[],
  K: number,
  L: number,
  columnBudget = BLOCK_OPTIMUM_COLUMN_BUDGET,
): BlockOptimumProgram | null {
  const { V } = pair;
  const drafts = sequences((prefix) => pair.draft(prefix), V, context, L, pathLimit(V, K, L, columnBudget));
  if (drafts === null) return null;
  const groups = multisets(drafts, K);
  const targetOf = new Map<string, number>();
  const targetJoint = (tokens: readonly number[]): number => {
    const key = tokens.join(',');
    let value = targetOf.get(key);
    if (value === undefined) {
      value =
        tokens.length === 0
          ? 1
          : targetJoint(tokens.slice(0, -1)) *
            (pair.target([...context, ...tokens.slice(0, -1)])[tokens.at(-1) as number] as number);
      targetOf.set(key, value);
    }
    return value;
  };
  // Count first, so an instance past the budget costs nothing more.
  const nodesOf = groups.map(({ members }) => {
    const nodes = new Map<string, number[]>([['', []]]);
    for (const index of members) {
      const tokens = (drafts[index] as Path).tokens;
      for (let j = 1; j <= L; j++) nodes.set(tokens.slice(0, j).join(','), tokens.slice(0, j));
    }
    return [...nodes.values()];
  });
  const columnEstimate = nodesOf.reduce((n, nodes) => n + nodes.length * V, 0);
  if (columnEstimate > columnBudget) return null;

  const objective: string[] = [];
  const groupRows: string[] = [];
  const term = (coefficient: number, name: string) =>
    `${coefficient >= 0 ? '+' : '-'} ${Math.abs(coefficient).toPrecision(17)} ${name}`;
  // a(b) = the mass of blocks that start with b: one column per b the target can emit, defined from the u's.
  const startsWith = new Map<string, string[]>();
  let columns = 0;
  groups.forEach(({ probability }, g) => {
    const names: string[] = [];
    for (const node of nodesOf[g] as number[][]) {
      for (let y = 0; y < V; y++) {
        const block = [...node, y];
        if (!(targetJoint(block) > 0)) continue; // lossless forces no mass on a block the target never emits
        const name = `u${columns++}`;
        names.push(name);
        objective.push(term(block.length, name));
        for (let j = 1; j <= block.length; j++) {
          const key = block.slice(0, j).join(',');
          const list = startsWith.get(key);
          if (list) list.push(name);
          else startsWith.set(key, [name]);
        }
      }
    }
    groupRows.push(`g${g}: ${chunk(names.map((name) => `+ ${name}`))} = ${probability.toPrecision(17)}`);
  });
  const definitions: string[] = [];
  const columnOf = new Map<string, string>();
  for (const [key, names] of startsWith) {
    const name = `a${columnOf.size}`;
    columnOf.set(key, name);
    definitions.push(`d${columnOf.size}: ${chunk([`+ ${name}`, ...names.map((u) => `- ${u}`)])} = 0`);
    columns++;
  }
  // Lossless, locally: after every prefix b the next token of the blocks that go past b follows the target,
  // a(b·y) = p(y | b) · Σ_y' a(b·y'). One y per b is left out: it follows from the others, and with it
  // rounding makes the rows a hair inconsistent. A block prefix no drafted block reaches has a(b) = 0.
  const lossless: string[] = [];
  const visit = (prefix: number[]) => {
    const row = pair.target([...context, ...prefix]);
    const children = Array.from({ length: V }, (_, y) => columnOf.get([...prefix, y].join(',')));
    let kept = 0;
    for (let y = 1; y < V; y++) if ((row[y] as number) > (row[kept] as number)) kept = y;
    for (let y = 0; y < V; y++) {
      const p = row[y] as number;
      if (y === kept || !(p > 0)) continue;
      const terms = children.flatMap((child, z) => (child === undefined ? [] : [term((z === y ? 1 : 0) - p, child)]));
      if (terms.length > 0) lossless.push(`l${lossless.length}: ${chunk(terms)} = 0`);
    }
    if (prefix.length === L) return;
    for (let y = 0; y < V; y++) if (columnOf.has([...prefix, y].join(','))) visit([...prefix, y]);
  };
  visit([]);
  const lp = [
    'Maximize',
    `obj: ${chunk(objective)}`,
    'Subject To',
    ...groupRows,
    ...definitions,
    ...lossless,
    'End',
    '',
  ].join('\n');
  return { lp, columns, rows: groupRows.length + definitions.length + lossless.length };
}

/** LP text lines stay short: a few terms per line (continuation lines are allowed anywhere in a row). */
function chunk(terms: readonly string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < terms.length; i += 8) lines.push(terms.slice(i, i + 8).join(' '));
  return lines.join('\n  ');
}

/**
 * E[emitted tokens per step] (1 + E[accepted]) of the best lossless verifier of K i.i.d. drafts of length L
 * after `context`, or null when the program is past the column budget.
 */
export function blockOptimum(
  solver: LpSolver,
  pair: ModelPair,
  context: readonly number[],
  K: number,
  L: number,
  columnBudget = BLOCK_OPTIMUM_COLUMN_BUDGET,
): number | null {
  const program = blockOptimumProgram(pair, context, K, L, columnBudget);
  if (!program) return null;
  // Tight tolerances (the tests compare to 1e-9); the interior-point solver where the simplex stalls.
  for (const solverName of ['simplex', 'ipm'] as const) {
    const solution = solver.solve(program.lp, {
      solver: solverName,
      primal_feasibility_tolerance: 1e-10,
      dual_feasibility_tolerance: 1e-10,
      small_matrix_value: 1e-12,
    });
    if (solution.Status === 'Optimal') return solution.ObjectiveValue;
  }
  throw new Error('the block-optimum program found no optimum');
}
