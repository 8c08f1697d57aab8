/**
 * The app's state, framework-free (zustand's vanilla store); React only subscribes to it. Actions send
 * messages to the engine (a Web Worker behind `EngineTransport`); the engine's events come back through
 * `receive` and are folded into state here, one batch of step records per update.
 */
import { createStore } from 'zustand/vanilla';
import { emptyCounters, recordStep, recordCompletion, EMPTY_SCORECARD, type Counters, type Scorecard, type CompletionKind } from '../core/metrics';
import type { RaceResult } from '../contract/bench';
import { BUNDLED_PAIR } from '../contract/modelPairs';
import type { EngineInfo, ExecutionProvider, FromWorker, PairSource, ToWorker, VerifierChoice } from '../contract/protocol';
import { presetParams, type RunParams } from '../contract/runParams';
import type { RunReport } from '../contract/runReport';
import type { StepRecord } from '../contract/stepRecord';
import { SCHEMA_PRESETS } from '../grammar/presets';
import type { PresetChoice } from './shareUrl';
import { benchSlice, receiveBench, type BenchActions, type BenchState } from './benchSlice';

export interface EngineTransport {
  post(message: ToWorker): void;
}

export type RunStatus = 'idle' | 'running' | 'paused' | 'done' | 'error';

export interface SpecState {
  engine: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    progress: Record<string, { loaded: number; total: number | null }>;
    info: EngineInfo | null;
    error: string | null;
  };
  provider: ExecutionProvider | 'auto';
  verifier: VerifierChoice;
  pair: PairSource;
  preset: PresetChoice;
  params: RunParams;
  stepDelayMs: number;
  /** `params`: what this run was started with; the form may have changed since, for the next run. */
  run: { id: number; status: RunStatus; params: RunParams; steps: StepRecord[]; counters: Counters; report: RunReport | null; error: string | null };
  /** A fair race: `done` of `total` runs (warm-ups included); the result once every round has run. */
  race: { id: number; status: 'idle' | 'running' | 'done' | 'error'; repeats: number; done: number; total: number; result: RaceResult | null; error: string | null };
  /** Schema-valid, invalid, truncated and dead-end completions over this session's runs. */
  scorecard: Scorecard;
  ui: { presentation: boolean; showInvalid: boolean; selectedStep: number | null; help: boolean };
  /** A run to start once the models are ready (a shared link). */
  pendingAutoRun: boolean;
}

export interface SpecActions {
  load(): void;
  setProvider(provider: ExecutionProvider | 'auto'): void;
  setVerifier(verifier: VerifierChoice): void;
  setPair(pair: PairSource): void;
  setParams(params: Partial<RunParams>): void;
  choosePreset(preset: PresetChoice): void;
  setSchemaText(text: string): void;
  start(): void;
  togglePause(): void;
  step(): void;
  reset(): void;
  startRace(): void;
  setRaceRepeats(repeats: number): void;
  setStepDelay(ms: number): void;
  setUi(ui: Partial<SpecState['ui']>): void;
  applyShared(preset: PresetChoice, params: RunParams): void;
  receive(message: FromWorker): void;
}

export type SpecStore = ReturnType<typeof createSpecStore>;

/** Timed rounds a race runs after its warm-up, unless told otherwise. */
export const DEFAULT_RACE_REPEATS = 3;

const FIRST_PRESET = SCHEMA_PRESETS[1] ?? (SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number]);

const freshRun = (id: number, params: RunParams, status: RunStatus = 'idle') => ({ id, status, params, steps: [], counters: emptyCounters(params.L), report: null, error: null });

export function createSpecStore(transport: EngineTransport) {
  let nextRunId = 1;
  return createStore<SpecState & SpecActions & BenchState & BenchActions>()((set, get) => {
    const send = (message: ToWorker) => transport.post(message);
    const beginRun = (paused: boolean) => {
      const { params, stepDelayMs, engine } = get();
      if (engine.status !== 'ready') return;
      const id = nextRunId++;
      set({ run: freshRun(id, params, paused ? 'paused' : 'running'), ui: { ...get().ui, selectedStep: null } });
      send({ type: 'run', runId: id, params, paused, stepDelayMs });
    };
    return {
      engine: { status: 'idle', progress: {}, info: null, error: null },
      provider: 'auto',
      verifier: 'auto',
      pair: BUNDLED_PAIR,
      preset: FIRST_PRESET.id,
      params: presetParams(FIRST_PRESET),
      stepDelayMs: 0,
      run: freshRun(0, presetParams(FIRST_PRESET)),
      race: { id: 0, status: 'idle', repeats: DEFAULT_RACE_REPEATS, done: 0, total: 0, result: null, error: null },
      ...benchSlice(set, get, send),
      scorecard: EMPTY_SCORECARD,
      ui: { presentation: false, showInvalid: false, selectedStep: null, help: false },
      pendingAutoRun: false,

      load() {
        set({ engine: { status: 'loading', progress: {}, info: null, error: null } });
        send({ type: 'load', source: get().pair, provider: get().provider, verifier: get().verifier });
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
        set({ params: { ...get().params, ...params } });
      },
      choosePreset(preset) {
        const found = SCHEMA_PRESETS.find((candidate) => candidate.id === preset);
        const { params } = get();
        if (found) {
          const rest: RunParams = { ...params };
          delete rest.trigger;
          set({ preset, params: { ...rest, prompt: found.prompt, schemaText: JSON.stringify(found.schema, null, 2), ...(found.trigger === undefined ? {} : { trigger: found.trigger }) } });
        } else if (preset === 'free') {
          set({ preset, params: { ...params, schemaText: null } });
        } else {
          set({ preset, params: { ...params, schemaText: params.schemaText ?? '{\n  "type": "object"\n}' } });
        }
      },
      setSchemaText(text) {
        set({ preset: 'custom', params: { ...get().params, schemaText: text } });
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
        send({ type: 'cancel' });
        set({ run: freshRun(nextRunId++, get().params), ui: { ...get().ui, selectedStep: null } });
      },
      startRace() {
        const { repeats } = get().race;
        const id = nextRunId++;
        set({ race: { id, status: 'running', repeats, done: 0, total: 0, result: null, error: null } });
        send({ type: 'race', runId: id, params: get().params, repeats });
      },
      setRaceRepeats(repeats) {
        set({ race: { ...get().race, repeats } });
      },
      setStepDelay(ms) {
        set({ stepDelayMs: ms });
        send({ type: 'delay', stepDelayMs: ms });
      },
      setUi(ui) {
        set({ ui: { ...get().ui, ...ui } });
      },
      applyShared(preset, params) {
        set({ preset, params, pendingAutoRun: true });
        if (get().engine.status === 'ready') {
          set({ pendingAutoRun: false });
          beginRun(false);
        }
      },

      receive(message) {
        const state = get();
        if (receiveBench(state, set, message)) return;
        switch (message.type) {
          case 'progress':
            set({ engine: { ...state.engine, progress: { ...state.engine.progress, [message.file]: { loaded: message.loaded, total: message.total } } } });
            break;
          case 'ready':
            set({ engine: { ...state.engine, status: 'ready', info: message.info, error: null } });
            if (state.pendingAutoRun) {
              set({ pendingAutoRun: false });
              beginRun(false);
            }
            break;
          case 'load-error':
            set({ engine: { ...state.engine, status: 'error', error: message.message } });
            break;
          case 'steps': {
            if (message.runId !== state.run.id) break;
            let counters = state.run.counters;
            for (const record of message.records) counters = recordStep(counters, record.counts);
            set({ run: { ...state.run, steps: [...state.run.steps, ...message.records], counters } });
            break;
          }
          case 'paused':
            if (message.runId === state.run.id && state.run.status === 'running') set({ run: { ...state.run, status: 'paused' } });
            break;
          case 'done': {
            if (message.runId !== state.run.id) break;
            const verdict = message.report.verdict;
            const completion: CompletionKind | null = verdict ? verdict.kind : null;
            set({
              run: { ...state.run, status: 'done', report: message.report, counters: message.report.counters },
              scorecard: completion ? recordCompletion(state.scorecard, completion) : state.scorecard,
            });
            break;
          }
          case 'bench-progress':
            if (message.runId === state.race.id) set({ race: { ...state.race, done: message.done, total: message.total } });
            break;
          case 'race-done':
            if (message.runId === state.race.id) set({ race: { ...state.race, status: 'done', result: message.result } });
            break;
          case 'run-error':
            if (message.runId === state.run.id) set({ run: { ...state.run, status: 'error', error: message.message } });
            else if (message.runId === state.race.id) set({ race: { ...state.race, status: 'error', error: message.message } });
            break;
        }
      },
    };
  });
}
