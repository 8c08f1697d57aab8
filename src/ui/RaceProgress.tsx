import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SpecState } from '../store/store';
import { useSpec } from './storeContext';

/** A race in flight as the room reads it: its samples done, and the time left (or, before a sample is in, expected). */
interface RaceProgressState {
  done: number;
  total: number;
  text: string;
}

/**
 * The race in flight, null when none runs: "race: 23 of 42 samples, ~40 s left", the time left at the pace so far
 * once a sample is in; before that, the race's estimate ("about 55 s at the last run's 41.2 tokens/s") or, with no
 * speed measured yet, that it is being estimated.
 */
function useRaceProgress(): RaceProgressState | null {
  const race = useSpec(
    useShallow((s: SpecState) => ({
      id: s.race.id,
      status: s.race.status,
      done: s.race.done,
      total: s.race.total,
      estimate: s.race.estimate,
    })),
  );
  const running = race.status === 'running';
  // Seconds since this race began, ticked once a second while it runs.
  const [elapsed, setElapsed] = useState({ id: -1, seconds: 0 });
  useEffect(() => {
    if (!running) return;
    const started = performance.now();
    const timer = setInterval(() => setElapsed({ id: race.id, seconds: (performance.now() - started) / 1000 }), 1000);
    return () => clearInterval(timer);
  }, [running, race.id]);
  if (!running) return null;
  const seconds = elapsed.id === race.id ? elapsed.seconds : 0;
  const left = race.done > 0 && race.total > 0 && seconds > 0 ? (seconds / race.done) * (race.total - race.done) : null;
  const time =
    left !== null
      ? `~${Math.max(1, Math.round(left))} s left`
      : race.estimate
        ? `about ${Math.max(1, Math.round(race.estimate.seconds))} s ${race.estimate.basis}`
        : 'estimating the time left';
  return { done: race.done, total: race.total, text: `race: ${race.done} of ${race.total || '?'} samples, ${time}` };
}

/** The race's progress in the run bar, which stays in view while presenting. */
export function RaceProgress() {
  const progress = useRaceProgress();
  if (!progress) return null;
  return (
    <span className="run-waiting" data-testid="race-progress" role="status">
      {progress.text}
    </span>
  );
}

/**
 * The race's progress in the charts' place while it runs, where the room looks: the lecture's run stays on
 * screen (output, counters), and its charts come back when the race ends.
 */
export function RaceInCharts() {
  const progress = useRaceProgress();
  if (!progress) return null;
  return (
    <section className="charts race-live" aria-labelledby="charts-heading" data-testid="race-live">
      <h2 id="charts-heading">Charts: a race is running</h2>
      <p className="race-live-progress">{progress.text}</p>
      <progress
        max={Math.max(progress.total, 1)}
        value={progress.done}
        aria-label="race samples done"
        className="race-live-bar"
      />
      <p className="chart-note-dark">
        Every method on the same prompt and seeds, timed fairly; the results go to the race below. The run above is
        kept, and its charts come back when the race ends. <strong>Cancel race</strong> in the run bar stops it.
      </p>
    </section>
  );
}
