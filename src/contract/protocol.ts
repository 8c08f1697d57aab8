/** The typed messages between the page and the engine's Web Worker. */
import type { RunParams } from './runParams';
import type { RunReport } from './runReport';
import type { StepRecord } from './stepRecord';

/** Where the models run: onnxruntime-web's wasm or WebGPU execution provider. */
export type ExecutionProvider = 'wasm' | 'webgpu';

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

export type ToWorker =
  | { type: 'load'; source: PairSource; provider: ExecutionProvider | 'auto'; verifier: VerifierChoice }
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
  | { type: 'ready'; info: EngineInfo }
  | { type: 'load-error'; message: string }
  | { type: 'steps'; runId: number; records: StepRecord[] }
  | { type: 'paused'; runId: number; paused: boolean }
  | { type: 'done'; runId: number; report: RunReport }
  | { type: 'race-row'; runId: number; report: RunReport }
  | { type: 'race-done'; runId: number }
  | { type: 'run-error'; runId: number; message: string };
