/**
 * The engine and its runs: loading a pair (which provider, verifier and pair), a run's life (start, pause,
 * single steps, slow motion, reset), the session's scorecard of completions, and the screen's view settings.
 */
import { EMPTY_SCORECARD } from '../core/metrics';
import { BUNDLED_PAIR } from '../contract/modelPairs';
import { checkForm } from './formSlice';
import type { StoreAccess } from './slice';
import { FRESH_PARAMS, freshRun, type SpecActions, type SpecState } from './state';

type RunSlice = Pick<
  SpecState,
  'engine' | 'provider' | 'verifier' | 'pair' | 'stepDelayMs' | 'run' | 'compiling' | 'scorecard' | 'ui'
> &
  Pick<
    SpecActions,
    | 'load'
    | 'setProvider'
    | 'setVerifier'
    | 'setPair'
    | 'cancelLoad'
    | 'start'
    | 'togglePause'
    | 'step'
    | 'reset'
    | 'setStepDelay'
    | 'setUi'
  >;

/** Starts a run of the form's parameters once the models are ready and the form is valid; `paused` waits for Step. */
export function beginRun(access: StoreAccess, paused: boolean): void {
  const { set, get, effects } = access;
  const { stepDelayMs, engine } = get();
  if (engine.status !== 'ready' || !checkForm(access)) return;
  const { params } = get();
  const id = access.nextRunId();
  // The engine stops a race in flight at its next step boundary when a run arrives.
  if (get().race.status === 'running') set({ race: { ...get().race, status: 'cancelled' } });
  set({ run: freshRun(id, params, paused ? 'paused' : 'running'), ui: { ...get().ui, selectedStep: null } });
  effects.sendAfterRender({ type: 'run', runId: id, params, paused, stepDelayMs });
}

/**
 * Stops a compile that ran too long (`message` says why) or that Reset abandoned (null): the engine is restarted
 * and the pair reloaded, and the run, race or sweep that was compiling ends.
 */
export function abandonCompile({ set, get, effects }: StoreAccess, message: string | null): void {
  const { compiling, run, race } = get();
  effects.stopCompileWatch();
  if (!compiling) return;
  effects.restartEngine();
  set({ compiling: null });
  if (message !== null && compiling.runId === run.id) set({ run: { ...run, status: 'error', error: message } });
  if (message !== null && compiling.runId === race.id) set({ race: { ...race, status: 'error', error: message } });
  if (compiling.runId === race.id && race.status === 'running')
    set({ race: { ...get().race, status: message === null ? 'cancelled' : 'error' } });
  const { sweep } = get();
  if (compiling.runId === sweep.id && sweep.status === 'running')
    set({ sweep: { ...sweep, status: message === null ? 'cancelled' : 'error', error: message } });
  get().load();
}

export function runSlice(access: StoreAccess): RunSlice {
  const { set, get, effects } = access;
  return {
    engine: { status: 'idle', progress: {}, phase: null, info: null, error: null, warm: false },
    provider: 'auto',
    verifier: 'auto',
    pair: BUNDLED_PAIR,
    stepDelayMs: 0,
    run: freshRun(0, FRESH_PARAMS),
    compiling: null,
    scorecard: EMPTY_SCORECARD,
    ui: {
      presentation: false,
      theme: 'dark',
      showInvalid: false,
      selectedStep: null,
      help: false,
      howItWorks: null,
      replay: null,
    },
    load() {
      if (get().compiling) return abandonCompile(access, null);
      set({ engine: { status: 'loading', progress: {}, phase: null, info: null, error: null, warm: false } });
      effects.load(get().pair, get().provider, get().verifier);
    },
    cancelLoad() {
      get().setPair(BUNDLED_PAIR);
    },
    setProvider(provider) {
      set({ provider });
      get().load();
    },
    setVerifier(verifier) {
      set({ verifier });
      get().load();
    },
    setPair(pair) {
      set({ pair });
      get().load();
    },
    start() {
      const { run } = get();
      if (run.status === 'paused') {
        effects.send({ type: 'resume' });
        set({ run: { ...run, status: 'running' } });
      } else beginRun(access, false);
    },
    togglePause() {
      const { run } = get();
      if (run.status === 'running') {
        effects.send({ type: 'pause' });
        set({ run: { ...run, status: 'paused' } });
      } else if (run.status === 'paused') get().start();
      else beginRun(access, false);
    },
    step() {
      const { run } = get();
      if (run.status === 'paused') effects.send({ type: 'step' });
      else if (run.status !== 'running') beginRun(access, true);
    },
    reset() {
      const { compiling, race } = get();
      if (compiling) abandonCompile(access, null);
      else effects.send({ type: 'cancel' });
      // A race stops at its next step boundary, keeping the rows it finished.
      if (race.status === 'running') set({ race: { ...get().race, status: 'cancelled' } });
      set({ run: freshRun(access.nextRunId(), get().params), ui: { ...get().ui, selectedStep: null } });
    },
    setStepDelay(ms) {
      set({ stepDelayMs: ms });
      effects.send({ type: 'delay', stepDelayMs: ms });
    },
    setUi(ui) {
      set({ ui: { ...get().ui, ...ui } });
    },
  };
}
