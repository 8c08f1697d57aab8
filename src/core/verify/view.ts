/**
 * What a verifier may read of K drafts of length L. Verifiers read only through this view, so the proofs
 * can hand them a view that samples each draft token lazily, on first read, from the draft model: an unread
 * suffix then costs nothing to enumerate, and it shows that a rule reads only what it claims to.
 */
export interface DraftBlockView {
  readonly K: number;
  readonly L: number;
  readonly V: number;
  /** d_k[j], for j in [0, L). */
  token(k: number, j: number): number;
  /** The distribution d_k[j] was sampled from (after d_k[0..j)). */
  draftRow(k: number, j: number): Float64Array;
  /** The target distribution after d_k[0..j), for j in [0, L]; j = L is the bonus row. */
  targetRow(k: number, j: number): Float64Array;
}

/** The accepted tokens d_k[0..accepted) followed by the final (correction or bonus) token. */
export function emittedTokens(view: DraftBlockView, k: number, accepted: number, finalToken: number): Int32Array {
  const tokens = new Int32Array(accepted + 1);
  for (let j = 0; j < accepted; j++) tokens[j] = view.token(k, j);
  tokens[accepted] = finalToken;
  return tokens;
}

export function sumOf(row: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < row.length; i++) total += row[i] as number;
  return total;
}

/**
 * Residuals are empty only when rounding made an event of probability zero happen (for example a
 * rejection at a row where target equals draft). The exact law is then undefined; we draw from `fallback`,
 * the target row at that position, which is what the exact rule converges to as the mass vanishes.
 */
export function drawResidual(
  draw: (weights: ArrayLike<number>) => number,
  residual: Float64Array,
  fallback: Float64Array,
): number {
  return draw(sumOf(residual) > 0 ? residual : fallback);
}
