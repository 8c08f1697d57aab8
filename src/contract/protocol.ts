/** The typed messages between the page and the engine's Web Worker. */
import type { RaceResult, ScorecardRow, ScorecardSpec, SweepCell, SweepSpec } from './bench';
import type { RunParams } from './runParams';
import type { RunReport } from './runReport';
import type { SceneClaim } from './sceneClaims';
import type { ScoringPlan, StepRecord } from './stepRecord';
import type { FieldErrors } from './validation';

/** Where the models run: onnxruntime-web's wasm or WebGPU execution provider. */
export type ExecutionProvider = 'wasm' | 'webgpu';

/** Where steps are verified: 'auto' is WGSL on a hardware adapter and the CPU twin on a software one. */
export type VerifierChoice = 'auto' | 'gpu' | 'cpu';

export interface PairSource {
  label: string;
  draftUrl: string;
  targetUrl: string;
  /**
   * The target to load instead when the models run on WebGPU: the bundled int8 target gives wrong logits on
   * onnxruntime-web's WebGPU EP, so on WebGPU the pair uses the float32 target it was quantized from.
   */
  webgpuTargetUrl?: string;
  /** Keep downloads in the Cache API (remote pairs); the bundled pair is served locally. */
  cache: boolean;
  /** The ONNX file inside each directory (Hub exports name it differently). */
  modelFile: string;
  /** The draft head's directory (speclab-head/1), loaded beside a target that exports `features` (drafters head, head+grammar). */
  headUrl?: string;
}

/** The stages of a load, in order; the grammar engine is built right after ready (SpecEngine.prepareGrammar). */
export type LoadPhase = 'download' | 'hash' | 'session';

/** Bounds on every network read of a load. */
export interface NetworkTimeouts {
  /** The server must send its response headers within this. */
  requestMs: number;
  /** A body may go this long without a byte (its pace is bounded too: NETWORK_LIMITS). */
  stallMs: number;
}

export type ToWorker =
  /** A load cancels the one in flight; `network` bounds every read (tests shorten it). */
  /** `assumeHardwareAdapter`: test hook (?test-hooks&hardware-adapter) that makes the setup treat the adapter as hardware. */
  | {
      type: 'load';
      source: PairSource;
      provider: ExecutionProvider | 'auto';
      verifier: VerifierChoice;
      network?: NetworkTimeouts;
      assumeHardwareAdapter?: boolean;
    }
  /** Starts a run; `paused` starts it waiting for `step`. `stepDelayMs` slows playback for teaching. */
  | { type: 'run'; runId: number; params: RunParams; paused: boolean; stepDelayMs: number }
  /** Every method, warmed up, then `repeats` timed rounds in rotated order, each over `tokenBudget` tokens (src/engine/bench.ts). */
  | { type: 'race'; runId: number; params: RunParams; repeats: number; tokenBudget: number }
  | { type: 'sweep'; runId: number; spec: SweepSpec }
  | { type: 'scorecard'; runId: number; spec: ScorecardSpec }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'step' }
  | { type: 'delay'; stepDelayMs: number }
  | { type: 'cancel' }
  /**
   * A talk's scenes to check (src/engine/sceneFinder.ts): each scene's seeded run decoded until the first step
   * that shows its claim. Queued like a run; answered with `scenes-found`.
   */
  | { type: 'find-scenes'; talkId: number; scenes: SceneSearch[] }
  /**
   * Test hook, sent only by `window.speclabTestHooks` (app.tsx, present under the ?test-hooks query flag):
   * destroys the WGSL verifier's GPU device, so the e2e test can watch the fallback to the CPU twin.
   */
  | { type: 'lose-gpu-device' };

/** One talk scene to check: its index in the talk, its run and what it claims to show. */
export interface SceneSearch {
  scene: number;
  params: RunParams;
  claim: SceneClaim;
}

/** onnxruntime-web's wasm threads in the engine's worker, and why there is only one where there is. */
export interface WasmThreads {
  threads: number;
  reason: string | null;
}

export interface EngineInfo {
  provider: ExecutionProvider;
  /** Why the preferred provider was not used, when it was not. */
  fallbackReason: string | null;
  /** Why the models run on WebGPU, when they do: a hardware adapter, or the choice of WebGPU (with the adapter's name). */
  webgpuReason: string | null;
  /** Whether the WGSL verifier reads the target's logits where onnxruntime left them (models and verifier on one device). */
  logitsInPlace: boolean;
  draftName: string;
  targetName: string;
  vocabSize: number;
  contextLength: number;
  loadMs: number;
  /** Where steps are verified: the WGSL kernels, or the CPU twin where WebGPU is absent. */
  verifier: 'gpu' | 'cpu';
  /** The WebGPU adapter the verifier runs on, when it does. */
  verifierAdapter: string | null;
  /** Why the verifier is not where it was asked to be, when it is not. */
  verifierReason: string | null;
  /** Whether the target scores each step's drafts as one token tree or as K batched rows, and why. */
  scoring: ScoringPlan;
  /** Token strings by id, for showing tokens. */
  tokenTexts: string[];
  /** Why the pair offers no head drafters (head, head+grammar), or null when it does. */
  headUnavailable: string | null;
  /** The wasm threads the models run on (the second core at work), stated on the status line. */
  wasmThreads: WasmThreads;
}

export type FromWorker =
  | { type: 'progress'; file: string; loaded: number; total: number | null }
  | { type: 'phase'; phase: LoadPhase }
  | { type: 'ready'; info: EngineInfo }
  /** The untimed warm-up run after "ready" is over (a run sent meanwhile waits for it, so it is never a cold start's). */
  | { type: 'warmed-up' }
  | { type: 'load-error'; message: string }
  /** A schema not compiled before is being compiled (the page may stop the worker past the time budget). */
  | {
      type: 'compiling';
      runId: number;
      properties: number;
      /** A regex that repeats a repeating group, named if the compile runs past its budget. */ pattern?: string;
    }
  | { type: 'compiled'; runId: number }
  /** A run's first step, sent the moment it is verified (the room waits on its tokens); its batch carries it again. */
  | { type: 'first-step'; runId: number; record: StepRecord }
  | { type: 'steps'; runId: number; records: StepRecord[] }
  | { type: 'paused'; runId: number; paused: boolean }
  | { type: 'done'; runId: number; report: RunReport }
  /** Runs finished of a race, sweep or scorecard, out of its schedule's length. */
  | { type: 'bench-progress'; runId: number; done: number; total: number }
  | { type: 'race-done'; runId: number; result: RaceResult }
  | { type: 'sweep-cell'; runId: number; cell: SweepCell }
  | { type: 'sweep-done'; runId: number }
  | { type: 'scorecard-done'; runId: number; rows: ScorecardRow[] }
  /** A sweep or scorecard failed or was cancelled. */
  | { type: 'bench-error'; runId: number; message: string; cancelled: boolean }
  /** `errors`: the worker's own check of the parameters, by field. */
  | { type: 'run-error'; runId: number; message: string; errors?: FieldErrors }
  /** Per scene searched, the first step (from 1) that shows its claim, or null; `error`: why the search failed. */
  | { type: 'scenes-found'; talkId: number; found: { scene: number; step: number | null }[]; error: string | null }
  /** The grammar engine's wasm trapped: the page restarts the worker and reloads the pair (the error came first). */
  | { type: 'engine-trapped' };
