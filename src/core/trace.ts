/**
 * The verifier's own account of a step. Verifiers describe each random choice just before they make it
 * (`source.explain?.(note)`) and report the choices that draw nothing (`source.note?.(note)`); a tracing
 * source pairs every description with the uniform it drew and what came of it. Production sources have
 * neither method, and the optional call does not even build the note, so only a traced step pays. The
 * notes and records themselves are in decisions.ts.
 */
import { assertProbability, bernoulliFromWords, type RandomSource } from './random';
import type { Rng } from './rng';
import { drawCategorical } from './sampling';
import type { DecisionNote, DecisionRecord, Draw } from './decisions';

export interface TracingSource extends RandomSource {
  readonly decisions: DecisionRecord[];
  /** The weights of the latest categorical draw: the law of the final token, which every verifier draws last. */
  lastCategorical(): ArrayLike<number> | null;
}

const TWO_POW_32 = 4294967296;

/**
 * A source that draws exactly as `rngSource` does, word for word (two words per choice, the same exact
 * comparisons), and records each choice with its description. u is the two words read as one uniform.
 */
export function tracingSource(rng: Rng): TracingSource {
  const decisions: DecisionRecord[] = [];
  let pending: DecisionNote | null = null;
  let last: ArrayLike<number> | null = null;
  const take = () => {
    const note = pending;
    pending = null;
    return note;
  };
  const words = () => {
    const high = rng.nextUint32();
    const low = rng.nextUint32();
    return { high, low, u: (high + low / TWO_POW_32) / TWO_POW_32 };
  };
  return {
    decisions,
    bernoulli(p) {
      assertProbability(p);
      const { high, low, u } = words();
      const value = bernoulliFromWords(p, high, low);
      decisions.push({ note: take(), draw: { kind: 'bernoulli', p, u, value } });
      return value;
    },
    categorical(weights) {
      const { high, low, u } = words();
      const index = drawCategorical(weights, high, low);
      last = weights;
      decisions.push({ note: take(), draw: { kind: 'categorical', u, index } });
      return index;
    },
    explain(note) {
      if (pending) throw new Error(`a ${pending.kind} note was not followed by a draw before ${note.kind}`);
      pending = note;
    },
    note(note) {
      decisions.push({ note, draw: null });
    },
    lastCategorical: () => last,
  };
}

/** A source that answers from a recorded trace: the same verifier on the same problem must ask the same questions. */
export function replaySource(decisions: readonly DecisionRecord[]): RandomSource & { remaining(): number } {
  const draws = decisions.flatMap((decision) => (decision.draw ? [decision.draw] : []));
  let next = 0;
  const take = (kind: Draw['kind']): Draw => {
    const draw = draws[next++];
    if (!draw) throw new Error(`replay ran past the ${draws.length} recorded draws`);
    if (draw.kind !== kind)
      throw new Error(`replay expected a ${draw.kind} draw at ${next - 1}, the verifier asked for ${kind}`);
    return draw;
  };
  return {
    bernoulli(p) {
      const draw = take('bernoulli');
      if (draw.kind !== 'bernoulli' || draw.p !== p)
        throw new Error(
          `replay: draw ${next - 1} was recorded with p = ${draw.kind === 'bernoulli' ? draw.p : '?'}, asked with ${p}`,
        );
      return draw.value;
    },
    categorical() {
      const draw = take('categorical');
      if (draw.kind !== 'categorical') throw new Error('unreachable');
      return draw.index;
    },
    remaining: () => draws.length - next,
  };
}
