import { useEffect, useRef } from 'react';
import { HowItWorks, HowItWorksButton } from './HowItWorks';
import { Charts } from './Charts';
import { Controls, RunBar } from './Controls';
import { CounterPanel } from './CounterPanel';
import { METHOD_IDS, methodEntry, VERIFIER_IDS } from '../core/verify';
import { HistoryView } from './HistoryView';
import { RaceView } from './RaceView';
import { ScorecardView } from './ScorecardView';
import { SweepView } from './SweepView';
import { VllmImportView } from './VllmImportView';
import { PanelBoundary } from './PanelBoundary';
import { ShortcutHelp, useShortcuts } from './Shortcuts';
import { SnapshotButton } from './SnapshotButton';
import { StatusBar } from './StatusBar';
import { OfflineStatus } from './OfflineStatus';
import { StepInspector } from './StepInspector';
import { TokenStream } from './TokenStream';
import { useSpec } from './storeContext';
import { maybeStartFirstTour } from './Tour';
import { TalkMode, TalkRecorder } from './TalkMode';
import { pageEmbed } from './embed';
import { VIEW_SELECTORS } from './views';
import { AudienceQr } from './AudienceQr';
import { themeOf } from './shareLink';

/** The page's embed, read once: the page's query does not change while it is open. */
const EMBED = pageEmbed();

export function App() {
  const presentation = useSpec((s) => s.ui.presentation);
  const setUi = useSpec((s) => s.setUi);
  const dashboard = useRef<HTMLDivElement>(null);
  useShortcuts();
  // The tour waits until the models have loaded (or failed): before that the status line is still growing
  // and would move the buttons its first stop points at.
  const settled = useSpec((s) => s.engine.status === 'ready' || s.engine.status === 'error');
  useEffect(() => {
    if (settled) requestAnimationFrame(maybeStartFirstTour);
  }, [settled]);
  // An embed shows its view alone: the view is marked, and the stylesheet hides everything else (app.css);
  // a wrong one shows its message alone.
  useEffect(() => {
    if (!EMBED) return;
    const root = document.documentElement;
    root.classList.add('embed');
    if ('error' in EMBED) return;
    root.classList.toggle('embed-controls', EMBED.controls);
    const mark = () => {
      const target = document.querySelector(VIEW_SELECTORS[EMBED.view]);
      if (target && !target.classList.contains('embed-target')) {
        document.querySelector('.embed-target')?.classList.remove('embed-target');
        target.classList.add('embed-target');
      }
    };
    // Some views appear only once a run has steps (the tree, the inspector).
    const observer = new MutationObserver(mark);
    observer.observe(document.body, { childList: true, subtree: true });
    mark();
    return () => observer.disconnect();
  }, []);
  const theme = useSpec((s) => s.ui.theme);
  useEffect(() => {
    const asked = themeOf(new URL(location.href));
    if (asked === 'light') setUi({ theme: asked });
  }, [setUi]);
  useEffect(() => {
    document.documentElement.classList.toggle('light', theme === 'light');
  }, [theme]);
  useEffect(() => {
    document.documentElement.classList.toggle('presentation', presentation);
    if (presentation && !document.fullscreenElement)
      void document.documentElement.requestFullscreen?.().catch(() => undefined);
    if (!presentation && document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
  }, [presentation]);
  return (
    <main className="shell">
      {EMBED && 'error' in EMBED && (
        <p className="error" role="alert" data-testid="embed-error">
          {EMBED.error}
        </p>
      )}
      <header>
        <h1>SpecLab</h1>
        <p className="tagline">
          Speculative decoding, run for real in your browser, with a JSON-schema mask at every step.
        </p>
        <PanelBoundary name="status">
          <StatusBar />
        </PanelBoundary>
        <OfflineStatus />
        <button
          type="button"
          className="presentation-toggle"
          aria-pressed={presentation}
          onClick={() => setUi({ presentation: !presentation })}
        >
          Presentation mode (P)
        </button>
        <button type="button" onClick={() => setUi({ help: true })}>
          Shortcuts (?)
        </button>
        <HowItWorksButton />
        <SnapshotButton dashboard={dashboard} />
        <button
          type="button"
          className="theme-toggle"
          aria-pressed={theme === 'light'}
          onClick={() => setUi({ theme: theme === 'light' ? 'dark' : 'light' })}
          data-testid="theme-toggle"
          aria-label="Light theme"
          title="The light projector theme (theme=light in the share link)"
        >
          Light
        </button>
        <AudienceQr />
        <TalkRecorder />
      </header>
      <TalkMode />
      <ShortcutHelp />
      <PanelBoundary name="How it works">
        <HowItWorks />
      </PanelBoundary>
      <PanelBoundary name="run bar">
        <RunBar />
      </PanelBoundary>
      <PanelBoundary name="controls">
        <Controls />
      </PanelBoundary>
      {/* What a slide shows: in presentation mode one screen, and what the snapshot captures. */}
      <div className="dashboard" ref={dashboard}>
        <PanelBoundary name="token stream">
          <TokenStream />
        </PanelBoundary>
        <PanelBoundary name="counters">
          <CounterPanel />
        </PanelBoundary>
        <PanelBoundary name="charts">
          <Charts />
        </PanelBoundary>
      </div>
      <PanelBoundary name="step inspector">
        <StepInspector />
      </PanelBoundary>
      <PanelBoundary name="race">
        <RaceView />
      </PanelBoundary>
      <PanelBoundary name="sweep">
        <SweepView />
      </PanelBoundary>
      <PanelBoundary name="scorecard">
        <ScorecardView />
      </PanelBoundary>
      <PanelBoundary name="run history">
        <HistoryView />
      </PanelBoundary>
      <PanelBoundary name="vLLM import">
        <VllmImportView />
      </PanelBoundary>
      <section aria-labelledby="methods-heading" className="methods-section">
        <h2 id="methods-heading">Verification methods</h2>
        <dl className="methods">
          {METHOD_IDS.map((id) => (
            <div key={id} data-method={id}>
              <dt>{methodEntry(id).label}</dt>
              <dd>{methodEntry(id).description}</dd>
            </div>
          ))}
        </dl>
        <p>
          Every method is lossless: the emitted tokens are distributed exactly as the masked target would sample them.
        </p>
        {VERIFIER_IDS.filter((id) => !(METHOD_IDS as readonly string[]).includes(id)).map((id) => (
          <p key={id} data-testid="method-not-offered" data-method={id}>
            Not offered here, in the shortcuts or in the race: {methodEntry(id).label} (<code>{id}</code>).{' '}
            {methodEntry(id).description}
          </p>
        ))}
      </section>
    </main>
  );
}
