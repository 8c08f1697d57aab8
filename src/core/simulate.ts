import { SIMULATION_LIMITS } from '../contract/limits';
import { emptyCounters, derivedRatios, recordStep } from './metrics';
import { sampleProblem, syntheticPair } from './modelPair';
import { createRng } from './rng';
import { blockOptimum, type LpSolver } from './blockOptimum';
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

/** Runs every method on the same synthetic, context-dependent draft/target pair. */
export function simulate(options: SimulationOptions, solver: LpSolver | null = null): SimulationReport {
  validate(options);
  const { V, K, L, temperature, closeness, seed, steps } = options;
  const pair = syntheticPair({ V, seed, temperature, closeness });
  const contexts = Array.from({ length: options.contexts }, (_, c) => [c % V, Math.floor(c / V) % V]);
  const boundFits = (V ** (L + 1) - 1) / (V - 1) <= BOUND_NODE_BUDGET;
  // One draft alone has up to V^L paths; past the budget, enumeration is not even started.
  const exactMayFit = V ** L <= EXACT_RUN_BUDGET;

  const optima = new Map<number, number | null>();
  const optimumFor = (used: number): number | null => {
    if (!solver) return null;
    if (!optima.has(used)) {
      const values = contexts.map((context) => blockOptimum(solver, pair, context, used, L));
      optima.set(used, values.every((value) => value !== null) ? average(values as number[]) : null);
    }
    return optima.get(used) as number | null;
  };
  const methods = options.methods.map((method, methodIndex): MethodReport => {
    const used = draftsUsed(method, K);
    const rng = createRng(seed, methodIndex + 1);
    let counters = emptyCounters(L);
    let sumSquares = 0;
    for (let step = 0; step < steps; step++) {
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
    return {
      method,
      draftsUsed: used,
      steps,
      blockEfficiency: mean,
      standardError: Math.sqrt(Math.max(0, variance) / steps),
      exactBlockEfficiency: exactMayFit
        ? exactAverage(
            contexts,
            (context) => exactOutcomeLaw(VERIFIERS[method], pair, context, used, L, EXACT_RUN_BUDGET).expectedAccepted,
          )
        : null,
      transportOptimum: 1 + average(contexts.map((c) => transportOptimum(pair.target(c), pair.draft(c), used))),
      blockOptimum: optimumFor(used),
      universalBound: boundFits ? 1 + average(contexts.map((c) => universalAcceptanceBound(pair, c, used, L))) : null,
      conditionalAcceptance: derivedRatios(counters).conditionalAcceptance,
      histogram: counters.histogram,
    };
  });
  return { options, methods };
}

function average(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function exactAverage(contexts: number[][], expectedAccepted: (context: number[]) => number): number | null {
  try {
    return 1 + average(contexts.map(expectedAccepted));
  } catch (error) {
    if (error instanceof EnumerationBudgetExceeded) return null;
    throw error;
  }
}
