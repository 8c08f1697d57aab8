/**
 * The app store's shape: every slice's state and actions, the transport to the engine, and the values a fresh
 * store starts from. The slices (`*Slice.ts`) build it, `receive.ts` folds the engine's events into it, and
 * `effects.ts` does what touches the world (the transport, localStorage, timers).
 */
import type { Counters, Scorecard } from '../core/metrics';
import { emptyCounters } from '../core/metrics';
import type { LimitedParam } from '../contract/limits';
import type { RaceResult, ScorecardRow, ScorecardSpec, SweepCell, SweepSpec } from '../contract/bench';
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
import { DEFAULT_DRAFTER } from '../core/draftLaw';
import type { RunReport } from '../contract/runReport';
import type { StepRecord } from '../contract/stepRecord';
import type { FieldErrors } from '../contract/validation';
import { SCHEMA_PRESETS } from '../contract/presets';
import type { DecodedShare, PresetChoice } from './shareUrl';
import type { Talk } from './talk';

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
  /**
   * Calls `task` once the page has drawn what the store just changed: by default at the browser's next idle moment
   * (at most RUN_START_WAIT_MS away), and at once where there is no requestIdleCallback (Node). A run's message
   * waits for it (effects.ts, `sendAfterRender`).
   */
  afterRender?: (task: () => void) => void;
}

/** `stopped`: a paused run a race ended (the engine runs one job at a time); its steps and counters are kept. */
export type RunStatus = 'idle' | 'running' | 'paused' | 'done' | 'error' | 'stopped';

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
    /** The first step, ahead of the batch that adds it to `steps`: only the token stream draws it. */
    firstStep: StepRecord | null;
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
    /** How long the race should take, said before it starts (raceEstimate in ./raceSlice.ts); null: no speed known yet. */
    estimate: RaceEstimate | null;
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
   * `pending` starts the scene once the models are ready. `found`: per scene, the step found to show its claim
   * (src/store/talk.ts `shows`; absent until checked, and for scenes without a step claim); `checking`: the id of
   * the check in flight (the engine runs the scenes on the loaded pair), which the scene waits for.
   */
  talk: {
    talk: Talk;
    scene: number;
    stop: number;
    stopAt: number | null;
    pending: boolean;
    found: readonly (number | undefined)[];
    checking: number | null;
  } | null;
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
  /** Stops the race in flight at its next step boundary; its samples so far stay counted, the lecture's run untouched. */
  cancelRace(): void;
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

export type BenchStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface BenchJob {
  id: number;
  status: BenchStatus;
  done: number;
  total: number;
  error: string | null;
}

/** One finished run as the history keeps it: its parameters, counters, histogram and text (the report). */
export interface HistoryEntry {
  id: string;
  finishedAt: number;
  report: RunReport;
}

/** The history keeps this many runs, newest first. */
export const HISTORY_LIMIT = 20;

export interface BenchState {
  sweep: BenchJob & { spec: SweepSpec | null; cells: SweepCell[] };
  scorecardTable: BenchJob & { spec: ScorecardSpec | null; rows: ScorecardRow[] };
  history: HistoryEntry[];
  /** What was wrong with the stored history (records dropped on load, a clear in another tab); null when nothing. */
  historyNotice: string | null;
}

export interface BenchActions {
  startSweep(spec: SweepSpec): void;
  startScorecard(spec: ScorecardSpec): void;
  /** Stops the sweep or scorecard in progress after its current run. */
  cancelBench(): void;
  /** Adds a finished run to the history (newest first, at most HISTORY_LIMIT). */
  remember(entry: HistoryEntry): void;
  setHistory(entries: HistoryEntry[], notice?: string | null): void;
  clearHistory(): void;
}

/** The whole store: every slice's state and actions. */
export type StoreState = SpecState & SpecActions & BenchState & BenchActions;

/** A race's expected duration and what it rests on ("at the last run's 41.2 tokens/s"). */
export interface RaceEstimate {
  seconds: number;
  basis: string;
}

/** Timed rounds a race runs after its warm-up, unless told otherwise. */
export const DEFAULT_RACE_REPEATS = 5;

export const FIRST_PRESET = SCHEMA_PRESETS[1] ?? (SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number]);

export const FRESH_PARAMS = presetParams(FIRST_PRESET, {
  // The one default drafter (src/core/draftLaw.ts says why), as every CLI's.
  drafter: DEFAULT_DRAFTER,
  seed: FIRST_PRESET.lecture.seed,
  temperature: FIRST_PRESET.lecture.temperature,
});

/** A run that has not started (or was reset): no steps, empty counters. */
export const freshRun = (id: number, params: RunParams, status: RunStatus = 'idle'): SpecState['run'] => ({
  id,
  status,
  params,
  steps: [],
  firstStep: null,
  counters: emptyCounters(params.L),
  report: null,
  error: null,
});
