/** What a small engine on wasm and the CPU twin reports when ready, for store tests that play the worker. */
import type { EngineInfo } from '../../src/contract/protocol';

export const WASM_ENGINE_INFO: EngineInfo = {
  provider: 'wasm',
  fallbackReason: null,
  webgpuReason: null,
  logitsInPlace: false,
  draftName: 'd',
  targetName: 't',
  vocabSize: 10,
  contextLength: 128,
  loadMs: 1,
  verifier: 'cpu',
  verifierAdapter: null,
  verifierReason: null,
  scoring: { path: 'tree', reason: null },
  tokenTexts: [],
  headUnavailable: null,
  wasmThreads: { threads: 2, reason: null },
};
