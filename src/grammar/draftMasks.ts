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
}

/**
 * Walks the matcher over each draft, recording the mask at every position, stops at the first token the
 * grammar forbids, and rolls back, so that the matcher ends where it began: it advances only over
 * emitted tokens, elsewhere.
 */
export async function checkDrafts(matcher: SchemaMatcher, drafts: Int32Array, K: number, L: number, V: number): Promise<DraftGrammarCheck> {
  if (drafts.length !== K * L) throw new RangeError(`drafts has ${drafts.length} tokens, expected K×L = ${K * L}`);
  const words = maskWordCount(V);
  const masks = new Int32Array(K * (L + 1) * words);
  const validLengths: number[] = [];
  for (let k = 0; k < K; k++) {
    let accepted = 0;
    let mask = await matcher.mask();
    if (!mask.some((word) => word !== 0)) {
      throw new GrammarDeadEndError('the grammar allows no token here: the output cannot continue; check the schema (for example maxLength with a required property)');
    }
    for (let j = 0; j <= L; j++) {
      masks.set(mask.subarray(0, words), (k * (L + 1) + j) * words);
      if (j === L || accepted < j) continue;
      const token = drafts[k * L + j] as number;
      if (token < 0 || token >= V || !isTokenAllowed(mask, token) || !matcher.accept(token)) continue;
      accepted++;
      mask = await matcher.mask();
    }
    matcher.rollBack(accepted);
    validLengths.push(accepted);
  }
  return { masks, validLengths };
}
