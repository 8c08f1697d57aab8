/**
 * The SpecTr-GBV paper's table, on synthetic pairs: block efficiency of every method over
 * K ∈ {1..4}, L ∈ {2, 4, 6}, T ∈ {0.1, 0.4, 0.7} and two closenesses; exact where enumeration fits, else
 * Monte Carlo with its standard error, and the block optimum (src/core/blockOptimum.ts) where the program fits.
 * Every method verifies the same sampled drafts in each step (single-draft methods read draft 1), so the
 * relative gains are paired.
 */
import { blockOptimum, type LpSolver } from './blockOptimum';
import { EnumerationBudgetExceeded } from './enumerate';
import { sampleProblem, syntheticPair, type ModelPair } from './modelPair';
import { createRng } from './rng';
import { exactOutcomeLaw } from './theory';
import { VERIFIERS, draftsUsed, verify, type VerifierId } from './verify';

export const PAPER_METHODS = [
  'tokenwise',
  'gbv',
  'spectr',
  'spectr-gbv',
  'optimal-tree',
  'recursive-rejection',
] as const satisfies readonly VerifierId[];
export type PaperMethod = (typeof PAPER_METHODS)[number];

/** The paper's reported relative gains of SpecTr-GBV in block efficiency (Lin et al. 2026), as quoted from it. */
export const PAPER_GAINS = { tokenwise: 0.124, spectr: 0.023, gbv: 0.097 } as const;

export interface PaperTableOptions {
  V: number;
  Ks: readonly number[];
  Ls: readonly number[];
  temperatures: readonly number[];
  closenesses: readonly number[];
  /** Monte Carlo steps per cell, shared by the methods. */
  steps: number;
  /** Root contexts per cell (the steps cycle through them; exact figures and the optimum average over them). */
  contexts: number;
  /** Enumeration is attempted when the K drafts have at most this many joint outcomes. */
  exactDraftOutcomes: number;
  seed: number;
}

export const PAPER_TABLE: PaperTableOptions = {
  V: 4,
  Ks: [1, 2, 3, 4],
  Ls: [2, 4, 6],
  temperatures: [0.1, 0.4, 0.7],
  closenesses: [0.5, 0.9],
  steps: 8000,
  contexts: 2,
  exactDraftOutcomes: 4096,
  seed: 1,
};

/** --quick: one K per kind (one draft, several), the shortest L, one temperature, both closenesses. */
export const PAPER_TABLE_QUICK: PaperTableOptions = {
  ...PAPER_TABLE,
  Ks: [1, 2],
  Ls: [2],
  temperatures: [0.7],
  steps: 300,
};

export interface PaperCell {
  K: number;
  L: number;
  temperature: number;
  closeness: number;
  /** Per method: block efficiency, its standard error (0 when exact) and whether it is exact. */
  methods: Record<PaperMethod, { efficiency: number; standardError: number; exact: boolean }>;
  /** The block optimum for K drafts, averaged over the contexts; null where the program is too large. */
  optimum: number | null;
}

function exactEfficiency(
  method: PaperMethod,
  pair: ModelPair,
  contexts: number[][],
  K: number,
  L: number,
  budget: number,
): number | null {
  const used = draftsUsed(method, K);
  if ((pair.V ** L) ** used > budget) return null;
  try {
    let total = 0;
    for (const context of contexts)
      total += 1 + exactOutcomeLaw(VERIFIERS[method], pair, context, used, L, 2_000_000).expectedAccepted;
    return total / contexts.length;
  } catch (error) {
    if (error instanceof EnumerationBudgetExceeded) return null;
    throw error;
  }
}

export function paperCell(
  options: PaperTableOptions,
  K: number,
  L: number,
  temperature: number,
  closeness: number,
  solver: LpSolver | null,
): PaperCell {
  const { V, steps, seed } = options;
  const pair = syntheticPair({ V, seed, temperature, closeness });
  const contexts = Array.from({ length: options.contexts }, (_, c) => [c % V, Math.floor(c / V) % V]);
  const draftRng = createRng(seed, 1);
  const sums = PAPER_METHODS.map(() => 0);
  const squares = PAPER_METHODS.map(() => 0);
  const verifyRngs = PAPER_METHODS.map((_, m) => createRng(seed, 2 + m));
  for (let step = 0; step < steps; step++) {
    const problem = sampleProblem(pair, contexts[step % contexts.length] as number[], K, L, draftRng);
    PAPER_METHODS.forEach((method, m) => {
      const emitted = verify(method, problem, verifyRngs[m] as ReturnType<typeof createRng>).accepted + 1;
      sums[m] = (sums[m] as number) + emitted;
      squares[m] = (squares[m] as number) + emitted * emitted;
    });
  }
  const methods = Object.fromEntries(
    PAPER_METHODS.map((method, m) => {
      const exact = exactEfficiency(method, pair, contexts, K, L, options.exactDraftOutcomes);
      if (exact !== null) return [method, { efficiency: exact, standardError: 0, exact: true }];
      const mean = (sums[m] as number) / steps;
      const variance = ((squares[m] as number) - steps * mean * mean) / Math.max(1, steps - 1);
      return [method, { efficiency: mean, standardError: Math.sqrt(Math.max(0, variance) / steps), exact: false }];
    }),
  ) as PaperCell['methods'];
  let optimum: number | null = null;
  if (solver) {
    const values = contexts.map((context) => blockOptimum(solver, pair, context, K, L));
    if (values.every((value) => value !== null))
      optimum = (values as number[]).reduce((a, b) => a + b, 0) / values.length;
  }
  return { K, L, temperature, closeness, methods, optimum };
}

/** Every cell of the grid, in the order K, L, T within each closeness. */
export function paperTable(options: PaperTableOptions, solver: LpSolver | null): PaperCell[] {
  const cells: PaperCell[] = [];
  for (const closeness of options.closenesses) {
    for (const K of options.Ks) {
      for (const L of options.Ls) {
        for (const temperature of options.temperatures)
          cells.push(paperCell(options, K, L, temperature, closeness, solver));
      }
    }
  }
  return cells;
}

/** SpecTr-GBV's mean relative gain over `baseline` across the cells: mean of efficiency ratios − 1. */
export function meanGain(cells: readonly PaperCell[], baseline: PaperMethod): number {
  const ratios = cells.map((cell) => cell.methods['spectr-gbv'].efficiency / cell.methods[baseline].efficiency);
  return ratios.reduce((a, b) => a + b, 0) / ratios.length - 1;
}

/** Per method, the largest gap (optimum − efficiency) over the cells where the optimum was computed. */
export function largestGaps(cells: readonly PaperCell[]): Record<PaperMethod, { gap: number; cell: PaperCell } | null> {
  return Object.fromEntries(
    PAPER_METHODS.map((method) => {
      let best: { gap: number; cell: PaperCell } | null = null;
      for (const cell of cells) {
        if (cell.optimum === null) continue;
        const gap = cell.optimum - cell.methods[method].efficiency;
        if (!best || gap > best.gap) best = { gap, cell };
      }
      return [method, best];
    }),
  ) as Record<PaperMethod, { gap: number; cell: PaperCell } | null>;
}
