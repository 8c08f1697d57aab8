/**
 * The block optimum (issue 44): the largest expected number of tokens one verification step can emit, over
 * every lossless verifier of K i.i.d. drafts of length L, as a linear program solved by HiGHS (wasm).
 *
 * Variables: π(B | M), the verifier's law of the emitted block B given the multiset M of drafts. B is
 * s ++ [y]: s (0..L tokens) a prefix of one of the drafts (those are the accepted tokens: the target scored
 * every drafted prefix, so nothing else can be kept) and y any token (the correction or bonus). A rule may
 * depend on the drafts' order only through M without loss: averaging a rule over the K! orders keeps both the
 * constraints and the objective. Constraints: Σ_B π(B | M) = 1 for each M; and lossless: for every
 * x ∈ V^(L+1), Σ_M Q(M) Σ_{B prefix of x} π(B | M) · P(x | B) = P(x), where later steps extend B with the
 * target (ext(B, x) of the spec, §5). Objective: max Σ_M Q(M) Σ_B π(B | M) · |B| (= 1 + E[accepted]).
 * docs/verification.md#the-block-optimum has the proof sketch (why this is the optimum, and its values at
 * L = 1 and K = 1).
 */
import type { ModelPair } from './modelPair';

/** Columns (π entries) past which the program is not built: HiGHS solves this size in about a second. */
export const BLOCK_OPTIMUM_COLUMN_BUDGET = 40_000;

/** The part of HiGHS the block optimum uses (the `highs` package's loaded module). */
export interface LpSolver {
  solve(
    problem: string,
    options?: Readonly<{ solver?: 'simplex' | 'ipm'; primal_feasibility_tolerance?: number; dual_feasibility_tolerance?: number }>,
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

/** Every x ∈ V^length after the context with its joint probability under `row` (zero-probability ones left out). */
function sequences(row: (prefix: readonly number[]) => Float64Array, V: number, context: readonly number[], length: number): Path[] {
  const out: Path[] = [];
  const walk = (tokens: number[], probability: number) => {
    if (tokens.length === length) {
      out.push({ tokens: [...tokens], probability });
      return;
    }
    const next = row([...context, ...tokens]);
    for (let x = 0; x < V; x++) {
      const p = probability * (next[x] as number);
      if (p <= 0) continue;
      tokens.push(x);
      walk(tokens, p);
      tokens.pop();
    }
  };
  walk([], 1);
  return out;
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
  const drafts = sequences((prefix) => pair.draft(prefix), V, context, L);
  const groups = multisets(drafts, K);
  const targetOf = new Map<string, number>();
  const targetJoint = (tokens: readonly number[]): number => {
    const key = tokens.join(',');
    let value = targetOf.get(key);
    if (value === undefined) {
      value = tokens.length === 0 ? 1 : targetJoint(tokens.slice(0, -1)) * (pair.target([...context, ...tokens.slice(0, -1)])[tokens.at(-1) as number] as number);
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

  const outputs = sequences((prefix) => pair.target(prefix), V, context, L + 1);
  const rowOf = new Map(outputs.map((x, i) => [x.tokens.join(','), i]));
  const rowTerms: string[][] = outputs.map(() => []);
  const objective: string[] = [];
  const groupRows: string[] = [];
  const term = (coefficient: number, name: string) => `${coefficient >= 0 ? '+' : '-'} ${Math.abs(coefficient).toPrecision(17)} ${name}`;
  let columns = 0;
  groups.forEach(({ probability }, g) => {
    const names: string[] = [];
    for (const node of nodesOf[g] as number[][]) {
      for (let y = 0; y < V; y++) {
        const block = [...node, y];
        const blockTarget = targetJoint(block);
        if (!(blockTarget > 0)) continue; // lossless forces π = 0 on a block the target never emits
        const name = `c${columns++}`;
        names.push(name);
        objective.push(term(probability * block.length, name));
        // B is a prefix of x exactly for the x that extend it; P(x | B) = P(x) / P(B).
        for (const x of outputs) {
          if (block.every((token, i) => x.tokens[i] === token)) {
            (rowTerms[rowOf.get(x.tokens.join(',')) as number] as string[]).push(term((probability * x.probability) / blockTarget, name));
          }
        }
      }
    }
    groupRows.push(`g${g}: ${chunk(names.map((name) => `+ ${name}`))} = 1`);
  });
  // The lossless rows sum to Σ_M Q(M) = 1 = Σ_x P(x), so one is implied by the rest; with it, rounding makes
  // the system a hair inconsistent and the simplex stalls. The last one is left out.
  const lossless = outputs.slice(0, -1).map((x, i) => `x${i}: ${chunk(rowTerms[i] as string[])} = ${x.probability.toPrecision(17)}`);
  const lp = ['Maximize', `obj: ${chunk(objective)}`, 'Subject To', ...groupRows, ...lossless, 'End', ''].join('\n');
  return { lp, columns, rows: groups.length + lossless.length };
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
    const solution = solver.solve(program.lp, { solver: solverName, primal_feasibility_tolerance: 1e-10, dual_feasibility_tolerance: 1e-10 });
    if (solution.Status === 'Optimal') return solution.ObjectiveValue;
  }
  throw new Error('the block-optimum program found no optimum');
}
