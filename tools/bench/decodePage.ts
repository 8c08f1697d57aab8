/**
 * bench (Chromium): the decode table in the page, with the app's choices on this machine by default:
 * the models on `provider` and the verifier on `verifier` (on SwiftShader, wasm and the CPU twin).
 */
import { ort } from '../../src/models/browserRuntime';
import { SpecEngine } from '../../src/engine/engine';
import { cpuVerifier } from '../../src/contract/stepVerifier';
import { GpuDeviceManager } from '../../src/gpu/device';
import { gpuStepVerifier } from '../../src/gpu/stepVerifier';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import { httpReader } from '../../src/models/httpReader';
import { loadPair } from '../../src/models/loader';
import type { ExecutionProvider } from '../../src/contract/protocol';
import { runDecodeBench, type DecodeRow } from './decodeBench';
import { timeForward } from './modelsBench';

declare global {
  interface Window {
    speclabDecodeBench: (seeds: number, provider: ExecutionProvider, verifier: 'gpu' | 'cpu') => Promise<{ adapter: string; costRatio: number; rows: DecodeRow[] } | { error: string }>;
    speclabDecodeLog: string[];
  }
}

window.speclabDecodeLog = [];
window.speclabDecodeBench = async (seeds, provider, verifier) => {
  try {
    const pair = await loadPair(ort, { draft: httpReader('/models/speclab-draft/', false), target: httpReader('/models/speclab-target/', false) }, provider);
    const devices = new GpuDeviceManager({ gpu: navigator.gpu });
    const { adapterName } = await devices.context();
    const costRatio = (await timeForward(pair.draft.session, 1, 1, 15)) / (await timeForward(pair.target.session, 1, 1, 15));
    const engine = await SpecEngine.create(pair, interpretedValidator, verifier === 'gpu' ? gpuStepVerifier(devices) : cpuVerifier);
    const rows = await runDecodeBench(engine, seeds, costRatio, (line) => window.speclabDecodeLog.push(line));
    engine.dispose();
    return { adapter: adapterName, costRatio, rows };
  } catch (error) {
    return { error: String(error) };
  }
};
