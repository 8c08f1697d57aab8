import { assertProbability, type RandomSource } from './random';

interface ChoicePoint {
  values: number[];
  probabilities: number[];
  picked: number;
}

export class EnumerationBudgetExceeded extends Error {
  /** `maxRuns` is the run budget; `outOfTime` says the time budget ran out first. */
  constructor(
    readonly maxRuns: number,
    readonly outOfTime = false,
  ) {
    super(
      outOfTime ? 'exact enumeration ran past its time budget' : `exact enumeration needs more than ${maxRuns} runs`,
    );
  }
}

/**
 * Runs `experiment` once per path through its random choices, each time with a source that replays the path
 * so far and takes the next unexplored branch, and reports every result with its exact probability.
 * Branches of probability zero are skipped, and every Bernoulli parameter is checked to lie in [0, 1].
 * The experiment must be deterministic given its choices. Past `maxRuns` runs, or `deadline` (performance.now()
 * milliseconds), it throws EnumerationBudgetExceeded.
 */
export function enumerateOutcomes<T>(
  experiment: (source: RandomSource) => T,
  visit: (result: T, probability: number) => void,
  maxRuns = Infinity,
  deadline = Infinity,
): number {
  const path: ChoicePoint[] = [];
  let runs = 0;
  for (;;) {
    if (++runs > maxRuns) throw new EnumerationBudgetExceeded(maxRuns);
    if (runs % 256 === 0 && performance.now() > deadline) throw new EnumerationBudgetExceeded(maxRuns, true);
    let depth = 0;
    let probability = 1;
    const choose = (values: number[], probabilities: number[]): number => {
      let point = path[depth];
      if (!point) {
        point = { values, probabilities, picked: 0 };
        path.push(point);
      } else if (point.values.length !== values.length) {
        throw new Error('the experiment is not deterministic given its random choices');
      }
      depth++;
      probability *= point.probabilities[point.picked] as number;
      return point.values[point.picked] as number;
    };
    const source: RandomSource = {
      bernoulli(p) {
        assertProbability(p);
        if (p === 1) return choose([1], [1]) === 1;
        if (p === 0) return choose([0], [1]) === 1;
        return choose([1, 0], [p, 1 - p]) === 1;
      },
      categorical(weights) {
        let total = 0;
        for (let i = 0; i < weights.length; i++) total += weights[i] as number;
        if (!(total > 0)) throw new RangeError(`categorical weights sum to ${total}`);
        const values: number[] = [];
        const probabilities: number[] = [];
        for (let i = 0; i < weights.length; i++) {
          const weight = weights[i] as number;
          if (weight < 0) throw new RangeError(`categorical weight ${i} is ${weight}`);
          if (weight > 0) {
            values.push(i);
            probabilities.push(weight / total);
          }
        }
        return choose(values, probabilities);
      },
    };
    const result = experiment(source);
    if (depth !== path.length) throw new Error('the experiment is not deterministic given its random choices');
    visit(result, probability);
    while (path.length > 0) {
      const last = path[path.length - 1] as ChoicePoint;
      if (last.picked + 1 < last.values.length) {
        last.picked++;
        break;
      }
      path.pop();
    }
    if (path.length === 0) return runs;
  }
}
