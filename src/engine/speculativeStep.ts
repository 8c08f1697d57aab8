/**
 * One speculative step, read top to bottom: draft, mask and score, verify, observe, commit, record.
 *   1. K drafts of L tokens from the drafter, batched (in 'constrained' mode it samples under the mask);
 *   2. the grammar checks each draft and records the mask at every position (R and I counted here), and the
 *      target scores all K×(L+1) rows in one forward (the drafts' prefix tree, or K batched rows), masked at
 *      every position;
 *   3. verification (the CPU twin or the WGSL kernels);
 *   4. the teaching analyses observe the verified step (stepAnalyses.ts), timed apart from generation;
 *   5. the caches keep the emitted prefix, and the step's record is built.
 */
import { countBySource, countDraftTokens } from '../core/metrics';
import { logitsToProbsInto, maskWordCount, summarizeDistribution } from '../core/sampling';
import type { MethodId, VerifyOutcome } from '../core/verify';
import type { EmittedToken, StepRecord, StepTimings } from '../contract/stepRecord';
import { verifierForMethod, type VerifyInput } from '../contract/stepVerifier';
import { advanceOverEmitted, checkDrafts, type DraftGrammarCheck } from '../grammar/draftMasks';
import { draftBlock, now, sameValues, timed, timedCall, type DraftBlock, type StepState } from './draftBlock';
import type { DecodeOptions } from './decodeOptions';
import type { PairModels, ScoredRows } from './pairModels';
import { draftAhead } from './draftAhead';
import { NO_ANALYSIS, analyseStep } from './stepAnalyses';

/** `options.K` is the number of drafts the method reads. */
export async function speculativeStep(
  models: PairModels,
  options: DecodeOptions,
  state: StepState,
): Promise<StepRecord> {
  const { timings, verification, matcher } = state;
  const block = state.ahead?.taken ?? (await draftBlock(models, options, state));
  const scored = await maskAndScore(models, options, state, block);
  const input: VerifyInput = {
    method: options.method as MethodId,
    problem: {
      K: options.K,
      L: options.L,
      V: models.V,
      drafts: block.drafts,
      draftProbs: block.draftProbs,
      targetProbs: scored.targetProbs,
    },
    targetLogits: scored.logits,
    targetLogitsOnGpu: scored.onGpu,
    draftLogits: block.draftLogits,
    targetMasks: scored.check?.masks ?? null,
    draftMasks: block.draftMasks,
    sampling: options.sampling,
    seed: options.seed,
    firstWord: verification.nextWord,
  };
  const result = await timed(timings, 'verify', async () => {
    const verified = await verifierForMethod(input.method, verification.verifier).verify(input);
    verification.nextWord += verified.wordsUsed;
    if (scored.check && matcher) advanceOverEmitted(matcher, scored.check, block.constrainedFrom, verified.outcome);
    return verified;
  });
  const { outcome } = result;
  const accepted = Math.min(outcome.accepted, block.lengths[outcome.draft] as number);
  const emitted = emittedTokens(outcome, accepted, input, options);
  const analysis =
    options.analyses === true
      ? await timed(timings, 'analysis', () =>
          analyseStep({
            input,
            verification: result,
            lengths: block.lengths,
            finalEmitted: emitted.length === accepted + 1,
          }),
        )
      : NO_ANALYSIS;
  await timedCall(models, timings, 'kv', () => Promise.resolve(models.commit(outcome.draft, accepted)));
  return {
    ...stepRecord(state.index, input, block, scored.check, outcome, accepted, emitted, timings),
    scoring: scored.scoring,
    verifiedOn: result.path,
    ...analysis,
  };
}

/** The grammar's masks at every scored position, and the target's masked probabilities there. */
async function maskAndScore(models: PairModels, options: DecodeOptions, state: StepState, block: DraftBlock) {
  const { K, L, sampling } = options;
  const { matcher, timings } = state;
  const V = models.V;
  const maskWords = maskWordCount(V);
  const check: DraftGrammarCheck | null = matcher
    ? await timed(timings, 'mask', () => checkDrafts(matcher, block.drafts, K, L, V, block.constrainedFrom))
    : null;
  const { logits, onGpu, scoring } = await scoreAndDraftAhead(models, options, state, block, check);
  // The probabilities are the verifier's input: their time counts as verification, as on the GPU.
  const mark = now();
  const targetProbs = state.rows.f64('targetProbs', K * (L + 1) * V);
  const maskOf = (row: number) => (check ? check.masks.subarray(row * maskWords, (row + 1) * maskWords) : undefined);
  for (let row = 0; row < K * (L + 1); row++) {
    const rowLogits = logits.subarray(row * V, (row + 1) * V);
    const mask = maskOf(row);
    // Drafts that share a prefix are one tree node: its row, logits and mask alike, is converted once.
    const depth = row % (L + 1);
    let twin = -1;
    for (let other = depth; other < row && twin === -1; other += L + 1) {
      if (sameValues(rowLogits, logits.subarray(other * V, (other + 1) * V)) && sameValues(mask, maskOf(other)))
        twin = other;
    }
    if (twin === -1) logitsToProbsInto(targetProbs.subarray(row * V, (row + 1) * V), rowLogits, sampling, mask);
    else targetProbs.copyWithin(row * V, twin * V, (twin + 1) * V);
  }
  timings.verify += now() - mark;
  return { check, logits, onGpu, scoring, targetProbs };
}

/**
 * The target's rows for the block. Where the run drafts ahead, the next block is drafted while the target
 * scores (on its own thread), and the target's time is what the step waited for it beyond that drafting.
 */
async function scoreAndDraftAhead(
  models: PairModels,
  options: DecodeOptions,
  state: StepState,
  block: DraftBlock,
  check: DraftGrammarCheck | null,
): Promise<ScoredRows> {
  const { timings, ahead } = state;
  const score = () => models.score(state.context, block.drafts, options.K, options.L);
  if (!ahead) return timedCall(models, timings, 'target', score);
  const sent = now();
  const scoring = score();
  const drafting = now();
  try {
    ahead.next = await draftAhead(models, options, state, block, check, ahead.spare);
  } catch (error) {
    await scoring.catch(() => undefined);
    throw error;
  }
  const aheadMs = now() - drafting;
  const rows = await scoring;
  timings.target += now() - sent - aheadMs;
  const kv = models.takeCacheMs();
  timings.target -= kv;
  timings.kv += kv;
  return rows;
}

/** The target law's heaviest tokens at an emitted position, only when the run asked for them (they cost a pass over V). */
export const targetTopOf = (row: ArrayLike<number>, count: number | undefined): Pick<EmittedToken, 'targetTop'> =>
  count === undefined || count <= 0
    ? {}
    : // The row's own probabilities, not renormalised, so a top entry equals the emitted token's targetProb.
      { targetTop: summarizeDistribution(row, count).top.map(({ token }) => ({ token, prob: row[token] as number })) };

/** The output ends at the stop token: anything the verifier emitted after it is not output. */
function emittedTokens(
  outcome: VerifyOutcome,
  accepted: number,
  { problem }: VerifyInput,
  { stopTokenId, stopTokenIds: stops, topTokens }: Pick<DecodeOptions, 'stopTokenId' | 'stopTokenIds' | 'topTokens'>,
): EmittedToken[] {
  const stopTokenIds = stops ?? [stopTokenId];
  const { L, V, draftProbs, targetProbs } = problem;
  const chosen = outcome.draft;
  const stopAt = Array.from(outcome.tokens.subarray(0, accepted + 1)).findIndex((token) =>
    stopTokenIds.includes(token),
  );
  const emittedCount = stopAt === -1 ? accepted + 1 : stopAt + 1;
  return Array.from(outcome.tokens.subarray(0, emittedCount), (token, i) => {
    const row = (chosen * (L + 1) + i) * V;
    const targetProb = targetProbs[row + token] as number;
    const top = targetTopOf(targetProbs.subarray(row, row + V), topTokens);
    if (i < accepted)
      return {
        token,
        origin: 'draft',
        targetProb,
        draftProb: draftProbs[(chosen * L + i) * V + token] as number,
        ...top,
      };
    return { token, origin: accepted === L ? 'bonus' : 'correction', targetProb, ...top };
  });
}

/** The step's record, less where it was verified and the analyses. */
function stepRecord(
  index: number,
  { problem }: VerifyInput,
  { lengths, sources }: Pick<DraftBlock, 'lengths' | 'sources'>,
  check: DraftGrammarCheck | null,
  outcome: VerifyOutcome,
  accepted: number,
  emitted: EmittedToken[],
  timings: StepTimings,
): Omit<StepRecord, 'scoring' | 'verifiedOn' | 'finalLaw' | 'lengthLaw' | 'firstPosition' | 'decisions'> {
  const { K, L, V, drafts, draftProbs, targetProbs } = problem;
  const validLengths = check ? check.validLengths : new Array<number>(K).fill(L);
  const perDraft = <T>(each: (k: number, j: number) => T) =>
    Array.from({ length: K }, (_, k) => Array.from({ length: lengths[k] as number }, (_, j) => each(k, j)));
  const token = (k: number, j: number) => drafts[k * L + j] as number;
  const trace = outcome.trace;
  return {
    index,
    drafts: perDraft(token),
    draftProbs: perDraft((k, j) => draftProbs[(k * L + j) * V + token(k, j)] as number),
    targetProbs: perDraft((k, j) => targetProbs[(k * (L + 1) + j) * V + token(k, j)] as number),
    draftLengths: lengths,
    draftSources: sources.map((each, k) => each.slice(0, lengths[k])),
    validLengths: validLengths.map((valid, k) => Math.min(valid, lengths[k] as number)),
    chosen: outcome.draft,
    accepted,
    emitted,
    trace: trace
      ? {
          start: trace.start,
          weights: Array.from(trace.weights),
          masses: Array.from(trace.masses),
          stops: Array.from(trace.stops),
        }
      : null,
    counts: {
      ...countDraftTokens(drafts, K, L, validLengths, accepted, lengths),
      bySource: countBySource(sources, lengths, validLengths, outcome.draft, accepted),
    },
    timings,
  };
}
