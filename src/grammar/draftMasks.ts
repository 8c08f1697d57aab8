import { isTokenAllowed, maskWordCount } from '../core/sampling';
import type { SchemaMatcher } from './engine';

export class GrammarDeadEndError extends Error {
  override readonly name = 'GrammarDeadEndError';
}

export interface DraftGrammarCheck {
  /**
   * K×(L+1) masks in xgrammar's layout, one per target row of the verifier: row (k, j) is the mask after
   * d_k[0..j), the bonus position j = L included. Rows past a draft's first invalid token can never be
   * reached (that token has target probability 0), so they repeat the last reachable mask rather than ask
   * the grammar for states past the invalid token.
   */
  masks: Int32Array;
  /** validLengths[k]: how many leading tokens of draft k the grammar allows (L when all). */
  validLengths: number[];
  /** Tokens of the last draft still accepted into the matcher, for advanceOverEmitted to reuse. */
  lastDraftWalked: number;
}

/** A mask allowing every token: positions before the constraint begins. */
export function openMask(V: number): Int32Array {
  const mask = new Int32Array(maskWordCount(V)).fill(-1);
  if (V % 32 !== 0) mask[mask.length - 1] = (1 << (V % 32)) - 1;
  return mask;
}

/**
 * Walks the matcher over each draft, recording the mask at every position, and stops at the first token the
 * grammar forbids. Every draft but the last is rolled back; the last one stays walked, because it is often
 * the one emitted (always, with one draft): advanceOverEmitted then keeps what was emitted and rolls back
 * the rest, so the matcher advances only over emitted tokens without accepting them twice.
 *
 * `constrainedFrom[k]` is the draft position where the grammar begins for draft k (0: the whole draft;
 * L + 1: none of it), for output that is free text until a trigger such as "Answer:". Positions before it
 * get an open mask and are never invalid.
 */
export async function checkDrafts(
  matcher: SchemaMatcher,
  drafts: Int32Array,
  K: number,
  L: number,
  V: number,
  constrainedFrom: readonly number[] = new Array<number>(K).fill(0),
): Promise<DraftGrammarCheck> {
  if (drafts.length !== K * L) throw new RangeError(`drafts has ${drafts.length} tokens, expected K×L = ${K * L}`);
  const words = maskWordCount(V);
  const open = openMask(V);
  const masks = new Int32Array(K * (L + 1) * words);
  const validLengths: number[] = [];
  let lastDraftWalked = 0;
  for (let k = 0; k < K; k++) {
    const start = constrainedFrom[k] ?? 0;
    let accepted = 0;
    let valid = 0;
    let mask: Int32Array | null = null;
    let terminated = false;
    for (let j = 0; j <= L; j++) {
      if (j < start) {
        masks.set(open, (k * (L + 1) + j) * words);
        if (j < L) valid++;
        continue;
      }
      if (!mask) {
        mask = await matcher.mask();
        if (!mask.some((word) => word !== 0)) {
          throw new GrammarDeadEndError(
            'the grammar allows no token here, so the output cannot continue; check the schema (for example a required property that maxLength or an enum makes impossible)',
          );
        }
      }
      masks.set(mask.subarray(0, words), (k * (L + 1) + j) * words);
      // Past the stop token a draft is padding: the grammar has terminated and is not asked again.
      if (j === L || valid < j || terminated) continue;
      const token = drafts[k * L + j] as number;
      if (token < 0 || token >= V || !isTokenAllowed(mask, token) || !matcher.accept(token)) continue;
      accepted++;
      valid++;
      // After the stop token the output is over: later rows are unreachable, so the last mask stays.
      terminated = matcher.isTerminated();
      if (!terminated) mask = await matcher.mask();
    }
    if (k < K - 1) matcher.rollBack(accepted);
    else lastDraftWalked = accepted;
    validLengths.push(valid);
  }
  return { masks, validLengths, lastDraftWalked };
}

/**
 * Moves the matcher from where checkDrafts left it to the state after the emitted tokens (the accepted
 * prefix of draft `outcome.draft`, then the final token), counting only positions the grammar governs
 * (from constrainedFrom[draft] on). Stops after the grammar terminates. Throws if an emitted token is
 * refused, which means the target was not masked.
 */
export function advanceOverEmitted(
  matcher: SchemaMatcher,
  check: DraftGrammarCheck,
  constrainedFrom: readonly number[],
  outcome: { draft: number; tokens: ArrayLike<number> },
): void {
  const start = constrainedFrom[outcome.draft] ?? 0;
  const accepted = outcome.tokens.length - 1;
  const isLast = outcome.draft === check.validLengths.length - 1;
  const reused = isLast ? Math.min(check.lastDraftWalked, Math.max(0, accepted - start)) : 0;
  matcher.rollBack(check.lastDraftWalked - reused);
  for (let i = start + reused; i < outcome.tokens.length; i++) {
    if (matcher.isTerminated()) return;
    const token = outcome.tokens[i] as number;
    if (!matcher.accept(token)) {
      throw new Error(`the verifier emitted token ${token}, which the grammar forbids: the target was not masked`);
    }
  }
}
