import { useEffect, useState, type KeyboardEvent } from 'react';
import { KEY_PROMPT, PHASES, type Frame } from './playback';

const SPEEDS: readonly { label: string; ms: number }[] = [
  { label: 'slow (3 s a frame)', ms: 3000 },
  { label: 'medium (1.5 s)', ms: 1500 },
  { label: 'fast (0.6 s)', ms: 600 },
];

/**
 * "Play this step": walks the frames of a recorded step at the presenter's speed; → or Space (with the
 * player focused) and ← step through them by hand, Home and End jump, Escape leaves the replay.
 */
export function StepPlayer(props: {
  frames: readonly Frame[];
  frame: number | null;
  setFrame: (frame: number | null) => void;
}) {
  const { frames, frame, setFrame } = props;
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(SPEEDS[1]?.ms ?? 1500);
  const current = frame === null ? null : frames[frame];
  const last = frames.length - 1;

  useEffect(() => {
    if (!playing) return;
    const next = frame === null ? 0 : frame + 1;
    const timer = setTimeout(
      () => {
        setFrame(Math.min(next, last));
        if (next >= last) setPlaying(false);
      },
      frame === null ? 0 : speed,
    );
    return () => clearTimeout(timer);
  }, [playing, frame, last, speed, setFrame]);

  const go = (to: number) => {
    setPlaying(false);
    setFrame(Math.max(0, Math.min(last, to)));
  };
  const onKey = (event: KeyboardEvent) => {
    const next = () => go(frame === null ? 0 : frame + 1);
    const keys: Record<string, () => void> = {
      ArrowRight: next,
      ArrowLeft: () => go(frame === null ? 0 : frame - 1),
      Home: () => go(0),
      End: () => go(last),
      Escape: () => {
        setPlaying(false);
        setFrame(null);
      },
    };
    // Space on the player itself steps the replay (a clicker's "next"), never the run; on a button of the
    // player it presses that button, as everywhere.
    if (event.target === event.currentTarget) keys[' '] = next;
    const action = keys[event.key];
    if (!action) return;
    // Kept from the app's global shortcuts (→ would run one more engine step).
    event.stopPropagation();
    event.preventDefault();
    action();
  };

  return (
    <div
      className="step-player"
      role="group"
      aria-label="Play this step"
      tabIndex={0}
      onKeyDown={onKey}
      data-testid="step-player"
      data-phase={current?.phase ?? 'off'}
      data-frame={frame ?? -1}
    >
      <div className="player-controls">
        <button
          type="button"
          onClick={() => {
            if (playing) setPlaying(false);
            else {
              if (frame !== null && frame >= last) setFrame(null);
              setPlaying(true);
            }
          }}
        >
          {playing ? 'Pause replay' : frame === null || frame >= last ? 'Play this step' : 'Resume replay'}
        </button>
        <button
          type="button"
          onClick={() => go(frame === null ? 0 : frame - 1)}
          disabled={frame === null || frame === 0}
          aria-label="Previous phase"
        >
          ◀ Previous
        </button>
        <button
          type="button"
          onClick={() => go(frame === null ? 0 : frame + 1)}
          disabled={frame !== null && frame >= last}
          aria-label="Next phase"
        >
          Next ▶
        </button>
        <button
          type="button"
          onClick={() => {
            setPlaying(false);
            setFrame(null);
          }}
          disabled={frame === null}
        >
          Show all
        </button>
        <label className="inline">
          Speed
          <select value={speed} onChange={(event) => setSpeed(Number(event.target.value))}>
            {SPEEDS.map((option) => (
              <option key={option.ms} value={option.ms}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <ol className="phase-track" aria-label="Phases">
          {PHASES.map((phase) => (
            <li
              key={phase}
              className={current?.phase === phase ? 'current' : undefined}
              aria-current={current?.phase === phase ? 'step' : undefined}
            >
              {phase === 'grammar' ? 'grammar check' : phase === 'scoring' ? 'target scoring' : phase}
            </li>
          ))}
        </ol>
      </div>
      <p className="caption" aria-live="polite" data-testid="step-caption">
        {current ? (
          <>
            {`${(frame ?? 0) + 1}/${frames.length} · ${current.caption}`}
            {current.question && <span className="key-prompt"> {KEY_PROMPT}</span>}
          </>
        ) : (
          'Replay this recorded step phase by phase (it never changes what was generated). With the player focused, → or Space and ← step through the phases.'
        )}
      </p>
    </div>
  );
}
