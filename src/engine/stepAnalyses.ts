/**
 * The teaching analyses: observers of a verified step that add what the page shows beyond the step itself
 * (the final token's law, the exact law of the accepted length, the first position's transport optimum).
 * They run after verification, are timed apart from generation (timings.analysis), and decide nothing.
 */
import { EnumerationBudgetExceeded } from '../core/enumerate';
import type { DistributionSummary } from '../core/sampling';
import type { DecisionRecord } from '../core/decisions';
import { acceptedLengthLaw, transportOptimum } from '../core/theory';
import { VERIFIERS, denseView, type VerifyProblem } from '../core/verify';
import type { StepRecord } from '../contract/stepRecord';
import { cpuVerifier, type StepVerification, type VerifyInput } from '../contract/stepVerifier';

export type StepAnalysis = Pick<StepRecord, 'finalLaw' | 'lengthLaw' | 'firstPosition' | 'decisions'>;

/** What the analyses see of a step: the verifier's input and result. */
export interface VerifiedStep {
  input: VerifyInput;
  verification: StepVerification;
  /** Tokens each draft proposed (L unless it stopped early). */
  lengths: readonly number[];
  /** Whether the final (correction or bonus) token was output, rather than cut after a stop token. */
  finalEmitted: boolean;
}

export async function analyseStep(step: VerifiedStep): Promise<StepAnalysis> {
  const lengthLaw = acceptedLengthLawOf(step);
  const teaching = await teachingOf(step);
  return {
    finalLaw: step.finalEmitted ? teaching.finalLaw : null,
    decisions: teaching.decisions,
    lengthLaw,
    firstPosition: firstPositionOf(step.input.problem, lengthLaw),
  };
}

const oneHot = (size: number, at: number) => Array.from({ length: size }, (_, i) => (i === at ? 1 : 0));

/** A step whose analyses were not asked for (DecodeOptions.analyses). */
export const NO_ANALYSIS: StepAnalysis = { finalLaw: null, lengthLaw: null, firstPosition: null, decisions: null };

/** An ar step drafts nothing: it accepts no draft token, for certain. */
export const autoregressiveAnalysis = (L: number): StepAnalysis => ({
  finalLaw: null,
  lengthLaw: oneHot(L + 1, 0),
  firstPosition: null,
  decisions: null,
});

/**
 * The law the final token was drawn from, and the verifier's account of every decision (src/core/decisions.ts).
 * The kernels report neither, so the CPU twin replays the step on the same words to show them (none where
 * rounding made the two decide differently).
 */
async function teachingOf({
  input,
  verification,
}: VerifiedStep): Promise<{ finalLaw: DistributionSummary | null; decisions: DecisionRecord[] | null }> {
  if (verification.finalLaw && verification.decisions)
    return { finalLaw: verification.finalLaw, decisions: verification.decisions };
  const { draft, tokens } = verification.outcome;
  const replay = await cpuVerifier.verify(input);
  const same =
    replay.outcome.draft === draft &&
    replay.outcome.tokens.length === tokens.length &&
    replay.outcome.tokens.every((token, i) => token === tokens[i]);
  return same
    ? { finalLaw: replay.finalLaw, decisions: replay.decisions ?? null }
    : { finalLaw: null, decisions: null };
}

/** Exact enumeration of a step's verifier paths stops past this much work (paths × vocabulary size). */
const LENGTH_LAW_WORK = 1 << 18;

/** P(accepted = j | the step's drafts), every verifier choice enumerated; null past the work budget. */
function acceptedLengthLawOf({ input, lengths }: VerifiedStep): number[] | null {
  const { method, problem } = input;
  const maxPaths = Math.max(16, Math.floor(LENGTH_LAW_WORK / problem.V));
  try {
    // The counted length stops at a draft's stop token, as the step's own accepted length does.
    return Array.from(
      acceptedLengthLaw(VERIFIERS[method], denseView(problem), maxPaths, (outcome) =>
        Math.min(outcome.accepted, lengths[outcome.draft] as number),
      ),
    );
  } catch (error) {
    if (error instanceof EnumerationBudgetExceeded) return null;
    throw error;
  }
}

/** At the first position: α*, the most any lossless verifier accepts with these drafts, and what this one does. */
function firstPositionOf(
  { K, V, targetProbs, draftProbs }: VerifyProblem,
  lengthLaw: number[] | null,
): StepRecord['firstPosition'] {
  return {
    optimum: transportOptimum(targetProbs.subarray(0, V), draftProbs.subarray(0, V), K),
    achieved: lengthLaw ? 1 - (lengthLaw[0] as number) : null,
  };
}
