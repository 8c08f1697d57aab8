/**
 * Predict, then reveal, on the whole screen: while "Play this step" replays step i, the output, the counters
 * and the charts show the run as it stood before step i, and take step i in at its emission frame. The
 * replay in progress is `ui.replay` in the store (set by ExplainedStep); without one they show the whole run.
 */
import { useMemo } from 'react';
import { emptyCounters, recordStep, type Counters } from '../core/metrics';
import type { StepRecord } from '../contract/stepRecord';
import type { ReplayState } from '../store/store';

/** How many of the run's steps the dashboard shows: all, or those before the replayed step (and it, once emitted). */
export function shownStepCount(steps: number, replay: ReplayState | null): number {
  return replay ? Math.min(steps, replay.step + (replay.emitted ? 1 : 0)) : steps;
}

/** The run's steps and counters as the dashboard shows them during `replay` (unchanged without one). */
export function useShownRun(
  steps: readonly StepRecord[],
  counters: Counters,
  replay: ReplayState | null,
): { steps: readonly StepRecord[]; counters: Counters; replaying: boolean } {
  const count = shownStepCount(steps.length, replay);
  return useMemo(() => {
    if (count === steps.length) return { steps, counters, replaying: replay !== null };
    const shown = steps.slice(0, count);
    return {
      steps: shown,
      counters: shown.reduce((sum, step) => recordStep(sum, step.counts), emptyCounters(counters.L)),
      replaying: true,
    };
  }, [steps, counters, count, replay]);
}
