import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { downloadTalk, sceneJson, talkJson, VIEWS, type ViewName } from '../store/talk';
import { download } from './download';
import type { SpecState } from '../store/store';
import { useSpec, useSpecStore } from './storeContext';
import { fixed, METHOD_LABELS } from './format';
import { VERDICT_TEXT } from '../core/verdict';
import { TALK_FOCUS } from './views';

/**
 * Talk mode (docs/presenting.md#talk-mode): opens a talk from `?talk=<url>` or a dropped file, shows the
 * scene counter and the caption (as text, never HTML), and scrolls each scene's view into sight. The keys
 * are in ./Shortcuts.tsx.
 */
export function TalkMode() {
  const store = useSpecStore();
  const talk = useSpec((s) => s.talk);
  const error = useSpec((s) => s.talkError);
  const leaveTalk = useSpec((s) => s.leaveTalk);
  // The talk named by `?talk=`, shown with a Cancel while it downloads.
  const [url] = useState(() => new URLSearchParams(location.search).get('talk'));
  const [downloading, setDownloading] = useState(url !== null);
  const talkDownload = useRef<AbortController | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    talkDownload.current = controller;
    let disposed = false;
    if (url !== null) {
      downloadTalk(new URL(url, location.href), controller.signal)
        .then((text) => store.getState().openTalk(text))
        .catch((reason: unknown) => {
          // An effect cleaned up (StrictMode's second mount, or the page leaving) says nothing.
          if (disposed) return;
          store.setState({
            talkError: `The talk at ${url} could not be read: ${reason instanceof Error ? reason.message : String(reason)}.`,
          });
        })
        .finally(() => {
          if (!disposed) setDownloading(false);
        });
    }
    const over = (event: DragEvent) => event.preventDefault();
    const drop = (event: DragEvent) => {
      const file = event.dataTransfer?.files[0];
      if (!file) return;
      event.preventDefault();
      void file.text().then((text) => store.getState().openTalk(text));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      disposed = true;
      controller.abort();
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, [store, url]);
  const scene = talk?.talk.scenes[talk.scene];
  const index = talk?.scene;
  const settled = useSpec(sceneSettled);
  const race = useSpec((s) => s.race);
  // The focus is placed once the scene has what it shows (its run stopped, its race's results), and again
  // whenever the window changes size; the caption bar's height is reserved below it.
  useEffect(() => {
    if (!scene) return;
    const root = document.documentElement;
    root.classList.add('talk');
    const place = () => {
      root.style.setProperty('--talk-bar', `${document.querySelector<HTMLElement>('.talk-bar')?.offsetHeight ?? 0}px`);
      const runBar = document.querySelector<HTMLElement>('.run-bar');
      root.style.setProperty(
        '--talk-top',
        `${runBar && getComputedStyle(runBar).position === 'sticky' ? runBar.offsetHeight : 0}px`,
      );
      const focus = settled ? document.querySelector(TALK_FOCUS[scene.view]) : null;
      if (!focus) return;
      // A focus taller than the room between the bars shows its top, under the run bar.
      const room =
        window.innerHeight -
        (parseFloat(root.style.getPropertyValue('--talk-bar')) || 0) -
        (parseFloat(root.style.getPropertyValue('--talk-top')) || 0);
      focus.scrollIntoView({ block: focus.getBoundingClientRect().height > room ? 'start' : 'nearest' });
    };
    place();
    window.addEventListener('resize', place);
    // Views that draw after the run stops (the step's explanation, a chart) move the focus: placed again then.
    const grown = new ResizeObserver(place);
    const shell = document.querySelector('.shell');
    if (settled && shell) grown.observe(shell);
    return () => {
      grown.disconnect();
      window.removeEventListener('resize', place);
      root.classList.remove('talk');
    };
  }, [scene, index, settled]);
  const entry =
    scene?.stop === 'race' && race.status === 'done'
      ? race.result?.entries.find((candidate) => candidate.method === scene.run.params.method)
      : undefined;
  return (
    <>
      {downloading && (
        <p className="talk-loading" role="status" data-testid="talk-loading">
          Loading the talk from {url}…{' '}
          <button type="button" onClick={() => talkDownload.current?.abort()}>
            Cancel
          </button>
        </p>
      )}
      {error !== null && (
        <p className="error talk-error" role="alert" data-testid="talk-error">
          {error}
        </p>
      )}
      {talk && scene && (
        <div
          className="talk-bar"
          data-testid="talk-bar"
          data-scene={talk.scene + 1}
          data-view={scene.view}
          data-settled={settled}
          data-shown-step={talk.found[talk.scene]}
        >
          <span className="talk-counter" data-testid="talk-counter">
            scene {talk.scene + 1} / {talk.talk.scenes.length}
          </span>
          <div className="talk-caption">
            <p data-testid="talk-caption">{scene.caption}</p>
            {talk.checking !== null && (
              <p className="talk-verdict" role="status" data-testid="talk-checking">
                Finding the step where each scene shows what its caption says…
              </p>
            )}
            {scene.stop === 'race' && race.status === 'running' && (
              // A race raced live (none recorded at a rehearsal) says how long the room will wait, as it starts.
              <p className="talk-verdict" role="status" data-testid="talk-race-time">
                No race recorded for this scene: racing every method live,{' '}
                {race.estimate
                  ? `about ${Math.max(1, Math.round(race.estimate.seconds))} s (${race.estimate.basis})`
                  : 'its time left in the run bar once the first sample is in'}
                .
              </p>
            )}
            {entry && (
              // A caption's claim about speed is read beside the race's own verdict for the scene's method.
              <p className="talk-verdict" data-testid="talk-verdict">
                {METHOD_LABELS[entry.method]} against AR:{' '}
                {entry.speedup
                  ? `${fixed(entry.speedup.median, 2)}×${entry.speedupInterval ? ` [${fixed(entry.speedupInterval.low, 2)}–${fixed(entry.speedupInterval.high, 2)}, 95%]` : ''}, `
                  : ''}
                {entry.verdict ? VERDICT_TEXT[entry.verdict] : 'the baseline'}
                {race.recordedAt !== undefined && ` (recorded ${new Date(race.recordedAt).toLocaleString()})`}
              </p>
            )}
          </div>
          <button type="button" onClick={leaveTalk}>
            Leave talk (Esc)
          </button>
        </div>
      )}
    </>
  );
}

/** Whether the scene on screen has what it shows: its run stopped where the scene says, or its race's results. */
function sceneSettled(state: SpecState): boolean {
  const talk = state.talk;
  const scene = talk?.talk.scenes[talk.scene];
  if (!talk || !scene || talk.pending) return false;
  if (scene.stop === 'race') return state.race.status === 'done';
  return (
    state.run.status === 'done' ||
    (state.run.status === 'paused' && talk.stopAt !== null && state.run.steps.length >= talk.stopAt)
  );
}

/** "Add to talk": the run as it stands becomes a scene; "Download talk" saves the scenes added as a talk file. */
export function TalkRecorder() {
  const current = useSpec(
    useShallow((s) => ({
      params: s.params,
      preset: s.preset,
      provider: s.provider,
      presentation: s.ui.presentation,
      steps: s.run.steps.length,
      status: s.run.status,
    })),
  );
  const pairLabel = useSpec((s) => s.pair.label);
  const [scenes, setScenes] = useState<Record<string, unknown>[]>([]);
  const [view, setView] = useState<ViewName>('output');
  const add = () => {
    const pair = pairLabel.includes('float32') ? 'bundled-float32' : 'bundled';
    const stop = current.status === 'paused' && current.steps > 0 ? [current.steps] : 'end';
    setScenes([
      ...scenes,
      sceneJson({
        caption: '',
        run: { params: current.params, preset: current.preset },
        pair,
        provider: current.provider,
        presentation: current.presentation,
        stop,
        view,
      }),
    ]);
  };
  return (
    <span className="talk-recorder">
      <label>
        View{' '}
        <select value={view} onChange={(event) => setView(event.target.value as ViewName)}>
          {VIEWS.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      <button type="button" onClick={add} data-testid="add-to-talk">
        Add to talk ({scenes.length})
      </button>
      <button
        type="button"
        disabled={scenes.length === 0}
        onClick={() =>
          download('speclab-talk.json', new Blob([talkJson('My SpecLab talk', scenes)], { type: 'application/json' }))
        }
      >
        Download talk
      </button>
    </span>
  );
}
