/**
 * The app's state, framework-free (zustand's vanilla store); React only subscribes to it. Actions send
 * messages to the engine (a Web Worker behind `EngineTransport`); the engine's events come back through
 * `receive` and are folded into state here, one batch of step records per update.
 */
import { createStore } from 'zustand/vanilla';
import {
  emptyCounters,
  recordStep,
  recordCompletion,
  EMPTY_SCORECARD,
  type Counters,
  type Scorecard,
  type CompletionKind,
} from '../core/metrics';
import { SCHEMA_LIMITS, type LimitedParam } from '../contract/limits';
import { DEFAULT_RACE_TOKEN_BUDGET, type RaceResult } from '../contract/bench';
import { BUNDLED_PAIR, BUNDLED_PAIR_IDS } from '../contract/modelPairs';
import type {
  EngineInfo,
  ExecutionProvider,
  FromWorker,
  LoadPhase,
  NetworkTimeouts,
  PairSource,
  ToWorker,
  VerifierChoice,
} from '../contract/protocol';
import { presetParams, type RunParams } from '../contract/runParams';
import type { DrafterId } from '../core/draftLaw';
import type { RunReport } from '../contract/runReport';
import type { StepRecord } from '../contract/stepRecord';
import { parseNumber, validateRunParams, type FieldErrors, type RunField } from '../contract/validation';
import { SCHEMA_PRESETS } from '../contract/presets';
import type { DecodedShare, PresetChoice } from './shareUrl';
import { parseTalk, type Talk } from './talk';
import { benchSlice, receiveBench, type BenchActions, type BenchState } from './benchSlice';
import { markPhase } from '../core/timeline';
import { hasOwnKey, ownValue } from '../contract/ownKeys';
import { encodeShare } from './shareUrl';

export interface EngineTransport {
  post(message: ToWorker): void;
  /** Stops the engine at once (a compile cannot be interrupted) and starts a fresh one, with no pair loaded. */
  restart(): void;
}

export interface StoreOptions {
  /** Bounds on every network read of a load; the defaults unless a test shortens them. */
  network?: NetworkTimeouts;
  /** A schema compile running longer than this is stopped (SCHEMA_LIMITS.compileSeconds unless a test says otherwise). */
  compileBudgetMs?: number;
  /** Test hook (app.tsx, under ?test-hooks&hardware-adapter): every load treats the WebGPU adapter as hardware. */
  assumeHardwareAdapter?: boolean;
}

export type RunStatus = 'idle' | 'running' | 'paused' | 'done' | 'error';

/** The parts of the "How it works" panel, in reading order. */
export const HELP_TOPICS = [
  'speculative',
  'residual',
  'verification',
  'drafts',
  'counters',
  'mean-length',
  'histogram',
  'inspector',
  'heads',
] as const;
export type HelpTopic = (typeof HELP_TOPICS)[number];

/** A replay in progress: the step replayed (its index in the run) and whether its emission frame is shown. */
export interface ReplayState {
  step: number;
  emitted: boolean;
}

export interface SpecState {
  engine: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    progress: Record<string, { loaded: number; total: number | null }>;
    /** The stage a load is in; null before the first byte is asked for. */
    phase: LoadPhase | null;
    info: EngineInfo | null;
    error: string | null;
    /** Whether the worker's untimed warm-up run, which follows "ready", is over. */
    warm: boolean;
  };
  provider: ExecutionProvider | 'auto';
  verifier: VerifierChoice;
  pair: PairSource;
  preset: PresetChoice;
  params: RunParams;
  stepDelayMs: number;
  /** `params`: what this run was started with; the form may have changed since, for the next run. */
  run: {
    id: number;
    status: RunStatus;
    params: RunParams;
    steps: StepRecord[];
    counters: Counters;
    report: RunReport | null;
    error: string | null;
  };
  /** A fair race: `done` of `total` runs (warm-ups included); the result once every round has run. */
  race: {
    id: number;
    status: 'idle' | 'running' | 'done' | 'cancelled' | 'error';
    repeats: number;
    tokenBudget: number;
    done: number;
    total: number;
    result: RaceResult | null;
    error: string | null;
    recordedAt?: number;
  };
  /**
   * The number fields as typed (kept as text until they are checked, on blur or Run) and every field's
   * message. Run stays disabled while any message stands; a message goes when its cause is fixed.
   */
  form: { text: Partial<Record<LimitedParam, string>>; errors: FieldErrors };
  /** The schema compile in flight, which Reset or the time budget can abandon. */
  compiling: { runId: number; properties: number } | null;
  /** Schema-valid, invalid, truncated and dead-end completions over this session's runs. */
  scorecard: Scorecard;
  /** howItWorks: the open part of the "How it works" panel, or null when it is closed. */
  /** `theme`: the light projector theme or the default dark one (docs/presenting.md#presentation-mode). */
  /** replay: the step "Play this step" is replaying, if any (src/ui/replayView.ts); the dashboard shows the run before it. */
  ui: {
    presentation: boolean;
    theme: 'dark' | 'light';
    showInvalid: boolean;
    selectedStep: number | null;
    help: boolean;
    howItWorks: HelpTopic | null;
    replay: ReplayState | null;
  };
  /** A run to start once the models are ready (a shared link). */
  pendingAutoRun: boolean;
  /** The step (from 1) an embed's `&step=` or a talk scene's `step` shows: selected once a run reaches it; null: the latest. */
  stepToShow: number | null;
  /**
   * Talk mode (./talk.ts): the open talk and the scene on screen, or null; `stop` indexes the scene's list
   * of step counts and `stopAt` is the count its run pauses at (null: it runs to the end, or races);
   * `pending` starts the scene once the models are ready.
   */
  talk: { talk: Talk; scene: number; stop: number; stopAt: number | null; pending: boolean } | null;
  /** Why the last talk file could not be opened. */
  talkError: string | null;
}

export interface SpecActions {
  load(): void;
  setProvider(provider: ExecutionProvider | 'auto'): void;
  setVerifier(verifier: VerifierChoice): void;
  setPair(pair: PairSource): void;
  setParams(params: Partial<RunParams>): void;
  /** A number field's text as typed: not checked until `commitField` (blur) or Run. */
  setFieldText(name: LimitedParam, text: string): void;
  commitField(name: LimitedParam): void;
  /** Stops the load in flight and goes back to the bundled pair. */
  cancelLoad(): void;
  choosePreset(preset: PresetChoice): void;
  setSchemaText(text: string): void;
  start(): void;
  togglePause(): void;
  step(): void;
  reset(): void;
  startRace(): void;
  setRaceRepeats(repeats: number): void;
  setRaceTokenBudget(tokenBudget: number): void;
  setStepDelay(ms: number): void;
  setUi(ui: Partial<SpecState['ui']>): void;
  applyShared(shared: DecodedShare): void;
  /** Opens a talk file's text at its first scene, or says why it cannot (`talkError`). */
  openTalk(source: string): void;
  /** Shows scene `index` (clamped to the talk): its pair, provider, layout and run, paused at its `stop`th step count (the last when `stop` is past it). */
  goToScene(index: number, stop?: number): void;
  /** The clicker's "next": on to the scene's next step count while it is paused at one, else the next scene. */
  talkNext(): void;
  /** The clicker's "back": the scene's step count before (its seeded run again, so the same tokens), else the scene before at its last. */
  talkPrevious(): void;
  leaveTalk(): void;
  receive(message: FromWorker): void;
}

export type SpecStore = ReturnType<typeof createSpecStore>;

/** Past any scene's last stop: goToScene clamps it to the last. */
const MAX_STOPS_INDEX = Number.MAX_SAFE_INTEGER;

/** Timed rounds a race runs after its warm-up, unless told otherwise. */
export const DEFAULT_RACE_REPEATS = 5;

const FIRST_PRESET = SCHEMA_PRESETS[1] ?? (SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number]);

/**
 * What a fresh visit drafts with: the schema's forced text for free, then the draft model. Measured on this CPU
 * it is level with the draft model alone over ar and ahead of it over ar+jump-forward, and faster than head+grammar
 * over ar in both runs of issue 43's bench (docs/performance.md#the-draft-heads-goals-issue-43-against-ar-and-arjump-forward). A
 * share link or talk scene without a drafter still means `model` (shareUrl.ts), so old links replay bit-identically.
 */
export const APP_DEFAULT_DRAFTER: DrafterId = 'model+grammar';

const FRESH_PARAMS = presetParams(FIRST_PRESET, {
  drafter: APP_DEFAULT_DRAFTER,
  seed: FIRST_PRESET.lecture.seed,
  temperature: FIRST_PRESET.lecture.temperature,
});

/**
 * A talk's race scene, once raced, is kept in localStorage under everything its figures depend on (the run, the
 * pair, the provider asked for, the rounds and the tokens per round), so that the talk shows it at once on the
 * next visit (docs/presenting.md#talk-mode): a rehearsal races, the talk replays the recorded rows, and says when
 * they were recorded.
 */
const RACE_RECORD_PREFIX = 'speclab-race:';
interface RaceRecord {
  at: number;
  result: RaceResult;
}
function raceRecordKey(state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'race'>): string {
  return `${RACE_RECORD_PREFIX}${state.pair.label}|${state.provider}|${state.race.repeats}|${state.race.tokenBudget}|${encodeShare({ params: state.params, preset: state.preset })}`;
}
function readRaceRecord(key: string): RaceRecord | null {
  try {
    const record: unknown = JSON.parse(localStorage.getItem(key) ?? 'null');
    if (typeof record !== 'object' || record === null || !('at' in record) || !('result' in record)) return null;
    const { at, result } = record as { at: unknown; result: unknown };
    const entries = typeof result === 'object' && result !== null && 'entries' in result ? result.entries : null;
    return typeof at === 'number' && Array.isArray(entries) && entries.length > 0 ? (record as RaceRecord) : null;
  } catch {
    // No storage (a private window, a sandboxed frame) or a damaged entry: the scene races afresh.
    return null;
  }
}
function writeRaceRecord(key: string, result: RaceResult): void {
  try {
    localStorage.setItem(key, JSON.stringify({ at: Date.now(), result } satisfies RaceRecord));
  } catch {
    // Storage full or refused: the race is shown, just not kept.
  }
}

const freshRun = (id: number, params: RunParams, status: RunStatus = 'idle') => ({
  id,
  status,
  params,
  steps: [],
  counters: emptyCounters(params.L),
  report: null,
  error: null,
});

/** A copy of `record` without `key`. */
const omit = <T extends object>(record: T, key: string): T =>
  Object.fromEntries(Object.entries(record).filter(([name]) => name !== key)) as T;

/** Messages that no longer apply to `params`: a message goes once its field is fixed. Number fields being typed keep theirs. */
function remainingErrors(params: RunParams, form: SpecState['form']): FieldErrors {
  const checked = validateRunParams(params);
  const still: FieldErrors = {};
  for (const [name, message] of Object.entries(form.errors) as [RunField, string][]) {
    if (hasOwnKey(form.text, name)) still[name] = message;
    else if (!checked.ok && checked.errors[name]) still[name] = checked.errors[name];
  }
  return still;
}

export function createSpecStore(transport: EngineTransport, options: StoreOptions = {}) {
  let nextRunId = 1;
  let compileTimer: ReturnType<typeof setTimeout> | undefined;
  const compileBudgetMs = options.compileBudgetMs ?? SCHEMA_LIMITS.compileSeconds * 1000;
  return createStore<SpecState & SpecActions & BenchState & BenchActions>()((set, get) => {
    const send = (message: ToWorker) => transport.post(message);
    /**
     * Checks every field (the typed text first) before anything reaches the engine; false, with each
     * message next to its field, when something is wrong.
     */
    const checkForm = (): boolean => {
      const { form, params } = get();
      let next = { ...params };
      const errors: FieldErrors = {};
      for (const [name, text] of Object.entries(form.text) as [LimitedParam, string][]) {
        const parsed = parseNumber(name, text);
        if ('value' in parsed) next = { ...next, [name]: parsed.value };
        else errors[name] = parsed.error;
      }
      const checked = validateRunParams(next);
      if (!checked.ok) Object.assign(errors, checked.errors, errors);
      const text = Object.fromEntries(Object.entries(form.text).filter(([name]) => hasOwnKey(errors, name)));
      set({ params: next, form: { text, errors } });
      return Object.keys(errors).length === 0;
    };
    /** Stops a compile that ran too long or that Reset abandoned: the engine is restarted and the pair reloaded. */
    const abandonCompile = (message: string | null) => {
      const { compiling, run, race } = get();
      clearTimeout(compileTimer);
      if (!compiling) return;
      transport.restart();
      set({ compiling: null });
      if (message !== null && compiling.runId === run.id) set({ run: { ...run, status: 'error', error: message } });
      if (message !== null && compiling.runId === race.id) set({ race: { ...race, status: 'error', error: message } });
      if (compiling.runId === race.id && race.status === 'running')
        set({ race: { ...get().race, status: message === null ? 'cancelled' : 'error' } });
      const { sweep } = get();
      if (compiling.runId === sweep.id && sweep.status === 'running')
        set({ sweep: { ...sweep, status: message === null ? 'cancelled' : 'error', error: message } });
      get().load();
    };
    const replaceParams = (next: RunParams) => {
      const { form } = get();
      set({ params: next, form: { ...form, errors: remainingErrors(next, form) } });
    };
    const beginRun = (paused: boolean) => {
      const { stepDelayMs, engine } = get();
      if (engine.status !== 'ready' || !checkForm()) return;
      const { params } = get();
      const id = nextRunId++;
      // The engine stops a race in flight at its next step boundary when a run arrives.
      if (get().race.status === 'running') set({ race: { ...get().race, status: 'cancelled' } });
      set({ run: freshRun(id, params, paused ? 'paused' : 'running'), ui: { ...get().ui, selectedStep: null } });
      send({ type: 'run', runId: id, params, paused, stepDelayMs });
    };
    /** The open scene's run: a race, or a seeded run paused at its step or run to the end. */
    const startScene = () => {
      const talk = get().talk;
      const scene = talk?.talk.scenes[talk.scene];
      if (!talk || !scene) return;
      if (scene.stop === 'race') {
        const record = readRaceRecord(raceRecordKey(get()));
        if (record)
          set({
            race: {
              ...get().race,
              id: nextRunId++,
              status: 'done',
              done: 0,
              total: 0,
              result: record.result,
              error: null,
              recordedAt: record.at,
            },
            run: freshRun(nextRunId++, get().params),
          });
        else get().startRace();
      } else beginRun(Array.isArray(scene.stop));
      // After the scene's run or race has replaced the last scene's, so that the last one never reads as this one's.
      set({ talk: { ...talk, pending: false } });
    };
    return {
      engine: { status: 'idle', progress: {}, phase: null, info: null, error: null, warm: false },
      provider: 'auto',
      verifier: 'auto',
      pair: BUNDLED_PAIR,
      preset: FIRST_PRESET.id,
      params: FRESH_PARAMS,
      stepDelayMs: 0,
      run: freshRun(0, FRESH_PARAMS),
      race: {
        id: 0,
        status: 'idle',
        repeats: DEFAULT_RACE_REPEATS,
        tokenBudget: DEFAULT_RACE_TOKEN_BUDGET,
        done: 0,
        total: 0,
        result: null,
        error: null,
      },
      ...benchSlice(set, get, send),
      // A sweep compiling its schema cannot hear a cancel (wasm cannot be interrupted): the compile is abandoned.
      cancelBench() {
        if (get().compiling?.runId === get().sweep.id) abandonCompile(null);
        else send({ type: 'cancel' });
      },
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
      pendingAutoRun: false,
      stepToShow: null,
      talk: null,
      talkError: null,
      form: { text: {}, errors: {} },
      compiling: null,

      load() {
        if (get().compiling) return abandonCompile(null);
        set({ engine: { status: 'loading', progress: {}, phase: null, info: null, error: null, warm: false } });
        send({
          type: 'load',
          source: get().pair,
          provider: get().provider,
          verifier: get().verifier,
          ...(options.network ? { network: options.network } : {}),
          ...(options.assumeHardwareAdapter ? { assumeHardwareAdapter: true } : {}),
        });
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
      setParams(params) {
        replaceParams({ ...get().params, ...params });
      },
      setFieldText(name, text) {
        const { form } = get();
        let errors = form.errors;
        // A standing message follows the typing, so it goes as soon as the text is right; a new one waits for blur.
        if (errors[name] !== undefined) {
          const parsed = parseNumber(name, text);
          errors = 'value' in parsed ? omit(errors, name) : { ...errors, [name]: parsed.error };
        }
        set({ form: { text: { ...form.text, [name]: text }, errors } });
      },
      commitField(name) {
        const { form, params } = get();
        const text = form.text[name];
        if (text === undefined) return;
        const parsed = parseNumber(name, text);
        if ('error' in parsed)
          return set({ form: { text: form.text, errors: { ...form.errors, [name]: parsed.error } } });
        set({
          params: { ...params, [name]: parsed.value },
          form: { text: omit(form.text, name), errors: omit(form.errors, name) },
        });
      },
      choosePreset(preset) {
        const found = SCHEMA_PRESETS.find((candidate) => candidate.id === preset);
        const { params } = get();
        if (found) {
          const rest: RunParams = { ...params };
          delete rest.trigger;
          set({ preset });
          // A preset brings its lecture's seed and temperature (the step the lecture shows: src/contract/presets.ts).
          replaceParams({
            ...rest,
            prompt: found.prompt,
            schemaText: JSON.stringify(found.schema, null, 2),
            seed: found.lecture.seed,
            temperature: found.lecture.temperature,
            ...(found.trigger === undefined ? {} : { trigger: found.trigger }),
          });
        } else {
          set({ preset });
          get().setParams({ schemaText: preset === 'free' ? null : (params.schemaText ?? '{\n  "type": "object"\n}') });
        }
      },
      setSchemaText(text) {
        set({ preset: 'custom' });
        get().setParams({ schemaText: text });
      },
      start() {
        const { run } = get();
        if (run.status === 'paused') {
          send({ type: 'resume' });
          set({ run: { ...run, status: 'running' } });
        } else beginRun(false);
      },
      togglePause() {
        const { run } = get();
        if (run.status === 'running') {
          send({ type: 'pause' });
          set({ run: { ...run, status: 'paused' } });
        } else if (run.status === 'paused') get().start();
        else beginRun(false);
      },
      step() {
        const { run } = get();
        if (run.status === 'paused') send({ type: 'step' });
        else if (run.status !== 'running') beginRun(true);
      },
      reset() {
        const { compiling, race } = get();
        if (compiling) abandonCompile(null);
        else send({ type: 'cancel' });
        // A race stops at its next step boundary, keeping the rows it finished.
        if (race.status === 'running') set({ race: { ...get().race, status: 'cancelled' } });
        set({ run: freshRun(nextRunId++, get().params), ui: { ...get().ui, selectedStep: null } });
      },
      startRace() {
        if (get().engine.status !== 'ready' || !checkForm()) return;
        const { repeats, tokenBudget } = get().race;
        const id = nextRunId++;
        // A run in flight or paused is cancelled by the race: its output goes, and it is not scored.
        set({
          race: { id, status: 'running', repeats, tokenBudget, done: 0, total: 0, result: null, error: null },
          run: freshRun(nextRunId++, get().params),
          ui: { ...get().ui, selectedStep: null },
        });
        send({ type: 'race', runId: id, params: get().params, repeats, tokenBudget });
      },
      setRaceRepeats(repeats) {
        set({ race: { ...get().race, repeats } });
      },
      setRaceTokenBudget(tokenBudget) {
        set({ race: { ...get().race, tokenBudget } });
      },
      setStepDelay(ms) {
        set({ stepDelayMs: ms });
        send({ type: 'delay', stepDelayMs: ms });
      },
      setUi(ui) {
        set({ ui: { ...get().ui, ...ui } });
      },
      applyShared({ preset, params, errors, text, setup, setupError }) {
        // A link with a bad field loads with the field marked and waits for the user; a good one runs.
        const valid = Object.keys(errors).length === 0 && setupError === undefined;
        set({ preset, params, form: { text, errors }, pendingAutoRun: valid });
        if (setupError !== undefined)
          set({ run: { ...get().run, status: 'error', error: `This link cannot be used as it is: ${setupError}.` } });
        if (setup) {
          const pair = ownValue(BUNDLED_PAIR_IDS, setup.pair) ?? BUNDLED_PAIR;
          const reload = pair.label !== get().pair.label || setup.provider !== get().provider;
          set({ pair, provider: setup.provider, ui: { ...get().ui, presentation: setup.presentation } });
          if (reload && get().engine.status !== 'idle') return get().load();
        }
        if (valid && get().engine.status === 'ready') {
          set({ pendingAutoRun: false });
          beginRun(false);
        }
      },
      openTalk(source) {
        const parsed = parseTalk(source);
        if ('error' in parsed) return set({ talkError: parsed.error });
        set({ talkError: null, talk: { talk: parsed.talk, scene: 0, stop: 0, stopAt: null, pending: false } });
        get().goToScene(0);
      },
      goToScene(index, stop = 0) {
        const talk = get().talk;
        if (!talk) return;
        const at = Math.min(Math.max(index, 0), talk.talk.scenes.length - 1);
        const scene = talk.talk.scenes[at];
        if (!scene) return;
        if (get().run.status === 'running' || get().run.status === 'paused' || get().race.status === 'running')
          get().reset();
        const pair = ownValue(BUNDLED_PAIR_IDS, scene.pair) ?? BUNDLED_PAIR;
        const reload =
          pair.label !== get().pair.label || scene.provider !== get().provider || get().engine.status === 'error';
        const stops = Array.isArray(scene.stop) ? scene.stop : [];
        const stopIndex = Math.min(stop, Math.max(stops.length - 1, 0));
        set({
          talk: { talk: talk.talk, scene: at, stop: stopIndex, stopAt: stops[stopIndex] ?? null, pending: true },
          ui: { ...get().ui, presentation: scene.presentation, selectedStep: null },
          stepToShow: scene.step ?? null,
          preset: scene.run.preset,
          params: scene.run.params,
          form: { text: {}, errors: {} },
          pair,
          provider: scene.provider,
          pendingAutoRun: false,
        });
        if (reload) get().load();
        else if (get().engine.status === 'ready') startScene();
      },
      talkNext() {
        const { talk, run } = get();
        if (!talk) return;
        const stop = talk.talk.scenes[talk.scene]?.stop;
        const next = Array.isArray(stop) ? stop[talk.stop + 1] : undefined;
        if (
          next !== undefined &&
          talk.stopAt !== null &&
          run.status === 'paused' &&
          !talk.pending &&
          run.steps.length >= talk.stopAt
        ) {
          // The same run steps on: the 'paused' handler asks for steps until the new count.
          set({ talk: { ...talk, stop: talk.stop + 1, stopAt: next } });
          send({ type: 'step' });
        } else if (talk.scene + 1 < talk.talk.scenes.length) get().goToScene(talk.scene + 1);
      },
      talkPrevious() {
        const talk = get().talk;
        if (!talk) return;
        if (talk.stop > 0) get().goToScene(talk.scene, talk.stop - 1);
        else if (talk.scene > 0) get().goToScene(talk.scene - 1, MAX_STOPS_INDEX);
      },
      leaveTalk() {
        set({ talk: null, stepToShow: null });
      },

      receive(message) {
        const state = get();
        if (receiveBench(state, set, message)) return;
        switch (message.type) {
          case 'progress':
            set({
              engine: {
                ...state.engine,
                phase: 'download',
                progress: {
                  ...state.engine.progress,
                  [message.file]: { loaded: message.loaded, total: message.total },
                },
              },
            });
            break;
          case 'phase':
            set({ engine: { ...state.engine, phase: message.phase } });
            break;
          case 'compiling':
            set({ compiling: { runId: message.runId, properties: message.properties } });
            clearTimeout(compileTimer);
            compileTimer = setTimeout(() => {
              const seconds = compileBudgetMs / 1000;
              const size = `${message.properties.toLocaleString('en-US')} ${message.properties === 1 ? 'property' : 'properties'}`;
              abandonCompile(
                message.pattern === undefined
                  ? `this schema has ${size}; compiling it took more than ${seconds} s and was stopped (simplify the schema: fewer properties, smaller enums)`
                  : `compiling this schema took more than ${seconds} s and was stopped: its pattern ${JSON.stringify(message.pattern.slice(0, 200))} repeats a group that itself repeats, which can take exponential time (rewrite the pattern without the nested repetition)`,
              );
            }, compileBudgetMs);
            break;
          case 'compiled':
            clearTimeout(compileTimer);
            if (state.compiling?.runId === message.runId) set({ compiling: null });
            break;
          case 'warmed-up':
            markPhase('warmed up');
            set({ engine: { ...state.engine, warm: true } });
            break;
          case 'ready':
            markPhase('ready');
            set({ engine: { ...state.engine, status: 'ready', info: message.info, error: null } });
            if (state.pendingAutoRun) {
              set({ pendingAutoRun: false });
              beginRun(false);
            }
            if (state.talk?.pending) startScene();
            break;
          case 'load-error':
            set({ engine: { ...state.engine, status: 'error', error: message.message } });
            break;
          case 'steps': {
            if (message.runId !== state.run.id) break;
            let counters = state.run.counters;
            for (const record of message.records) counters = recordStep(counters, record.counts);
            const steps = [...state.run.steps, ...message.records];
            const show = state.stepToShow;
            const reached = show !== null && state.ui.selectedStep === null && steps.length >= show;
            set({
              run: { ...state.run, steps, counters },
              ...(reached ? { ui: { ...state.ui, selectedStep: show - 1 } } : {}),
            });
            break;
          }
          case 'paused':
            if (message.runId === state.run.id && state.run.status === 'running')
              set({ run: { ...state.run, status: 'paused' } });
            // A talk's scene steps on by itself to the step it stops at.
            if (
              message.runId === state.run.id &&
              state.talk?.stopAt != null &&
              state.run.steps.length < state.talk.stopAt
            )
              send({ type: 'step' });
            break;
          case 'done': {
            if (message.runId !== state.run.id) break;
            const verdict = message.report.verdict;
            // A cancelled run is no completion: it is not scored.
            const completion: CompletionKind | null =
              verdict && message.report.ending !== 'cancelled' ? verdict.kind : null;
            set({
              run: { ...state.run, status: 'done', report: message.report, counters: message.report.counters },
              scorecard: completion ? recordCompletion(state.scorecard, completion) : state.scorecard,
            });
            break;
          }
          case 'bench-progress':
            if (message.runId === state.race.id && state.race.status === 'running')
              set({ race: { ...state.race, done: message.done, total: message.total } });
            break;
          case 'race-done':
            if (message.runId === state.race.id && state.race.status === 'running') {
              set({ race: { ...state.race, status: 'done', result: message.result } });
              if (state.talk?.talk.scenes[state.talk.scene]?.stop === 'race')
                writeRaceRecord(raceRecordKey(state), message.result);
            }
            break;
          case 'engine-trapped':
            // The error (shown already) says the engine restarts; the fresh worker reloads the pair.
            clearTimeout(compileTimer);
            set({ compiling: null });
            transport.restart();
            get().load();
            break;
          case 'run-error':
            if (message.errors) set({ form: { ...state.form, errors: { ...state.form.errors, ...message.errors } } });
            if (message.runId === state.run.id) set({ run: { ...state.run, status: 'error', error: message.message } });
            // A race the page already stopped (Reset, a new run) stays cancelled when the worker reports its end.
            else if (message.runId === state.race.id && state.race.status === 'running')
              set({ race: { ...state.race, status: 'error', error: message.message } });
            // A sweep's schema is checked and compiled like a run's, and refused the same way.
            else if (message.runId === state.sweep.id)
              set({ sweep: { ...state.sweep, status: 'error', error: message.message } });
            break;
        }
      },
    };
  });
}
