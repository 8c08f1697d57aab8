/**
 * The speculative loop, end to end, for any draft/target pair (real models with KV caches, or synthetic
 * logits). One step:
 *   1. K drafts of L tokens from the drafter, batched (in 'constrained' mode it samples under the mask);
 *   2. the grammar checks each draft and records the mask at every position (R and I counted here);
 *   3. the target scores all K×(L+1) positions in one batched forward, masked at every position;
 *   4. verification; 5. the caches keep the emitted prefix; 6. a step record goes to `onStep`.
 * `ar` is plain autoregressive decoding from the target: the baseline for speed and for losslessness.
 * Output may be free text until a trigger string (reasoning, then JSON); the grammar starts right after it.
 */
import { countDraftTokens, emptyCounters, recordStep, type StepCounts } from '../core/metrics';
import { createRng } from '../core/rng';
import { sampleCategorical, logitsToProbs, maskWordCount, type DistributionSummary, type SamplingParams } from '../core/sampling';
import { EnumerationBudgetExceeded } from '../core/enumerate';
import { acceptedLengthLaw, transportOptimum } from '../core/theory';
import { VERIFIERS, denseView, draftsUsed, type MethodId, type VerifyProblem } from '../core/verify';
import { GrammarDeadEndError, advanceOverEmitted, checkDrafts, openMask, type DraftGrammarCheck } from '../grammar/draftMasks';
import type { CompiledSchema, SchemaMatcher } from '../grammar/engine';
import { scoreOutput, type OutputVerdict, type SchemaValidator } from '../grammar/score';
import type { PairModels } from './pairModels';
import { LIMITS } from '../contract/limits';
import type { DecodeEnding, DecodeResult } from '../contract/runReport';
import { DECODE_METHODS, type DecodeMethod, type DraftingMode } from '../contract/runParams';
import { zeroTimings, type EmittedToken, type StepRecord, type StepTimings } from '../contract/stepRecord';
import { DRAFT_STREAM, cpuVerifier, verifierForMethod, type StepVerifier, type VerifyInput } from '../contract/stepVerifier';

export interface Structure {
  grammar: CompiledSchema;
  schema: object;
  /** Judges the finished output against `schema`, independently of the grammar. */
  validate: SchemaValidator;
  /** Free text until this string; the schema applies from the next token on. */
  trigger?: string;
}

export interface DecodeOptions {
  method: DecodeMethod;
  K: number;
  L: number;
  sampling: SamplingParams;
  drafting: DraftingMode;
  seed: number;
  maxTokens: number;
  /** The prompt's token ids. */
  prompt: readonly number[];
  /** The JSON-schema constraint, or null for free text. */
  structure: Structure | null;
  /** Output token ids to text. */
  detokenize: (tokens: readonly number[]) => string;
  stopTokenId: number;
  /** Checked between steps: a cancelled run ends after a whole step, with consistent state. */
  signal?: AbortSignal;
  /** Where steps are verified; the CPU twin by default. */
  verifier?: StepVerifier;
}

export class PromptTooLongError extends Error {
  override readonly name = 'PromptTooLongError';
}

export function validateDecodeOptions(options: DecodeOptions, contextLength: number): void {
  const { method, K, L, maxTokens, prompt } = options;
  if (!DECODE_METHODS.includes(method)) throw new RangeError(`unknown method ${JSON.stringify(method)}; expected one of ${DECODE_METHODS.join(', ')}`);
  for (const [name, value] of [['K', K], ['L', L], ['maxTokens', maxTokens]] as const) {
    const { min, max, label } = LIMITS[name];
    if (!(Number.isInteger(value) && value >= min && value <= max)) throw new RangeError(`${label} must be an integer in ${min}..${max}, got ${value}`);
  }
  if (prompt.length === 0) throw new RangeError('the prompt is empty');
  // Refused rather than cut: a silently truncated prompt would change what the model is asked.
  if (prompt.length + 2 > contextLength) {
    throw new PromptTooLongError(`the prompt is ${prompt.length} tokens; the models see ${contextLength}, so it must be at most ${contextLength - 2}`);
  }
}

const now = () => performance.now();

/** `onStep` may return a promise: the loop waits for it (pause, single-stepping, slow motion). */
export async function decode(models: PairModels, options: DecodeOptions, onStep?: (record: StepRecord) => void | Promise<void>): Promise<DecodeResult> {
  validateDecodeOptions(options, models.contextLength);
  const { method, L, sampling, structure, detokenize, stopTokenId, signal } = options;
  const K = method === 'ar' ? 1 : draftsUsed(method, options.K);
  const rng = createRng(options.seed, DRAFT_STREAM);
  const verification = { verifier: options.verifier ?? cpuVerifier, nextWord: 0 };
  const matcher: SchemaMatcher | null = structure ? await structure.grammar.matcher() : null;
  const trigger = structure?.trigger;
  /** Whether the token after `output` is constrained. */
  const constrainedAfter = (output: readonly number[]) => matcher !== null && (trigger === undefined || detokenize(output).includes(trigger));
  const tokens: number[] = [];
  let counters = emptyCounters(L);
  const totals = zeroTimings();
  let ending: DecodeEnding = 'max-tokens';
  let steps = 0;
  const maskIfConstrained = async (output: readonly number[]) => (constrainedAfter(output) ? await (matcher as SchemaMatcher).mask() : undefined);
  try {
    while (tokens.length < options.maxTokens) {
      if (signal?.aborted) {
        ending = 'cancelled';
        break;
      }
      if (options.prompt.length + tokens.length + L + 1 > models.contextLength) {
        ending = 'context-full';
        break;
      }
      const stepStart = now();
      const timings = zeroTimings();
      const context = [...options.prompt, ...tokens];
      let record: StepRecord;
      if (method === 'ar') {
        let mark = now();
        const logits = await models.targetNext(context);
        timings.target = now() - mark;
        mark = now();
        const mask = await maskIfConstrained(tokens);
        if (mask && !mask.some((word) => word !== 0)) throw new GrammarDeadEndError('the grammar allows no token here, so the output cannot continue');
        timings.mask = now() - mark;
        const row = logitsToProbs(logits, sampling, mask);
        const token = sampleCategorical(row, rng);
        if (mask && !(matcher as SchemaMatcher).accept(token)) throw new Error(`the grammar refused token ${token} that its own mask allowed`);
        const counts: StepCounts = { proposed: 0, invalidated: 0, distinctProposed: 0, distinctEligible: 0, accepted: 0 };
        record = {
          index: steps, drafts: [], draftProbs: [], targetProbs: [], draftLengths: [], validLengths: [], chosen: 0, accepted: 0,
          emitted: [{ token, origin: 'target', targetProb: row[token] as number }], verifiedOn: null, finalLaw: null, lengthLaw: oneHot(L + 1, 0), firstPosition: null, trace: null, counts, timings,
        };
      } else {
        record = await speculativeStep(models, { ...options, K }, { tokens, context, rng, verification, matcher, constrainedAfter, timings, index: steps });
      }
      for (const { token } of record.emitted) {
        tokens.push(token);
        if (token === stopTokenId) break;
      }
      counters = recordStep(counters, record.counts);
      steps++;
      timings.overhead = Math.max(0, now() - stepStart - timings.draft - timings.mask - timings.target - timings.verify - timings.analysis);
      for (const key of Object.keys(totals) as (keyof StepTimings)[]) totals[key] += timings[key];
      await onStep?.(record);
      if (tokens.at(-1) === stopTokenId || matcher?.isTerminated() === true) {
        ending = 'stopped';
        break;
      }
    }
  } catch (error) {
    if (!(error instanceof GrammarDeadEndError)) throw error;
    ending = 'dead-end';
  } finally {
    matcher?.dispose();
    models.dispose();
  }
  if (tokens.length > options.maxTokens) tokens.length = options.maxTokens;
  let constraintStart: number | null = null;
  if (structure) for (let i = 0; i <= tokens.length && constraintStart === null; i++) if (constrainedAfter(tokens.slice(0, i))) constraintStart = i;
  const body = (structure ? (constraintStart === null ? [] : tokens.slice(constraintStart)) : tokens).filter((token) => token !== stopTokenId);
  const json = detokenize(body);
  let verdict: OutputVerdict | null = null;
  if (structure) {
    verdict =
      constraintStart === null
        ? { kind: 'invalid', reason: `the trigger ${JSON.stringify(trigger)} never appeared, so the output has no JSON` }
        : scoreOutput(structure.validate, structure.schema, json, ending === 'stopped' || ending === 'dead-end' ? ending : 'max-tokens');
  }
  return { tokens, text: detokenize(tokens.filter((token) => token !== stopTokenId)), json, counters, verdict, ending, constraintStart, timings: totals, steps };
}

interface StepState {
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

/** Exact enumeration of a step's verifier paths stops past this much work (paths × vocabulary size). */
const LENGTH_LAW_WORK = 1 << 18;

function acceptedLengthLawOf(method: MethodId, problem: VerifyProblem, lengths: readonly number[]): number[] | null {
  const maxPaths = Math.max(16, Math.floor(LENGTH_LAW_WORK / problem.V));
  try {
    // The counted length stops at a draft's stop token, as the step's own accepted length does.
    return Array.from(acceptedLengthLaw(VERIFIERS[method], denseView(problem), maxPaths, (outcome) => Math.min(outcome.accepted, lengths[outcome.draft] as number)));
  } catch (error) {
    if (error instanceof EnumerationBudgetExceeded) return null;
    throw error;
  }
}

const oneHot = (size: number, at: number) => Array.from({ length: size }, (_, i) => (i === at ? 1 : 0));

async function replayFinalLaw(input: VerifyInput, tokens: Int32Array): Promise<DistributionSummary | null> {
  const replay = await cpuVerifier.verify(input);
  const same = replay.outcome.tokens.length === tokens.length && replay.outcome.tokens.every((token, i) => token === tokens[i]);
  return same ? replay.finalLaw : null;
}

async function speculativeStep(models: PairModels, options: DecodeOptions, state: StepState): Promise<StepRecord> {
  const { K, L, sampling, stopTokenId, method } = options;
  const { tokens, context, rng, verification, matcher, constrainedAfter, timings } = state;
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
  const stopRow = new Float64Array(V);
  stopRow[stopTokenId] = 1;

  // 1. Drafting, one batched drafter forward per position. Constrained drafting samples each draft under
  // its own mask, so the matcher walks the drafts one after another within a position: accept, read, roll.
  let mark = now();
  let rows = await models.draftFirst(context);
  timings.draft += now() - mark;
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
        mark = now();
        const grammar = matcher;
        // Walk this draft's accepted tokens, read the mask, and roll back: xgrammar has no fork.
        for (let i = prefix.length - (walked[k] as number); i < prefix.length; i++) grammar.accept(prefix[i] as number);
        mask = await grammar.mask();
        grammar.rollBack(walked[k] as number);
        draftMasks?.set(mask.subarray(0, maskWords), (k * L + j) * maskWords);
        timings.mask += now() - mark;
      }
      const row = logitsToProbs(logits, sampling, mask);
      const token = sampleCategorical(row, rng);
      draftProbs.set(row, at);
      drafts[k * L + j] = token;
      prefix.push(token);
      if (mask) walked[k] = (walked[k] as number) + 1;
      if (token === stopTokenId) lengths[k] = j + 1;
    }
    if (j < L - 1) {
      mark = now();
      rows = await models.draftNext(Int32Array.from({ length: K }, (_, k) => drafts[k * L + j] as number));
      timings.draft += now() - mark;
    }
  }

  // The trigger may close a draft: then only its bonus position is constrained.
  prefixes.forEach((prefix, k) => {
    if ((constrainedFrom[k] as number) > L && (lengths[k] as number) === L && constrainedAfter(prefix)) constrainedFrom[k] = L;
  });

  // 2. Grammar: masks at every scored position, and the valid length of every draft.
  mark = now();
  const check: DraftGrammarCheck | null = matcher ? await checkDrafts(matcher, drafts, K, L, V, constrainedFrom) : null;
  timings.mask += now() - mark;

  // 3. Target scoring, masked at every position, the bonus position included.
  mark = now();
  const { logits, onGpu } = await models.score(context, drafts, K, L);
  timings.target += now() - mark;
  mark = now();
  const targetProbs = new Float64Array(K * (L + 1) * V);
  for (let row = 0; row < K * (L + 1); row++) {
    const mask = check ? check.masks.subarray(row * maskWords, (row + 1) * maskWords) : undefined;
    targetProbs.set(logitsToProbs(logits.subarray(row * V, (row + 1) * V), sampling, mask), row * V);
  }

  // 4. Verification.
  const input: VerifyInput = {
    method: method as MethodId,
    problem: { K, L, V, drafts, draftProbs, targetProbs },
    targetLogits: logits,
    targetLogitsOnGpu: onGpu,
    draftLogits,
    targetMasks: check?.masks ?? null,
    draftMasks,
    sampling,
    seed: options.seed,
    firstWord: verification.nextWord,
  };
  const { outcome, wordsUsed, path, finalLaw } = await verifierForMethod(input.method, verification.verifier).verify(input);
  verification.nextWord += wordsUsed;
  const accepted = Math.min(outcome.accepted, lengths[outcome.draft] as number);
  const validLengths = check ? check.validLengths : new Array<number>(K).fill(L);
  if (check && matcher) advanceOverEmitted(matcher, check, constrainedFrom, outcome);
  timings.verify += now() - mark;

  // Teaching analyses, timed apart from generation. The kernels do not report the law of the final token, so
  // the CPU twin replays the step on the same words to show it (none where f32 rounding made them differ).
  mark = now();
  const law = finalLaw ?? (await replayFinalLaw(input, outcome.tokens));
  const lengthLaw = acceptedLengthLawOf(method as MethodId, input.problem, lengths);
  timings.analysis += now() - mark;

  // 5. The caches keep the emitted prefix.
  models.commit(outcome.draft, accepted);

  const chosen = outcome.draft;
  const tokenProb = (probs: Float64Array, row: number, token: number) => probs[row * V + token] as number;
  // The output ends at the stop token: anything the verifier emitted after it is not output.
  const stopAt = Array.from(outcome.tokens.subarray(0, accepted + 1)).indexOf(stopTokenId);
  const emittedCount = stopAt === -1 ? accepted + 1 : stopAt + 1;
  const emitted: EmittedToken[] = Array.from(outcome.tokens.subarray(0, emittedCount), (token, i) => {
    const targetProb = tokenProb(targetProbs, chosen * (L + 1) + i, token);
    if (i < accepted) return { token, origin: 'draft', targetProb, draftProb: tokenProb(draftProbs, chosen * L + i, token) };
    return { token, origin: accepted === L ? 'bonus' : 'correction', targetProb };
  });
  const finalEmitted = emittedCount === accepted + 1;
  const perDraft = <T>(each: (k: number, j: number) => T) => Array.from({ length: K }, (_, k) => Array.from({ length: lengths[k] as number }, (_, j) => each(k, j)));
  const trace = outcome.trace;
  return {
    index: state.index,
    drafts: perDraft((k, j) => drafts[k * L + j] as number),
    draftProbs: perDraft((k, j) => tokenProb(draftProbs, k * L + j, drafts[k * L + j] as number)),
    targetProbs: perDraft((k, j) => tokenProb(targetProbs, k * (L + 1) + j, drafts[k * L + j] as number)),
    draftLengths: lengths,
    validLengths: validLengths.map((valid, k) => Math.min(valid, lengths[k] as number)),
    chosen,
    accepted,
    emitted,
    verifiedOn: path,
    finalLaw: finalEmitted ? law : null,
    lengthLaw,
    firstPosition: {
      optimum: transportOptimum(targetProbs.subarray(0, V), draftProbs.subarray(0, V), K),
      achieved: lengthLaw ? 1 - (lengthLaw[0] as number) : null,
    },
    trace: trace ? { start: trace.start, weights: Array.from(trace.weights), masses: Array.from(trace.masses), stops: Array.from(trace.stops) } : null,
    counts: countDraftTokens(drafts, K, L, validLengths, accepted, lengths),
    timings,
  };
}
