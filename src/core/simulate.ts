import { SIMULATION_LIMITS } from '../contract/limits';
import { emptyCounters, derivedRatios, recordStep } from './metrics';
import { sampleProblem, syntheticPair } from './modelPair';
import { createRng } from './rng';
import { BLOCK_OPTIMUM_COLUMN_BUDGET, blockOptimum, type LpSolver } from './blockOptimum';
import { EnumerationBudgetExceeded } from './enumerate';
import { exactOutcomeLaw, transportOptimum, universalAcceptanceBound } from './theory';
import { MAX_DRAFTS, MAX_DRAFT_LENGTH, VERIFIERS, VERIFIER_IDS, draftsUsed, verify, type VerifierId } from './verify';

export interface SimulationOptions {
  V: number;
  K: number;
  L: number;
  temperature: number;
  /** How close the draft is to the target: 1 identical, 0 independent. */
  closeness: number;
  seed: number;
  steps: number;
  /** Root contexts the steps cycle through; the exact figures average over the same contexts. */
  contexts: number;
  methods: readonly VerifierId[];
}

export const DEFAULT_SIMULATION: SimulationOptions = {
  V: 6,
  K: 2,
  L: 3,
  temperature: 1,
  closeness: 0.5,
  seed: 1,
  steps: 20_000,
  contexts: 4,
  methods: VERIFIER_IDS,
};

/** Exact enumeration is attempted up to this many verifier runs per method and context. */
export const EXACT_RUN_BUDGET = 500_000;
/** The universal bound is computed when the prefix tree has at most this many nodes per context. */
export const BOUND_NODE_BUDGET = 300_000;

export interface MethodReport {
  method: VerifierId;
  draftsUsed: number;
  steps: number;
  /** Mean emitted tokens per step (accepted + 1): block efficiency, which equals 1 + A/steps. */
  blockEfficiency: number;
  standardError: number;
  /** Exact E[emitted tokens per step], averaged over the contexts; null when the instance is too large. */
  exactBlockEfficiency: number | null;
  /**
   * 1 + α* at the first position for this many i.i.d. drafts, averaged over the contexts: the block
   * efficiency of the best lossless verifier at L = 1 (a per-position optimum; see docs/verification.md).
   */
  transportOptimum: number;
  /**
   * The block optimum (src/core/blockOptimum.ts): the best E[emitted tokens per step] of any lossless verifier
   * of this many i.i.d. drafts, averaged over the contexts; null without a solver or when the program is too large.
   */
  blockOptimum: number | null;
  /** 1 + the universal acceptance bound for this many i.i.d. drafts; null when too large to sum. */
  universalBound: number | null;
  /** Why each exact figure left null was skipped (too large to enumerate, or past the time budget); null where it was computed. */
  skipped: { exact: string | null; blockOptimum: string | null; universalBound: string | null };
  /** A/D: accepted over proposed draft tokens (no grammar here, so D = R). */
  conditionalAcceptance: number | null;
  histogram: readonly number[];
}

export interface SimulationReport {
  options: SimulationOptions;
  methods: MethodReport[];
}

function validate(options: SimulationOptions): void {
  const integer = (name: string, value: number, min: number, max: number) => {
    if (!(Number.isInteger(value) && value >= min && value <= max)) {
      throw new RangeError(`${name} must be an integer in ${min}..${max}, got ${value}`);
    }
  };
  integer('V', options.V, 2, 4096);
  integer('K', options.K, 1, MAX_DRAFTS);
  integer('L', options.L, 1, MAX_DRAFT_LENGTH);
  integer('steps', options.steps, 1, SIMULATION_LIMITS.steps);
  integer('contexts', options.contexts, 1, Math.min(SIMULATION_LIMITS.contexts, options.V * options.V));
  for (const method of options.methods) {
    if (!VERIFIER_IDS.includes(method))
      throw new RangeError(`unknown method '${method}'; choose from ${VERIFIER_IDS.join(', ')}`);
  }
}

export interface SimulationSettings {
  /** Progress lines, at most one a second, for a phase that runs longer than a second. */
  onProgress?: (line: string) => void;
  /** The exact, optimum and bound figures' shared time budget; SIMULATION_LIMITS.exactSeconds by default. */
  exactBudgetMs?: number;
}

/** A figure, or why it is missing. */
interface Budgeted {
  value: number | null;
  skipped: string | null;
}

/** Runs every method on the same synthetic, context-dependent draft/target pair. */
export function simulate(
  options: SimulationOptions,
  solver: LpSolver | null = null,
  settings: SimulationSettings = {},
): SimulationReport {
  validate(options);
  const { V, K, L, temperature, closeness, seed, steps } = options;
  const pair = syntheticPair({ V, seed, temperature, closeness });
  const contexts = Array.from({ length: options.contexts }, (_, c) => [c % V, Math.floor(c / V) % V]);
  const boundFits = (V ** (L + 1) - 1) / (V - 1) <= BOUND_NODE_BUDGET;
  // One draft alone has up to V^L paths; past the budget, enumeration is not even started.
  const exactMayFit = V ** L <= EXACT_RUN_BUDGET;
  const progress = throttledProgress(settings.onProgress);

  // The exact figures share one time budget: a figure that would outlast what is left is skipped, saying so.
  const budgetMs = settings.exactBudgetMs ?? SIMULATION_LIMITS.exactSeconds * 1000;
  const budgetText = `the ${budgetMs / 1000} s budget for exact figures`;
  let spentMs = 0;
  // Each figure gets what is left shared among those still to come, so one huge enumeration cannot starve the rest.
  const optimumDrafts = new Set(options.methods.map((method) => draftsUsed(method, K)));
  let figuresLeft =
    (exactMayFit ? options.methods.length : 0) +
    (solver ? optimumDrafts.size : 0) +
    (boundFits ? optimumDrafts.size : 0);
  const budgeted = (
    what: string,
    tooLarge: string,
    compute: (deadline: number, what: string) => number | null,
  ): Budgeted => {
    if (spentMs >= budgetMs) return { value: null, skipped: `not started: ${budgetText} was spent` };
    const started = performance.now();
    const deadline = started + (budgetMs - spentMs) / Math.max(1, figuresLeft--);
    try {
      const value = compute(deadline, what);
      return value === null ? { value: null, skipped: tooLarge } : { value, skipped: null };
    } catch (error) {
      if (!(error instanceof EnumerationBudgetExceeded)) throw error;
      return {
        value: null,
        skipped: error.outOfTime ? `stopped: it ran past its share of ${budgetText}` : tooLarge,
      };
    } finally {
      spentMs += performance.now() - started;
    }
  };
  /** The mean over the contexts of a per-context figure, checking the deadline between contexts; null if any is null. */
  const overContexts = (
    deadline: number,
    what: string,
    figure: (context: number[]) => number | null,
  ): number | null => {
    const values: number[] = [];
    for (const [index, context] of contexts.entries()) {
      if (performance.now() > deadline) throw new EnumerationBudgetExceeded(EXACT_RUN_BUDGET, true);
      progress(() => `sim: ${what}, context ${index + 1}/${contexts.length}`);
      const value = figure(context);
      if (value === null) return null;
      values.push(value);
    }
    return average(values);
  };

  const simulated = options.methods.map((method, methodIndex) => {
    const used = draftsUsed(method, K);
    const rng = createRng(seed, methodIndex + 1);
    let counters = emptyCounters(L);
    let sumSquares = 0;
    for (let step = 0; step < steps; step++) {
      if (step % 64 === 0) progress(() => `sim: ${method}, step ${step}/${steps}`);
      const problem = sampleProblem(pair, contexts[step % contexts.length] as number[], used, L, rng);
      const { accepted } = verify(method, problem, rng);
      sumSquares += (accepted + 1) ** 2;
      const proposed = used * L;
      counters = recordStep(counters, {
        proposed,
        invalidated: 0,
        distinctProposed: proposed,
        distinctEligible: proposed,
        accepted,
      });
    }
    const mean = 1 + counters.accepted / steps;
    const variance = steps > 1 ? (sumSquares - steps * mean * mean) / (steps - 1) : 0;
    return { method, used, counters, mean, standardError: Math.sqrt(Math.max(0, variance) / steps) };
  });

  // The exact figures after the simulation, cheapest first; the bound and the optimum depend on the drafts' count only.
  const count = (n: number) => n.toLocaleString('en-US');
  const bounds = new Map<number, Budgeted>();
  for (const used of optimumDrafts)
    bounds.set(
      used,
      boundFits
        ? budgeted(`universal bound for ${used} drafts`, '', (deadline, what) =>
            overContexts(deadline, what, (context) => 1 + universalAcceptanceBound(pair, context, used, L)),
          )
        : { value: null, skipped: `the prefix tree has more than ${count(BOUND_NODE_BUDGET)} nodes per context` },
    );
  const optima = new Map<number, Budgeted>();
  for (const used of optimumDrafts)
    optima.set(
      used,
      solver
        ? budgeted(
            `block optimum for ${used} drafts`,
            `the linear program for ${used} drafts of ${L} tokens over V = ${V} has more than ${count(BLOCK_OPTIMUM_COLUMN_BUDGET)} columns`,
            (deadline, what) => overContexts(deadline, what, (context) => blockOptimum(solver, pair, context, used, L)),
          )
        : { value: null, skipped: 'no LP solver was given' },
    );
  const methods = simulated.map(({ method, used, counters, mean, standardError }): MethodReport => {
    const exact = exactMayFit
      ? budgeted(
          `${method}: exact figure`,
          `more than ${count(EXACT_RUN_BUDGET)} verifier runs to enumerate per context`,
          (deadline, what) =>
            overContexts(
              deadline,
              what,
              (context) =>
                1 +
                exactOutcomeLaw(VERIFIERS[method], pair, context, used, L, EXACT_RUN_BUDGET, deadline).expectedAccepted,
            ),
        )
      : {
          value: null,
          skipped: `one draft alone has V^L = ${V}^${L} paths, more than ${count(EXACT_RUN_BUDGET)} runs`,
        };
    const optimum = optima.get(used) as Budgeted;
    const bound = bounds.get(used) as Budgeted;
    return {
      method,
      draftsUsed: used,
      steps,
      blockEfficiency: mean,
      standardError,
      exactBlockEfficiency: exact.value,
      transportOptimum: 1 + average(contexts.map((c) => transportOptimum(pair.target(c), pair.draft(c), used))),
      blockOptimum: optimum.value,
      universalBound: bound.value,
      skipped: { exact: exact.skipped, blockOptimum: optimum.skipped, universalBound: bound.skipped },
      conditionalAcceptance: derivedRatios(counters).conditionalAcceptance,
      histogram: counters.histogram,
    };
  });
  return { options, methods };
}

function average(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** A progress reporter that passes on at most one line a second, the first a second after the start. */
function throttledProgress(onProgress: ((line: string) => void) | undefined): (line: () => string) => void {
  let last = performance.now();
  return (line) => {
    if (!onProgress) return;
    const now = performance.now();
    if (now - last < 1000) return;
    last = now;
    onProgress(line());
  };
}
