/**
 * The speculative loop, end to end, for any draft/target pair (real models with KV caches, or synthetic
 * logits): one step at a time (speculativeStep.ts), each step's record to `onStep`, until a stop, the token
 * budget, a full context, a grammar dead end or a cancel. `ar` is plain autoregressive decoding from the target: the baseline for speed and for losslessness;
 * `ar+jump-forward` is ar that scores the schema's forced text in one forward (the baseline without a draft model).
 * Output may be free text until a trigger string (reasoning, then JSON); the grammar starts right after it.
 */
import { emptyCounters, recordStep, type StepCounts } from '../core/metrics';
import { samplesNothing } from '../core/draftLaw';
import { createRng } from '../core/rng';
import { logitsToProbs, sampleCategorical } from '../core/sampling';
import { draftsUsed } from '../core/verify';
import { GrammarDeadEndError } from '../grammar/draftMasks';
import type { CompiledSchema, SchemaMatcher } from '../grammar/engine';
import { scoreOutput } from '../grammar/score';
import type { PairModels } from './pairModels';
import { checkNumber } from '../contract/validation';
import type { DecodeEnding, DecodeResult, OutputVerdict } from '../contract/runReport';
import { DECODE_METHODS, isBaseline, type DecodeMethod } from '../contract/runParams';
import { zeroTimings, type StepRecord, type StepTimings } from '../contract/stepRecord';
import { DRAFT_STREAM, cpuVerifier } from '../contract/stepVerifier';
import { FreeSources, RunRows, now, timed, type AheadSlot, type StepState } from './draftBlock';
import { speculativeStep, targetTopOf } from './speculativeStep';
import type { DecodeOptions } from './decodeOptions';
import { autoregressiveAnalysis } from './stepAnalyses';
import { draftAheadRefusal } from './draftAhead';

const sameTokens = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((token, i) => token === b[i]);

export class PromptTooLongError extends Error {
  override readonly name = 'PromptTooLongError';
}

/**
 * Positions one step must find free in the context: a draft of L tokens and the target's token after it; one
 * for the baselines (ar+jump-forward takes a forced span only as far as the context holds).
 */
export function stepWindow(method: DecodeMethod, L: number): number {
  return isBaseline(method) ? 1 : L + 1;
}

/** What validateDecodeOptions reads: a server checks a request with these before it answers (SpecEngine.checkRoom). */
export type CheckedDecodeOptions = Pick<DecodeOptions, 'method' | 'K' | 'L' | 'maxTokens' | 'prompt'> & {
  structure: { grammar: Pick<CompiledSchema, 'shortest'> } | null;
};

export function validateDecodeOptions(options: CheckedDecodeOptions, contextLength: number): void {
  const { method, K, L, maxTokens, prompt } = options;
  if (!DECODE_METHODS.includes(method))
    throw new RangeError(`unknown method ${JSON.stringify(method)}; expected one of ${DECODE_METHODS.join(', ')}`);
  // The same check, and the same words, as the form, share links and the CLI.
  for (const [name, value] of [
    ['K', K],
    ['L', L],
    ['maxTokens', maxTokens],
  ] as const) {
    const problem = checkNumber(name, value);
    if (problem !== null) throw new RangeError(problem);
  }
  if (prompt.length === 0) throw new RangeError('the prompt is empty');
  // Refused rather than cut: a silently truncated prompt would change what the model is asked.
  const window = stepWindow(method, L);
  if (prompt.length + window > contextLength) {
    throw new PromptTooLongError(
      `the prompt is ${prompt.length} tokens and one step needs ${window} more position${window === 1 ? '' : 's'}; the models see ${contextLength}, so the prompt must be at most ${contextLength - window} tokens`,
    );
  }
  const shortest = options.structure?.grammar.shortest;
  if (shortest && prompt.length + shortest.tokens > contextLength) {
    throw new PromptTooLongError(
      `the schema's shortest valid output needs at least ${shortest.tokens} tokens (${shortest.bytes} bytes at ${shortest.longestToken} bytes a token at most, and the stop token), and the prompt is ${prompt.length}: ${prompt.length + shortest.tokens} > the models' context of ${contextLength}`,
    );
  }
}

/** `onStep` may return a promise: the loop waits for it (pause, single-stepping, slow motion). */
export async function decode(
  models: PairModels,
  options: DecodeOptions,
  onStep?: (record: StepRecord) => void | Promise<void>,
): Promise<DecodeResult> {
  validateDecodeOptions(options, models.contextLength);
  const { method, L, structure, detokenize, stopTokenId, signal } = options;
  const stops = new Set(options.stopTokenIds ?? [stopTokenId]);
  const K = isBaseline(method) ? 1 : draftsUsed(method, options.K);
  const drafter = options.drafter ?? 'model';
  if (options.draftAhead === true) {
    const refusal =
      draftAheadRefusal({ method, K, drafter }) ?? (models.forkDraft ? null : 'this pair cannot fork its drafter');
    if (refusal !== null) throw new RangeError(refusal);
  }
  let rng = createRng(options.seed, DRAFT_STREAM);
  const verification = { verifier: options.verifier ?? cpuVerifier, nextWord: 0 };
  const matcher: SchemaMatcher | null = structure ? await structure.grammar.matcher() : null;
  const trigger = structure?.trigger;
  /** Whether the token after `output` is constrained. */
  const constrainedAfter = (output: readonly number[]) =>
    matcher !== null && (trigger === undefined || detokenize(output).includes(trigger));
  const jsonOf = (output: readonly number[]) => {
    const text = detokenize(output);
    return trigger === undefined ? text : text.slice(text.indexOf(trigger) + trigger.length);
  };
  const promptText = detokenize(options.prompt);
  const tokens: number[] = [];
  let counters = emptyCounters(L);
  const totals = zeroTimings();
  const scoring = { positions: 0, batchedPositions: 0, treeSteps: 0, batchedSteps: 0 };
  let ending: DecodeEnding = 'max-tokens';
  let steps = 0;
  let rows = new RunRows();
  // Drafting ahead: the slot of the step in flight, with the buffers for the block drafted during it.
  let slot: AheadSlot | undefined =
    options.draftAhead === true ? { taken: null, next: null, spare: new RunRows() } : undefined;
  const draftedAhead = { drafted: 0, taken: 0 };
  try {
    while (tokens.length < options.maxTokens) {
      if (signal?.aborted) {
        ending = 'cancelled';
        break;
      }
      if (options.prompt.length + tokens.length + stepWindow(method, L) > models.contextLength) {
        ending = 'context-full';
        break;
      }
      const stepStart = now();
      const timings = zeroTimings();
      const context = [...options.prompt, ...tokens];
      const state = {
        tokens,
        context,
        rng,
        verification,
        matcher,
        constrainedAfter,
        jsonOf,
        promptText,
        timings,
        index: steps,
        rows,
        ...(slot ? { ahead: slot } : {}),
      };
      const record =
        method === 'ar'
          ? await autoregressiveStep(models, options, state)
          : method === 'ar+jump-forward'
            ? await jumpForwardStep(models, options, state)
            : samplesNothing(drafter)
              ? await copyStep(models, { ...options, K }, state)
              : await speculativeStep(models, { ...options, K }, state);
      // A step may emit past the token budget: what lies past it is not output, so a stop token there does not end the run.
      for (const { token } of record.emitted) {
        if (tokens.length === options.maxTokens) break;
        tokens.push(token);
        if (stops.has(token)) break;
      }
      if (slot) {
        // The block drafted ahead serves the next step only if the output is the one it assumed.
        const { next, spare } = slot;
        slot = { taken: null, next: null, spare };
        if (next) draftedAhead.drafted++;
        if (next && sameTokens(tokens, next.assumed)) {
          draftedAhead.taken++;
          models.adoptDraft?.(next.fork);
          rng = next.rng;
          // Its rows are the next step's; this step's buffers are free for the block after.
          slot = { taken: next.block, next: null, spare: rows };
          rows = next.rows;
        } else next?.fork.dispose();
      }
      counters = recordStep(counters, record.counts);
      steps++;
      timings.overhead = Math.max(
        0,
        now() -
          stepStart -
          timings.draft -
          timings.mask -
          timings.target -
          timings.verify -
          timings.kv -
          timings.analysis,
      );
      for (const key of Object.keys(totals) as (keyof StepTimings)[]) totals[key] += timings[key];
      if (record.scoring) {
        scoring.positions += record.scoring.positions;
        scoring.batchedPositions += record.scoring.batchedPositions;
        scoring[record.scoring.path === 'tree' ? 'treeSteps' : 'batchedSteps']++;
      }
      await onStep?.(record);
      if (
        stops.has(tokens.at(-1) as number) ||
        (matcher?.isTerminated() === true && tokens.length < options.maxTokens)
      ) {
        ending = 'stopped';
        break;
      }
    }
  } catch (error) {
    if (!(error instanceof GrammarDeadEndError)) throw error;
    ending = 'dead-end';
  } finally {
    slot?.next?.fork.dispose();
    matcher?.dispose();
    models.dispose();
  }
  let constraintStart: number | null = null;
  if (structure)
    for (let i = 0; i <= tokens.length && constraintStart === null; i++)
      if (constrainedAfter(tokens.slice(0, i))) constraintStart = i;
  const body = (structure ? (constraintStart === null ? [] : tokens.slice(constraintStart)) : tokens).filter(
    (token) => !stops.has(token),
  );
  const json = detokenize(body);
  let verdict: OutputVerdict | null = null;
  if (structure) {
    verdict =
      constraintStart === null
        ? {
            kind: 'invalid',
            reason: `the trigger ${JSON.stringify(trigger)} never appeared, so the output has no JSON`,
          }
        : scoreOutput(structure.validate, structure.schema, json, ending);
  }
  return {
    tokens,
    text: detokenize(tokens.filter((token) => !stops.has(token))),
    json,
    counters,
    verdict,
    ending,
    constraintStart,
    timings: totals,
    steps,
    scoring,
    ...(slot ? { draftedAhead } : {}),
  };
}

/** One token from the target alone, under the grammar's mask where the output is constrained. */
async function autoregressiveStep(models: PairModels, options: DecodeOptions, state: StepState): Promise<StepRecord> {
  const { tokens, context, rng, matcher, constrainedAfter, timings } = state;
  const logits = await timed(timings, 'target', () => models.targetNext(context));
  const mask = matcher && constrainedAfter(tokens) ? await timed(timings, 'mask', () => matcher.mask()) : undefined;
  if (mask && !mask.some((word) => word !== 0))
    throw new GrammarDeadEndError('the grammar allows no token here, so the output cannot continue');
  const row = logitsToProbs(logits, options.sampling, mask);
  const token = sampleCategorical(row, rng);
  if (matcher && mask && !matcher.accept(token))
    throw new Error(`the grammar refused token ${token} that its own mask allowed`);
  const counts: StepCounts = { proposed: 0, invalidated: 0, distinctProposed: 0, distinctEligible: 0, accepted: 0 };
  return {
    index: state.index,
    drafts: [],
    draftProbs: [],
    targetProbs: [],
    draftLengths: [],
    validLengths: [],
    draftSources: [],
    chosen: 0,
    accepted: 0,
    emitted: [{ token, origin: 'target', targetProb: row[token] as number, ...targetTopOf(row, options.topTokens) }],
    scoring: null,
    verifiedOn: null,
    trace: null,
    counts,
    timings,
    ...autoregressiveAnalysis(options.L),
  };
}

/**
 * ar+jump-forward (SGLang's jump-forward decoding, kept lossless): where the schema forces text after the
 * output, its canonical tokens (at most L, and no more than the context holds) are a draft with q = 1 that
 * the target scores with the next position in one forward, and token-wise verification keeps each with
 * probability p(x) under the masked target. The forced text is certain but its tokenization is not (a
 * byte-level BPE spells it several ways, and the masked target weighs them), so appending the tokens
 * outright would change the output's law; kept with probability p(x), they leave it ar's (the draft law of
 * the 'model+grammar' drafter, proved in test/core/draftLaw.test.ts; at T = 0 the tokens are ar's, bit for
 * bit). Elsewhere, an ar step. The draft model is never called.
 */
async function jumpForwardStep(models: PairModels, options: DecodeOptions, state: StepState): Promise<StepRecord> {
  const room = Math.min(options.L, models.contextLength - state.context.length - 1);
  const span = await forcedSpan(options, state, room);
  if (span === 0) return autoregressiveStep(models, options, state);
  return speculativeStep(
    models,
    { ...options, method: 'tokenwise', K: 1, L: span, drafter: 'model+grammar', drafting: 'validate' },
    state,
  );
}

/**
 * The `copy` drafter's step: the schema's forced text and the prompt's copied values, as far as they go (at most
 * L tokens, and no more than the context holds), are the step's drafts with q = 1, verified by the run's
 * method (its K drafts are the same span: one law, deterministic); where they propose nothing, an ar step. The
 * draft model is never called.
 */
async function copyStep(models: PairModels, options: DecodeOptions, state: StepState): Promise<StepRecord> {
  const room = Math.min(options.L, models.contextLength - state.context.length - 1);
  const free = new FreeSources(options, state, 1);
  const prefix = [...state.tokens];
  while (prefix.length - state.tokens.length < room) {
    const proposed = await free.propose(0, prefix.length - state.tokens.length, prefix);
    if (!proposed) break;
    prefix.push(proposed.token);
    if (proposed.token === options.stopTokenId) break;
  }
  const span = prefix.length - state.tokens.length;
  if (span === 0) return autoregressiveStep(models, options, state);
  return speculativeStep(models, { ...options, L: span }, state);
}

/** How many tokens of the schema's forced text (canonically tokenized) follow the output, at most `limit`. */
async function forcedSpan(options: DecodeOptions, state: StepState, limit: number): Promise<number> {
  const { matcher, tokens, constrainedAfter, timings } = state;
  const tokenize = options.tokenize;
  if (!matcher || !tokenize || limit < 1 || matcher.isTerminated() || !constrainedAfter(tokens)) return 0;
  const text = await timed(timings, 'mask', () => Promise.resolve(matcher.forcedString()));
  return text === '' ? 0 : Math.min(tokenize(text).length, limit);
}
