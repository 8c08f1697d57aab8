import { rngSource } from '../random';
import type { Rng } from '../rng';
import type { DraftBlockView } from './view';
import { MAX_DRAFTS, MAX_DRAFT_LENGTH } from '../../contract/limits';
import { METHOD_REGISTRY, type VerifierId, type Verifier } from './registry';
import type { VerifyOutcome, VerifyProblem } from './types';

export type { BlockTrace, VerifyOutcome, VerifyProblem } from './types';
export type { DraftBlockView } from './view';
export {
  GPU_VERIFIER_IDS,
  METHOD_IDS,
  METHOD_REGISTRY,
  VERIFIER_IDS,
  draftsUsed,
  methodEntry,
  wgslMethodCode,
  wgslMethodConstant,
  type MethodEntry,
  type MethodId,
  type Verifier,
  type VerifierId,
} from './registry';

/** Each rule written once, over a view and a random source; `verify` and the proofs both call these. */
export const VERIFIERS = Object.fromEntries(
  Object.entries(METHOD_REGISTRY).map(([id, entry]) => [id, entry.verify]),
) as Readonly<Record<VerifierId, Verifier>>;

/** The one range of K and L (src/contract/limits.ts), re-exported for the verifiers' callers. */
export { MAX_DRAFTS, MAX_DRAFT_LENGTH };
export const ROW_SUM_TOLERANCE = 1e-6;

function checkRows(name: string, data: Float64Array, rows: number, V: number, rowLabel: (row: number) => string) {
  for (let row = 0; row < rows; row++) {
    let total = 0;
    for (let x = 0; x < V; x++) {
      const value = data[row * V + x] as number;
      if (Number.isNaN(value)) throw new RangeError(`${name}: ${rowLabel(row)} has NaN at token ${x}`);
      if (value < 0)
        throw new RangeError(`${name}: ${rowLabel(row)} has a negative probability ${value} at token ${x}`);
      total += value;
    }
    if (!(Math.abs(total - 1) <= ROW_SUM_TOLERANCE)) {
      throw new RangeError(`${name}: ${rowLabel(row)} sums to ${total}, not 1 (tolerance ${ROW_SUM_TOLERANCE})`);
    }
  }
}

/** Throws an error naming the problem when the input is malformed. */
export function validateProblem(problem: VerifyProblem): void {
  const { K, L, V, drafts, draftProbs, targetProbs } = problem;
  if (!Number.isInteger(K) || K < 1 || K > MAX_DRAFTS)
    throw new RangeError(`K must be an integer in 1..${MAX_DRAFTS}, got ${K}`);
  if (!Number.isInteger(L) || L < 1 || L > MAX_DRAFT_LENGTH) {
    throw new RangeError(`L must be an integer in 1..${MAX_DRAFT_LENGTH}, got ${L}`);
  }
  if (!Number.isInteger(V) || V < 1) throw new RangeError(`V must be a positive integer, got ${V}`);
  const expect = (name: string, actual: number, expected: number, shape: string) => {
    if (actual !== expected) throw new RangeError(`${name} has ${actual} entries, expected ${shape} = ${expected}`);
  };
  expect('drafts', drafts.length, K * L, `K×L = ${K}×${L}`);
  expect('draftProbs', draftProbs.length, K * L * V, `K×L×V = ${K}×${L}×${V}`);
  expect('targetProbs', targetProbs.length, K * (L + 1) * V, `K×(L+1)×V = ${K}×${L + 1}×${V}`);
  checkRows('draftProbs', draftProbs, K * L, V, (row) => `row (draft ${Math.floor(row / L)}, position ${row % L})`);
  checkRows(
    'targetProbs',
    targetProbs,
    K * (L + 1),
    V,
    (row) => `row (draft ${Math.floor(row / (L + 1))}, position ${row % (L + 1)})`,
  );
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < L; j++) {
      const token = drafts[k * L + j] as number;
      if (!(token >= 0 && token < V))
        throw new RangeError(`drafts[${k}][${j}] = ${token} is outside the vocabulary 0..${V - 1}`);
      if ((draftProbs[(k * L + j) * V + token] as number) === 0) {
        throw new RangeError(`drafts[${k}][${j}] = ${token} has draft probability 0, so it cannot have been sampled`);
      }
    }
  }
}

/** A view over the dense arrays of a problem. */
export function denseView(problem: VerifyProblem): DraftBlockView {
  const { K, L, V, drafts, draftProbs, targetProbs } = problem;
  return {
    K,
    L,
    V,
    token: (k, j) => drafts[k * L + j] as number,
    draftRow: (k, j) => draftProbs.subarray((k * L + j) * V, (k * L + j + 1) * V),
    targetRow: (k, j) => targetProbs.subarray((k * (L + 1) + j) * V, (k * (L + 1) + j + 1) * V),
  };
}

export function verify(method: VerifierId, problem: VerifyProblem, rng: Rng): VerifyOutcome {
  if (!Object.hasOwn(VERIFIERS, method)) throw new RangeError(`unknown verification method '${String(method)}'`);
  validateProblem(problem);
  return VERIFIERS[method](denseView(problem), rngSource(rng));
}
