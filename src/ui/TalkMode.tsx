import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { downloadTalk, sceneJson, talkJson, VIEWS, type ViewName } from '../store/talk';
import { download } from './download';
import { useSpec, useSpecStore } from './storeContext';
import { VIEW_SELECTORS } from './views';

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
          store.setState({ talkError: `The talk at ${url} could not be read: ${reason instanceof Error ? reason.message : String(reason)}.` });
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
  useEffect(() => {
    if (scene) document.querySelector(VIEW_SELECTORS[scene.view])?.scrollIntoView({ block: 'nearest' });
  }, [scene, index]);
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
        <div className="talk-bar" data-testid="talk-bar" data-scene={talk.scene + 1} data-view={scene.view}>
          <span className="talk-counter" data-testid="talk-counter">
            scene {talk.scene + 1} / {talk.talk.scenes.length}
          </span>
          <p className="talk-caption" data-testid="talk-caption">
            {scene.caption}
          </p>
          <button type="button" onClick={leaveTalk}>
            Leave talk (Esc)
          </button>
        </div>
      )}
    </>
  );
}

/** "Add to talk": the run as it stands becomes a scene; "Download talk" saves the scenes added as a talk file. */
export function TalkRecorder() {
  const current = useSpec(useShallow((s) => ({ params: s.params, preset: s.preset, provider: s.provider, presentation: s.ui.presentation, steps: s.run.steps.length, status: s.run.status })));
  const pairLabel = useSpec((s) => s.pair.label);
  const [scenes, setScenes] = useState<Record<string, unknown>[]>([]);
  const [view, setView] = useState<ViewName>('output');
  const add = () => {
    const pair = pairLabel.includes('float32') ? 'bundled-float32' : 'bundled';
    const stop = current.status === 'paused' && current.steps > 0 ? [current.steps] : 'end';
    setScenes([...scenes, sceneJson({ caption: '', run: { params: current.params, preset: current.preset }, pair, provider: current.provider, presentation: current.presentation, stop, view })]);
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
      <button type="button" disabled={scenes.length === 0} onClick={() => download('speclab-talk.json', new Blob([talkJson('My SpecLab talk', scenes)], { type: 'application/json' }))}>
        Download talk
      </button>
    </span>
  );
}
