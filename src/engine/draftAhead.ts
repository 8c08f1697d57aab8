/**
 * Drafting ahead: while the target scores a step's block (on another thread, src/engine/targetThread.ts), the
 * drafter drafts the next step's block on two assumptions: this block is accepted whole, and the target's
 * final token is the drafter's own most likely token there (under the grammar's mask). The next step takes
 * that block only when its output is exactly the one assumed. Then the drafter's state (a fork, as the step's
 * commit leaves it), the grammar's state and the draft stream's position are those a run that drafted after
 * verifying would have, so the block is the same, token for token and row for row, and the output's law is
 * untouched. Otherwise the block is thrown away and the next step drafts as usual: drafting ahead changes when
 * the drafting happens, never what is drafted. One draft (K = 1): the block whole is then one path.
 */
import { samplesNothing, usesHead, type DrafterId } from '../core/draftLaw';
import { createRng } from '../core/rng';
import { isBaseline, type DecodeMethod } from '../contract/runParams';
import { isTokenAllowed, maskWordCount } from '../core/sampling';
import { DRAFT_STREAM } from '../contract/stepVerifier';
import { GrammarDeadEndError, type DraftGrammarCheck } from '../grammar/draftMasks';
import {
  draftBlock,
  now,
  timedCall,
  type AheadBlock,
  type DraftBlock,
  type RunRows,
  type StepState,
} from './draftBlock';
import type { DecodeOptions } from './decodeOptions';
import type { PairModels } from './pairModels';

/** Why a run of `method` with `K` drafts (those it reads) from `drafter` cannot draft ahead, or null when it can. */
export function draftAheadRefusal(run: { method: DecodeMethod; K: number; drafter: DrafterId }): string | null {
  const { method, K, drafter } = run;
  if (isBaseline(method))
    return `drafting ahead needs a drafter that samples its tokens; method ${method} drafts nothing`;
  if (samplesNothing(drafter))
    return `drafting ahead needs a drafter that samples its tokens; drafter ${drafter} samples none`;
  if (K !== 1) return `drafting ahead takes one draft; this method reads ${K}`;
  return usesHead(drafter)
    ? `drafter ${drafter}: the head reads the target's features, which the step being verified has not given yet`
    : null;
}

/** The most likely token of `logits` among those `mask` allows (all, without a mask). */
function likeliest(logits: Float32Array, mask: Int32Array | null): number {
  let best = -1;
  for (let token = 0; token < logits.length; token++)
    if (
      (mask === null || isTokenAllowed(mask, token)) &&
      (best < 0 || (logits[token] as number) > (logits[best] as number))
    )
      best = token;
  return best;
}

/**
 * The next step's block, drafted while the target scores `block` (checked by the grammar as `check`), or null
 * where the next step cannot follow a whole block (a draft cut short or invalid, a stop, the token budget or
 * the context reached) or the guess ends the output. Leaves the grammar's matcher where it found it.
 */
export async function draftAhead(
  models: PairModels,
  options: DecodeOptions,
  state: StepState,
  block: DraftBlock,
  check: DraftGrammarCheck | null,
  spare: RunRows,
): Promise<AheadBlock | null> {
  const { L, stopTokenId } = options;
  const { tokens, context, matcher, constrainedAfter } = state;
  const drafted = Array.from(block.drafts.subarray(0, L));
  const stops = options.stopTokenIds ?? [stopTokenId];
  const whole =
    (block.lengths[0] as number) === L &&
    (check === null || check.validLengths[0] === L) &&
    !drafted.some((token) => stops.includes(token));
  // The next step runs only below the budget and with a step's window of context left.
  const room = tokens.length + L + 1 < options.maxTokens && context.length + 2 * (L + 1) <= models.contextLength;
  if (!whole || !room) return null;
  const copying = now();
  const fork = models.forkDraft?.();
  state.timings.kv += now() - copying;
  if (!fork) return null;
  const output = [...tokens, ...drafted];
  const constrained = matcher !== null && check !== null && constrainedAfter(output);
  const words = maskWordCount(models.V);
  const bonusMask = constrained ? check.masks.subarray(L * words, (L + 1) * words) : null;
  let walked = 0;
  try {
    const row = await timedCall(fork, state.timings, 'draft', () => fork.peek([...context, ...drafted]));
    const guess = likeliest(row, bonusMask);
    // checkDrafts left the matcher after this block (it was valid whole); the guess is walked on top, and undone.
    walked = constrained && guess >= 0 && matcher.accept(guess) ? 1 : 0;
    if (guess < 0 || stops.includes(guess) || (constrained && walked === 0) || matcher?.isTerminated() === true) {
      fork.dispose();
      return null;
    }
    const assumed = [...output, guess];
    const rng = createRng(options.seed, DRAFT_STREAM, state.rng.position);
    const ahead = {
      ...state,
      tokens: assumed,
      context: [...context, ...drafted, guess],
      rng,
      rows: spare,
      index: state.index + 1,
    };
    return { assumed, block: await draftBlock(fork, options, ahead), fork, rng, rows: spare };
  } catch (error) {
    fork.dispose();
    // The grammar's dead end after the assumed output is the next step's to find, if that output comes.
    if (error instanceof GrammarDeadEndError) return null;
    throw error;
  } finally {
    matcher?.rollBack(walked);
  }
}
