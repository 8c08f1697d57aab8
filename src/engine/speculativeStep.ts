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
import { countDraftTokens } from '../core/metrics';
import type { createRng } from '../core/rng';
import { logitsToProbs, maskWordCount, sampleCategorical } from '../core/sampling';
import type { MethodId, VerifyOutcome } from '../core/verify';
import type { EmittedToken, StepRecord, StepTimings } from '../contract/stepRecord';
import { verifierForMethod, type StepVerifier, type VerifyInput } from '../contract/stepVerifier';
import { advanceOverEmitted, checkDrafts, openMask, type DraftGrammarCheck } from '../grammar/draftMasks';
import type { SchemaMatcher } from '../grammar/engine';
import type { DecodeOptions } from './decode';
import type { PairModels } from './pairModels';
import { analyseStep } from './stepAnalyses';

export interface StepState {
  tokens: readonly number[];
  context: readonly number[];
  rng: ReturnType<typeof createRng>;
  /** The verifier and the next unused word of its Philox stream. */
  verification: { verifier: StepVerifier; nextWord: number };
  matcher: SchemaMatcher | null;
  constrainedAfter: (output: readonly number[]) => boolean;
  timings: StepTimings;
  index: number;
}

export const now = () => performance.now();

/** Adds the time `work` took to `timings[phase]`. */
export async function timed<T>(timings: StepTimings, phase: keyof StepTimings, work: () => Promise<T>): Promise<T> {
  const mark = now();
  try {
    return await work();
  } finally {
    timings[phase] += now() - mark;
  }
}

/** `timed` for a call into the models: the KV-cache gathers it makes count as kv, the rest as `phase`. */
async function timedCall<T>(models: PairModels, timings: StepTimings, phase: keyof StepTimings, work: () => Promise<T>): Promise<T> {
  const result = await timed(timings, phase, work);
  const kv = models.takeCacheMs();
  timings[phase] -= kv;
  timings.kv += kv;
  return result;
}

/** `options.K` is the number of drafts the method reads. */
export async function speculativeStep(models: PairModels, options: DecodeOptions, state: StepState): Promise<StepRecord> {
  const { timings, verification, matcher } = state;
  const block = await draftBlock(models, options, state);
  const scored = await maskAndScore(models, options, state, block);
  const input: VerifyInput = {
    method: options.method as MethodId,
    problem: { K: options.K, L: options.L, V: models.V, drafts: block.drafts, draftProbs: block.draftProbs, targetProbs: scored.targetProbs },
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
  const emitted = emittedTokens(outcome, accepted, input, options.stopTokenId);
  const analysis = await timed(timings, 'analysis', () => analyseStep({ input, verification: result, lengths: block.lengths, finalEmitted: emitted.length === accepted + 1 }));
  await timedCall(models, timings, 'kv', () => Promise.resolve(models.commit(outcome.draft, accepted)));
  return { ...stepRecord(state.index, input, block.lengths, scored.check, outcome, accepted, emitted, timings), scoring: scored.scoring, verifiedOn: result.path, ...analysis };
}

interface DraftBlock {
  /** K×L tokens, K×L×V probabilities and logits, K×L masks (constrained drafting only). */
  drafts: Int32Array;
  draftProbs: Float64Array;
  draftLogits: Float32Array;
  draftMasks: Int32Array | null;
  /** Tokens each draft proposed: L, or up to its stop token. */
  lengths: number[];
  /** The first position of each draft the grammar constrains (L + 1: none). */
  constrainedFrom: number[];
}

/**
 * Drafting, one batched drafter forward per position. Constrained drafting samples each draft under its own
 * mask, so the matcher walks the drafts one after another within a position: accept, read, roll back.
 */
async function draftBlock(models: PairModels, options: DecodeOptions, state: StepState): Promise<DraftBlock> {
  const { K, L, sampling, stopTokenId } = options;
  const { tokens, context, rng, matcher, constrainedAfter, timings } = state;
  const V = models.V;
  const drafts = new Int32Array(K * L);
  const draftProbs = new Float64Array(K * L * V);
  const draftLogits = new Float32Array(K * L * V);
  const constrainedFrom = new Array<number>(K).fill(L + 1);
  const lengths = new Array<number>(K).fill(L);
  const walked = new Array<number>(K).fill(0);
  const constrainedDrafting = options.drafting === 'constrained' && matcher !== null;
  const maskWords = maskWordCount(V);
  // The masks the drafter sampled under, open where it was unconstrained, for the GPU's draft rows.
  const draftMasks = constrainedDrafting ? new Int32Array(K * L * maskWords) : null;
  const open = openMask(V);
  const prefixes = Array.from({ length: K }, () => [...tokens]);
  let firstRow: { probs: Float64Array; mask: Int32Array | undefined } | null = null;
  const stopRow = new Float64Array(V);
  stopRow[stopTokenId] = 1;

  let rows = await timedCall(models, timings, 'draft', () => models.draftFirst(context));
  for (let j = 0; j < L; j++) {
    for (let k = 0; k < K; k++) {
      const at = (k * L + j) * V;
      const logits = rows.subarray((K > 1 && j > 0 ? k : 0) * V, ((K > 1 && j > 0 ? k : 0) + 1) * V);
      draftLogits.set(logits, at);
      draftMasks?.set(open, (k * L + j) * maskWords);
      if (j >= (lengths[k] as number)) {
        // A draft that reached the stop token is over: padding no counter sees and the output never reaches.
        // Its logits row says so too, so that the GPU recomputes the same certain stop.
        draftProbs.set(stopRow, at);
        draftLogits.fill(-1e30, at, at + V);
        draftLogits[at + stopTokenId] = 0;
        drafts[k * L + j] = stopTokenId;
        continue;
      }
      const prefix = prefixes[k] as number[];
      const constrained = constrainedAfter(prefix);
      if (constrained) constrainedFrom[k] = Math.min(constrainedFrom[k] as number, j);
      let mask: Int32Array | undefined;
      if (constrainedDrafting && constrained) {
        mask = await timed(timings, 'mask', async () => {
          // Walk this draft's accepted tokens, read the mask, and roll back: xgrammar has no fork.
          for (let i = prefix.length - (walked[k] as number); i < prefix.length; i++) matcher.accept(prefix[i] as number);
          const read = await matcher.mask();
          matcher.rollBack(walked[k] as number);
          return read;
        });
        draftMasks?.set(mask.subarray(0, maskWords), (k * L + j) * maskWords);
      }
      // Every draft's first position reads the same drafter row: under the same mask it is converted once.
      const row: Float64Array = j === 0 && k > 0 && firstRow && sameValues(mask, firstRow.mask) ? firstRow.probs : logitsToProbs(logits, sampling, mask);
      if (j === 0 && k === 0) firstRow = { probs: row, mask };
      const token = sampleCategorical(row, rng);
      draftProbs.set(row, at);
      drafts[k * L + j] = token;
      prefix.push(token);
      if (mask) walked[k] = (walked[k] as number) + 1;
      if (token === stopTokenId) lengths[k] = j + 1;
    }
    if (j < L - 1) rows = await timedCall(models, timings, 'draft', () => models.draftNext(Int32Array.from({ length: K }, (_, k) => drafts[k * L + j] as number)));
  }

  // The trigger may close a draft: then only its bonus position is constrained.
  prefixes.forEach((prefix, k) => {
    if ((constrainedFrom[k] as number) > L && (lengths[k] as number) === L && constrainedAfter(prefix)) constrainedFrom[k] = L;
  });
  return { drafts, draftProbs, draftLogits, draftMasks, lengths, constrainedFrom };
}

/** Element by element equal (or both absent): logitsToProbs gives equal rows for equal logits and masks. */
function sameValues(a: Float32Array | Int32Array | undefined, b: Float32Array | Int32Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The grammar's masks at every scored position, and the target's masked probabilities there. */
async function maskAndScore(models: PairModels, options: DecodeOptions, state: StepState, block: DraftBlock) {
  const { K, L, sampling } = options;
  const { matcher, timings } = state;
  const V = models.V;
  const maskWords = maskWordCount(V);
  const check: DraftGrammarCheck | null = matcher ? await timed(timings, 'mask', () => checkDrafts(matcher, block.drafts, K, L, V, block.constrainedFrom)) : null;
  const { logits, onGpu, scoring } = await timedCall(models, timings, 'target', () => models.score(state.context, block.drafts, K, L));
  // The probabilities are the verifier's input: their time counts as verification, as on the GPU.
  const mark = now();
  const targetProbs = new Float64Array(K * (L + 1) * V);
  const maskOf = (row: number) => (check ? check.masks.subarray(row * maskWords, (row + 1) * maskWords) : undefined);
  for (let row = 0; row < K * (L + 1); row++) {
    const rowLogits = logits.subarray(row * V, (row + 1) * V);
    const mask = maskOf(row);
    // Drafts that share a prefix are one tree node: its row, logits and mask alike, is converted once.
    const depth = row % (L + 1);
    let twin = -1;
    for (let other = depth; other < row && twin === -1; other += L + 1) {
      if (sameValues(rowLogits, logits.subarray(other * V, (other + 1) * V)) && sameValues(mask, maskOf(other))) twin = other;
    }
    if (twin === -1) targetProbs.set(logitsToProbs(rowLogits, sampling, mask), row * V);
    else targetProbs.copyWithin(row * V, twin * V, (twin + 1) * V);
  }
  timings.verify += now() - mark;
  return { check, logits, onGpu, scoring, targetProbs };
}

/** The output ends at the stop token: anything the verifier emitted after it is not output. */
function emittedTokens(outcome: VerifyOutcome, accepted: number, { problem }: VerifyInput, stopTokenId: number): EmittedToken[] {
  const { L, V, draftProbs, targetProbs } = problem;
  const chosen = outcome.draft;
  const stopAt = Array.from(outcome.tokens.subarray(0, accepted + 1)).indexOf(stopTokenId);
  const emittedCount = stopAt === -1 ? accepted + 1 : stopAt + 1;
  return Array.from(outcome.tokens.subarray(0, emittedCount), (token, i) => {
    const targetProb = targetProbs[(chosen * (L + 1) + i) * V + token] as number;
    if (i < accepted) return { token, origin: 'draft', targetProb, draftProb: draftProbs[(chosen * L + i) * V + token] as number };
    return { token, origin: accepted === L ? 'bonus' : 'correction', targetProb };
  });
}

/** The step's record, less where it was verified and the analyses. */
function stepRecord(
  index: number,
  { problem }: VerifyInput,
  lengths: number[],
  check: DraftGrammarCheck | null,
  outcome: VerifyOutcome,
  accepted: number,
  emitted: EmittedToken[],
  timings: StepTimings,
): Omit<StepRecord, 'scoring' | 'verifiedOn' | 'finalLaw' | 'lengthLaw' | 'firstPosition' | 'decisions'> {
  const { K, L, V, drafts, draftProbs, targetProbs } = problem;
  const validLengths = check ? check.validLengths : new Array<number>(K).fill(L);
  const perDraft = <T>(each: (k: number, j: number) => T) => Array.from({ length: K }, (_, k) => Array.from({ length: lengths[k] as number }, (_, j) => each(k, j)));
  const token = (k: number, j: number) => drafts[k * L + j] as number;
  const trace = outcome.trace;
  return {
    index,
    drafts: perDraft(token),
    draftProbs: perDraft((k, j) => draftProbs[(k * L + j) * V + token(k, j)] as number),
    targetProbs: perDraft((k, j) => targetProbs[(k * (L + 1) + j) * V + token(k, j)] as number),
    draftLengths: lengths,
    validLengths: validLengths.map((valid, k) => Math.min(valid, lengths[k] as number)),
    chosen: outcome.draft,
    accepted,
    emitted,
    trace: trace ? { start: trace.start, weights: Array.from(trace.weights), masses: Array.from(trace.masses), stops: Array.from(trace.stops) } : null,
    counts: countDraftTokens(drafts, K, L, validLengths, accepted, lengths),
    timings,
  };
}
