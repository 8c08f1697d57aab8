import type { RandomSource } from '../random';
import { drawResidual, emittedTokens, sumOf, type DraftBlockView } from './view';
import type { VerifyOutcome } from './types';

/** Token-wise speculative sampling (Leviathan et al. 2023) on draft 0; spec §1. */
export function verifyTokenwise(view: DraftBlockView, source: RandomSource): VerifyOutcome {
  for (let j = 0; j < view.L; j++) {
    const token = view.token(0, j);
    const target = view.targetRow(0, j);
    const draft = view.draftRow(0, j);
    source.explain?.({
      kind: 'token-test',
      draft: 0,
      position: j,
      token,
      p: target[token] as number,
      q: draft[token] as number,
    });
    if (source.bernoulli(Math.min(1, (target[token] as number) / (draft[token] as number)))) continue;
    const residual = new Float64Array(view.V);
    for (let x = 0; x < view.V; x++) residual[x] = Math.max(0, (target[x] as number) - (draft[x] as number));
    source.explain?.({ kind: 'final', law: 'residual', draft: 0, position: j, fallback: !(sumOf(residual) > 0) });
    const correction = drawResidual((w) => source.categorical(w), residual, target);
    return { draft: 0, accepted: j, tokens: emittedTokens(view, 0, j, correction) };
  }
  source.explain?.({ kind: 'final', law: 'bonus', draft: 0, position: view.L, fallback: false });
  const bonus = source.categorical(view.targetRow(0, view.L));
  return { draft: 0, accepted: view.L, tokens: emittedTokens(view, 0, view.L, bonus) };
}
