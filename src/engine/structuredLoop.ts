/**
 * The speculative loop under a JSON-schema constraint, on the CPU verifier, for any source of logits
 * (synthetic ones until the bundled models land). Per step:
 *   1. K drafts of L tokens; in 'constrained' mode the drafter samples under the grammar's mask;
 *   2. the grammar checks each draft and records the mask at every position (R and I counted here);
 *   3. the target is masked at every scored position, the bonus position included;
 *   4. verification; 5. the matcher advances over the emitted tokens only.
 * Output may be free text until a trigger string (reasoning, then JSON); the grammar starts right after it.
 */
import { countDraftTokens, emptyCounters, recordStep, type Counters } from '../core/metrics';
import type { LogitPair } from '../core/modelPair';
import { createRng } from '../core/rng';
import { drawCategorical, logitsToProbs, type SamplingParams } from '../core/sampling';
import { draftsUsed, verify, type MethodId } from '../core/verify';
import { GrammarDeadEndError, advanceOverEmitted, checkDrafts } from '../grammar/draftMasks';
import type { CompiledSchema } from '../grammar/engine';
import { scoreOutput, type OutputVerdict } from '../grammar/score';

export interface StructuredRunOptions {
  grammar: CompiledSchema;
  schema: object;
  logits: LogitPair;
  /** Token ids to text. */
  decode: (tokens: readonly number[]) => string;
  stopTokenId: number;
  method: MethodId;
  K: number;
  L: number;
  sampling: SamplingParams;
  drafting: 'validate' | 'constrained';
  seed: number;
  maxTokens: number;
  /** Free text until this string; the schema applies from the next token on. */
  trigger?: string;
}

export interface StructuredRun {
  tokens: number[];
  /** The constrained part of the output, the stop token excluded. */
  json: string;
  counters: Counters;
  verdict: OutputVerdict;
  /** Index into `tokens` where the constraint began, or null when the trigger never appeared. */
  constraintStart: number | null;
}

export async function runStructured(options: StructuredRunOptions): Promise<StructuredRun> {
  const { logits, decode, stopTokenId, method, L, sampling, trigger } = options;
  const V = logits.V;
  const K = draftsUsed(method, options.K);
  const rng = createRng(options.seed);
  const matcher = await options.grammar.matcher();
  /** Whether the token after `tokens` is constrained. */
  const constrainedAfter = (tokens: readonly number[]) => trigger === undefined || decode(tokens).includes(trigger);
  const tokens: number[] = [];
  let counters = emptyCounters(L);
  let ending: 'stopped' | 'max-tokens' | 'dead-end' = 'max-tokens';
  try {
    while (tokens.length < options.maxTokens) {
      const drafts = new Int32Array(K * L);
      const draftProbs = new Float64Array(K * L * V);
      const constrainedFrom: number[] = [];
      // A drafter stops at its stop token: the draft ends early, and the rest of its row is padding that
      // no counter sees and the output never reaches (it ends at the stop token).
      const lengths: number[] = [];
      const stopRow = new Float64Array(V);
      stopRow[stopTokenId] = 1;
      for (let k = 0; k < K; k++) {
        const prefix = [...tokens];
        let walked = 0;
        let length = L;
        constrainedFrom.push(L + 1);
        for (let j = 0; j < L; j++) {
          if (j >= length) {
            draftProbs.set(stopRow, (k * L + j) * V);
            drafts[k * L + j] = stopTokenId;
            continue;
          }
          const constrained = constrainedAfter(prefix);
          if (constrained) constrainedFrom[k] = Math.min(constrainedFrom[k] as number, j);
          // Constrained drafting samples under the mask, walking the matcher along this draft.
          const mask = options.drafting === 'constrained' && constrained ? await matcher.mask() : undefined;
          const row = logitsToProbs(logits.draft(prefix), sampling, mask);
          const token = drawCategorical(row, rng.uniform());
          draftProbs.set(row, (k * L + j) * V);
          drafts[k * L + j] = token;
          prefix.push(token);
          if (mask) {
            if (!matcher.accept(token)) throw new Error(`the grammar refused token ${token} that its own mask allowed`);
            walked++;
          }
          if (token === stopTokenId) length = j + 1;
        }
        matcher.rollBack(walked);
        lengths.push(length);
      }
      const check = await checkDrafts(matcher, drafts, K, L, V, constrainedFrom);
      const maskWords = check.masks.length / (K * (L + 1));
      const targetProbs = new Float64Array(K * (L + 1) * V);
      for (let k = 0; k < K; k++) {
        for (let j = 0; j <= L; j++) {
          const row = k * (L + 1) + j;
          const prefix = [...tokens, ...drafts.subarray(k * L, k * L + j)];
          targetProbs.set(logitsToProbs(logits.target(prefix), sampling, check.masks.subarray(row * maskWords, (row + 1) * maskWords)), row * V);
        }
      }
      const outcome = verify(method, { K, L, V, drafts, draftProbs, targetProbs }, rng);
      const accepted = Math.min(outcome.accepted, lengths[outcome.draft] as number);
      counters = recordStep(counters, countDraftTokens(drafts, K, L, check.validLengths, accepted, lengths));
      advanceOverEmitted(matcher, check, constrainedFrom, outcome);
      for (const token of outcome.tokens) {
        tokens.push(token);
        if (token === stopTokenId) break;
      }
      if (tokens.at(-1) === stopTokenId || matcher.isTerminated()) {
        ending = 'stopped';
        break;
      }
    }
  } catch (error) {
    if (!(error instanceof GrammarDeadEndError)) throw error;
    ending = 'dead-end';
  } finally {
    matcher.dispose();
  }
  let constraintStart: number | null = null;
  for (let i = 0; i <= tokens.length && constraintStart === null; i++) if (constrainedAfter(tokens.slice(0, i))) constraintStart = i;
  const body = constraintStart === null ? [] : tokens.slice(constraintStart).filter((token) => token !== stopTokenId);
  const verdict: OutputVerdict =
    constraintStart === null
      ? { kind: 'invalid', reason: `the trigger ${JSON.stringify(trigger)} never appeared, so the output has no JSON` }
      : scoreOutput(options.schema, decode(body), ending);
  return { tokens, json: decode(body), counters, verdict, constraintStart };
}
