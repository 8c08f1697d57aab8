/** The typed messages between the page and the engine's Web Worker. */
import type { StepRecord } from './decode';
import type { RunReport } from './engine';
import type { RunParams } from './params';
import type { FieldErrors } from '../contract/validation';
import type { NetworkTimeouts } from '../models/httpReader';
import type { LoadPhase } from '../models/loader';
import type { ExecutionProvider } from '../models/session';

/** Where steps are verified: 'auto' is WGSL on a hardware adapter and the CPU twin on a software one. */
export type VerifierChoice = 'auto' | 'gpu' | 'cpu';

export interface PairSource {
  label: string;
  draftUrl: string;
  targetUrl: string;
  /** Keep downloads in the Cache API (remote pairs); the bundled pair is served locally. */
  cache: boolean;
  /** The ONNX file inside each directory (Hub exports name it differently). */
  modelFile: string;
}


export type { LoadPhase };

export type ToWorker =
  /** A load cancels the one in flight; `network` bounds every read (tests shorten it). */
  | { type: 'load'; source: PairSource; provider: ExecutionProvider | 'auto'; verifier: VerifierChoice; network?: NetworkTimeouts }
  /** Starts a run; `paused` starts it waiting for `step`. `stepDelayMs` slows playback for teaching. */
  | { type: 'run'; runId: number; params: RunParams; paused: boolean; stepDelayMs: number }
  | { type: 'race'; runId: number; params: RunParams }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'step' }
  | { type: 'delay'; stepDelayMs: number }
  | { type: 'cancel' };

export interface EngineInfo {
  provider: ExecutionProvider;
  /** Why the preferred provider was not used, when it was not. */
  fallbackReason: string | null;
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
  /** Token strings by id, for showing tokens. */
  tokenTexts: string[];
}

export type FromWorker =
  | { type: 'progress'; file: string; loaded: number; total: number | null }
  | { type: 'phase'; phase: LoadPhase }
  | { type: 'ready'; info: EngineInfo }
  | { type: 'load-error'; message: string }
  /** A schema not compiled before is being compiled (the page may stop the worker past the time budget). */
  | { type: 'compiling'; runId: number; properties: number }
  | { type: 'compiled'; runId: number }
  | { type: 'steps'; runId: number; records: StepRecord[] }
  | { type: 'paused'; runId: number; paused: boolean }
  | { type: 'done'; runId: number; report: RunReport }
  | { type: 'race-row'; runId: number; report: RunReport }
  | { type: 'race-done'; runId: number }
  /** `errors`: the worker's own check of the parameters, by field. */
  | { type: 'run-error'; runId: number; message: string; errors?: FieldErrors };
