/**
 * Drafting one block: the step's state, the run's row buffers, and K drafts of L tokens from the drafter and
 * the free sources (the schema's forced text, copied values, prompt lookup). A speculative step drafts here
 * (speculativeStep.ts), and so does drafting ahead (draftAhead.ts), from a fork of the drafter's state.
 */
import type { Rng } from '../core/rng';
import { logitsToProbsInto, maskWordCount, sampleCategorical } from '../core/sampling';
import { copySpan } from '../core/copyDraft';
import {
  drafterSources,
  lookupProposal,
  sampledSource,
  samplesNothing,
  spanProposer,
  type DraftSource,
  type Proposer,
} from '../core/draftLaw';
import type { StepTimings } from '../contract/stepRecord';
import type { StepVerifier } from '../contract/stepVerifier';
import { openMask } from '../grammar/draftMasks';
import type { SchemaMatcher } from '../grammar/engine';
import type { DecodeOptions } from './decodeOptions';
import type { DraftFork, Drafter, PairModels } from './pairModels';

export interface StepState {
  tokens: readonly number[];
  context: readonly number[];
  rng: Rng;
  /** The verifier and the next unused word of its Philox stream. */
  verification: { verifier: StepVerifier; nextWord: number };
  matcher: SchemaMatcher | null;
  constrainedAfter: (output: readonly number[]) => boolean;
  /** The constrained part of an output's text (after the trigger, if any): the JSON the copy drafter reads. */
  jsonOf: (output: readonly number[]) => string;
  /** The prompt's text, which the copy drafter copies from. */
  promptText: string;
  timings: StepTimings;
  index: number;
  /** The run's row buffers, which every step refills. */
  rows: RunRows;
  /** Where the run drafts ahead (draftAhead.ts): the block drafted for this step, and the next one's. */
  ahead?: AheadSlot;
}

/**
 * The K×L×V draft rows and K×(L+1)×V target rows, held for the whole run: each step writes every entry
 * before any is read, and nothing keeps a step's rows past it (records copy the numbers they show). At
 * 262k tokens a step's fresh rows were 70 MB, and collecting them cost more than verifying. A step shorter
 * than the longest so far (copy and jump-forward steps are as long as their span) gets the first `length`
 * entries of the same buffer.
 */
export class RunRows {
  private readonly float64 = new Map<string, Float64Array>();
  private readonly float32 = new Map<string, Float32Array>();

  f64(name: 'draftProbs' | 'targetProbs', length: number): Float64Array {
    let held = this.float64.get(name);
    if (!held || held.length < length) this.float64.set(name, (held = new Float64Array(length)));
    return held.subarray(0, length);
  }

  f32(name: 'draftLogits', length: number): Float32Array {
    let held = this.float32.get(name);
    if (!held || held.length < length) this.float32.set(name, (held = new Float32Array(length)));
    return held.subarray(0, length);
  }
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
export async function timedCall<T>(
  models: Pick<PairModels, 'takeCacheMs'>,
  timings: StepTimings,
  phase: keyof StepTimings,
  work: () => Promise<T>,
): Promise<T> {
  const result = await timed(timings, phase, work);
  const kv = models.takeCacheMs();
  timings[phase] -= kv;
  timings.kv += kv;
  return result;
}

export interface DraftBlock {
  /** K×L tokens, K×L×V probabilities and logits, K×L masks (constrained drafting only). */
  drafts: Int32Array;
  draftProbs: Float64Array;
  draftLogits: Float32Array;
  draftMasks: Int32Array | null;
  /** Where each proposed token came from (src/core/draftLaw.ts), per draft. */
  sources: DraftSource[][];
  /** Tokens each draft proposed: L, or up to its stop token. */
  lengths: number[];
  /** The first position of each draft the grammar constrains (L + 1: none). */
  constrainedFrom: number[];
}

/**
 * The free sources of a drafter after one draft's prefix: the schema's forced text (its canonical
 * tokenization, drafted token by token), values copied from the prompt (src/core/copyDraft.ts) and prompt
 * lookup. Each answer is a pure function of the context and the draft's tokens so far, the same for every
 * draft that reaches the same prefix, so the K drafts stay i.i.d. (src/core/draftLaw.ts). A forced span is
 * read once where it begins and followed while the draft follows it; so is a copied one.
 */
export class FreeSources {
  private readonly spans: ({ from: number; tokens: number[] } | null)[];
  /** The forced text after each prefix this step read it at: drafts that share a prefix read it once. */
  private readonly forcedAfter = new Map<string, string>();
  private readonly copied: Proposer | null;

  constructor(
    private readonly options: DecodeOptions,
    private readonly state: StepState,
    K: number,
  ) {
    this.spans = new Array<{ from: number; tokens: number[] } | null>(K).fill(null);
    const { tokenize, detokenize } = options;
    this.copied =
      drafterSources(options.drafter ?? 'model').copy && tokenize
        ? spanProposer(state.tokens.length, (prefix) =>
            state.constrainedAfter(prefix)
              ? copySpan(state.promptText, prefix, state.jsonOf(prefix), tokenize, detokenize)
              : [],
          )
        : null;
  }

  /** The proposal after draft k's first j tokens (`prefix` is the output so far and those tokens). */
  async propose(
    k: number,
    j: number,
    prefix: readonly number[],
  ): Promise<{ source: DraftSource; token: number } | null> {
    const { grammar, lookup } = drafterSources(this.options.drafter ?? 'model');
    if (grammar) {
      const token = await this.forced(k, j, prefix);
      if (token !== null) return { source: 'grammar', token };
    }
    if (this.copied) {
      // Matching and re-tokenizing are drafting's work.
      const mark = now();
      const token = this.copied(prefix);
      this.state.timings.draft += now() - mark;
      if (token !== null) return { source: 'copy', token };
    }
    if (lookup) {
      const token = lookupProposal([...this.state.context, ...prefix.slice(this.state.tokens.length)]);
      if (token !== null) return { source: 'lookup', token };
    }
    return null;
  }

  private async forced(k: number, j: number, prefix: readonly number[]): Promise<number | null> {
    const { matcher, constrainedAfter, timings } = this.state;
    const tokenize = this.options.tokenize;
    if (!matcher || !tokenize || !constrainedAfter(prefix)) return null;
    // A draft on a span drafted its tokens with q = 1, so it follows the span to its end.
    const span = this.spans[k];
    if (span && j - span.from < span.tokens.length) return span.tokens[j - span.from] as number;
    this.spans[k] = null;
    // The grammar's state after this prefix: walk the draft's constrained tokens (all, or none is read), read, roll back.
    const key = prefix.slice(this.state.tokens.length).join(',');
    const text =
      this.forcedAfter.get(key) ??
      (await timed(timings, 'mask', async () => {
        const constrained = prefix
          .slice(this.state.tokens.length)
          .filter((_, i) => constrainedAfter(prefix.slice(0, this.state.tokens.length + i)));
        let walked = 0;
        for (const token of constrained) {
          if (!matcher.accept(token)) break;
          walked++;
        }
        const forced = walked === constrained.length ? matcher.forcedString() : '';
        matcher.rollBack(walked);
        this.forcedAfter.set(key, forced);
        return forced;
      }));
    if (text === '') return null;
    const tokens = tokenize(text);
    if (tokens.length === 0) return null;
    this.spans[k] = { from: j, tokens };
    return tokens[0] as number;
  }
}

/**
 * Drafting, one batched drafter forward per position the draft model is needed at. Constrained drafting
 * samples each draft under its own mask, so the matcher walks the drafts one after another within a
 * position: accept, read, roll back. Where every draft's next token comes from a free source (the
 * schema's forced text, prompt lookup), the drafter is not called; it catches up on those tokens only if a
 * later position needs it.
 */
export async function draftBlock(models: Drafter, options: DecodeOptions, state: StepState): Promise<DraftBlock> {
  const { K, L, sampling, stopTokenId } = options;
  const { tokens, context, rng, matcher, constrainedAfter, timings } = state;
  const V = models.V;
  const drafts = new Int32Array(K * L);
  const draftProbs = state.rows.f64('draftProbs', K * L * V);
  const draftLogits = state.rows.f32('draftLogits', K * L * V);
  const sources = Array.from({ length: K }, (): DraftSource[] => []);
  const constrainedFrom = new Array<number>(K).fill(L + 1);
  const lengths = new Array<number>(K).fill(L);
  const walked = new Array<number>(K).fill(0);
  const constrainedDrafting = options.drafting === 'constrained' && matcher !== null;
  const maskWords = maskWordCount(V);
  // The masks the drafter sampled under, open where it was unconstrained, for the GPU's draft rows.
  const draftMasks = constrainedDrafting ? new Int32Array(K * L * maskWords) : null;
  const open = openMask(V);
  const prefixes = Array.from({ length: K }, () => [...tokens]);
  const free = new FreeSources(options, state, K);
  // The draft model's tokens, or the draft head's (the pair's drafter is the head then: pairModels.ts).
  const sampled = sampledSource(options.drafter ?? 'model');
  let firstRow: { probs: Float64Array; mask: Int32Array | undefined } | null = null;
  // The drafter's rows for position `rowsAt` (−1: not called yet this step).
  let rows: Float32Array = new Float32Array(0);
  let rowsAt = -1;
  const drafterRows = async (j: number): Promise<Float32Array> => {
    if (rowsAt < 0) {
      rows = await timedCall(models, timings, 'draft', () => models.draftFirst(context));
      rowsAt = 0;
    }
    while (rowsAt < j) {
      const at = rowsAt;
      rows = await timedCall(models, timings, 'draft', () =>
        models.draftNext(Int32Array.from({ length: K }, (_, k) => drafts[k * L + at] as number)),
      );
      rowsAt++;
    }
    return rows;
  };

  for (let j = 0; j < L; j++) {
    for (let k = 0; k < K; k++) {
      const at = (k * L + j) * V;
      draftMasks?.set(open, (k * L + j) * maskWords);
      if (j >= (lengths[k] as number)) {
        // A draft that reached the stop token is over: padding no counter sees and the output never reaches.
        // Its logits row says so too, so that the GPU recomputes the same certain stop.
        setPointMass(draftProbs, draftLogits, at, V, stopTokenId);
        drafts[k * L + j] = stopTokenId;
        continue;
      }
      const prefix = prefixes[k] as number[];
      const constrained = constrainedAfter(prefix);
      if (constrained) constrainedFrom[k] = Math.min(constrainedFrom[k] as number, j);
      const proposed = await free.propose(k, j, prefix);
      let token: number;
      if (proposed) {
        // q = 1 on the proposal: the verifier keeps it with probability p(token).
        setPointMass(draftProbs, draftLogits, at, V, proposed.token);
        token = proposed.token;
        sources[k]?.push(proposed.source);
        if (constrainedDrafting && constrained) walked[k] = (walked[k] as number) + 1;
      } else {
        // The copy drafter's steps are as long as its free sources propose (decode.ts: copySpan).
        if (samplesNothing(options.drafter ?? 'model'))
          throw new Error(`drafter ${options.drafter}: no free source proposes at position ${j} of a ${L}-token step`);
        const all = await drafterRows(j);
        const logits = all.subarray((K > 1 && j > 0 ? k : 0) * V, ((K > 1 && j > 0 ? k : 0) + 1) * V);
        draftLogits.set(logits, at);
        let mask: Int32Array | undefined;
        if (constrainedDrafting && constrained) {
          mask = await timed(timings, 'mask', async () => {
            // Walk this draft's accepted tokens, read the mask, and roll back: xgrammar has no fork.
            let accepted = 0;
            for (let i = prefix.length - (walked[k] as number); i < prefix.length; i++)
              if (matcher.accept(prefix[i] as number)) accepted++;
            const read = await matcher.mask();
            matcher.rollBack(accepted);
            return read;
          });
          draftMasks?.set(mask.subarray(0, maskWords), (k * L + j) * maskWords);
        }
        // Every draft's first position reads the same drafter row: under the same mask it is converted once.
        const row = draftProbs.subarray(at, at + V);
        if (j === 0 && k > 0 && firstRow && sameValues(mask, firstRow.mask)) row.set(firstRow.probs);
        else logitsToProbsInto(row, logits, sampling, mask);
        if (j === 0 && k === 0) firstRow = { probs: row, mask };
        token = sampleCategorical(row, rng);
        sources[k]?.push(sampled);
        if (mask) walked[k] = (walked[k] as number) + 1;
      }
      drafts[k * L + j] = token;
      prefix.push(token);
      if (token === stopTokenId) lengths[k] = j + 1;
    }
  }

  // The trigger may close a draft: then only its bonus position is constrained.
  prefixes.forEach((prefix, k) => {
    if ((constrainedFrom[k] as number) > L && (lengths[k] as number) === L && constrainedAfter(prefix))
      constrainedFrom[k] = L;
  });
  return { drafts, draftProbs, draftLogits, draftMasks, sources, lengths, constrainedFrom };
}

/** A certain token: probability 1, and logits that every sampling setting turns into the same point mass. */
function setPointMass(probs: Float64Array, logits: Float32Array, at: number, V: number, token: number): void {
  probs.fill(0, at, at + V);
  probs[at + token] = 1;
  logits.fill(-1e30, at, at + V);
  logits[at + token] = 0;
}

/** Element by element equal (or both absent): logitsToProbs gives equal rows for equal logits and masks. */
export function sameValues(
  a: Float32Array | Int32Array | undefined,
  b: Float32Array | Int32Array | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Drafting ahead (draftAhead.ts): a block drafted during the step before, with what it assumed and the state it leaves. */
export interface AheadBlock {
  /** The output it was drafted after: the step's output, the step's block and the guessed final token. */
  assumed: readonly number[];
  block: DraftBlock;
  /** The drafter's state after drafting it. */
  fork: DraftFork;
  /** The draft stream after drafting it. */
  rng: Rng;
  /** The row buffers its rows are in (the step's own are in use meanwhile). */
  rows: RunRows;
}

/** What the loop hands each step when it drafts ahead: the block drafted for it, and a place for the next one. */
export interface AheadSlot {
  /** The block drafted ahead for this step, when the step before assumed right. */
  taken: DraftBlock | null;
  /** The block this step drafted ahead for the next one, if it could. */
  next: AheadBlock | null;
  /** Row buffers not in use by this step's block. */
  spare: RunRows;
}
