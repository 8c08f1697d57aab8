/**
 * The one way to build an engine: the pair, the verifier and the engine, with the same choices in the
 * worker, the CLI and the benches. Where the models run on onnxruntime's WebGPU device and steps are
 * verified on the GPU, the verifier moves to that device and reads the target's logits in place.
 */
import type { ExecutionProvider, VerifierChoice } from '../contract/protocol';
import { cpuVerifier, type StepVerifier } from '../contract/stepVerifier';
import { GpuDeviceManager } from '../gpu/device';
import { gpuStepVerifier } from '../gpu/stepVerifier';
import type { SchemaValidator } from '../grammar/score';
import type { ModelPairHandle } from '../models/loader';
import { SpecEngine } from './engine';

export interface SetupRequest {
  provider: ExecutionProvider | 'auto';
  verifier: VerifierChoice;
  /** WebGPU's entry point (navigator.gpu, or Dawn's in Node), or null where there is none. */
  gpu: GPU | null;
  /** Loads the pair on the provider the setup chose. */
  loadPair: (provider: ExecutionProvider) => Promise<ModelPairHandle>;
  validate: SchemaValidator;
}

export interface EngineSetup {
  engine: SpecEngine;
  provider: ExecutionProvider;
  /** Why the preferred provider was not used, when it was not. */
  fallbackReason: string | null;
  verifier: 'cpu' | 'gpu';
  /** The WebGPU adapter the verifier runs on, when it does. */
  verifierAdapter: string | null;
  /** Why the verifier is not where it was asked to be, when it is not. */
  verifierReason: string | null;
  /** Whether the WGSL verifier reads the target's logits where onnxruntime left them. */
  logitsInPlace: boolean;
  /** Releases the engine, the models' sessions and the verifier's device. */
  dispose(): Promise<void>;
}

interface WebGpu {
  devices: GpuDeviceManager;
  adapter: string;
  software: boolean;
}

/** A WebGPU device for the WGSL verifier, or null where WebGPU is absent or grants none. */
async function webgpuDevices(gpu: GPU | null): Promise<WebGpu | null> {
  if (!gpu) return null;
  const devices = new GpuDeviceManager({ gpu });
  try {
    const context = await devices.context();
    return { devices, adapter: context.adapterName, software: context.software };
  } catch {
    await devices.dispose();
    return null;
  }
}

/**
 * Where the models run. 'auto' prefers WebGPU on a hardware adapter; on a software one (SwiftShader) the
 * wasm EP is an order of magnitude faster (npm run bench:models), so the models go there and say why.
 */
function chooseProvider(requested: ExecutionProvider | 'auto', gpu: WebGpu | null): { provider: ExecutionProvider; fallbackReason: string | null } {
  if (requested === 'wasm') return { provider: 'wasm', fallbackReason: null };
  if (!gpu) return { provider: 'wasm', fallbackReason: 'no WebGPU adapter was granted' };
  if (requested === 'auto' && gpu.software) return { provider: 'wasm', fallbackReason: 'the WebGPU adapter is software-only, where wasm runs the models faster' };
  return { provider: 'webgpu', fallbackReason: null };
}

/** Where steps are verified; on a software adapter 'auto' keeps the CPU twin, which is faster there (npm run bench). */
function chooseVerifier(requested: VerifierChoice, gpu: WebGpu | null): { gpu: WebGpu | null; reason: string | null } {
  if (requested === 'cpu') return { gpu: null, reason: null };
  if (!gpu) return { gpu: null, reason: 'no WebGPU' };
  if (requested === 'auto' && gpu.software) return { gpu: null, reason: 'software WebGPU adapter: the CPU twin is faster; choose WGSL to see the kernels run' };
  return { gpu, reason: null };
}

export async function setupEngine(request: SetupRequest): Promise<EngineSetup> {
  const webgpu = request.provider === 'wasm' && request.verifier === 'cpu' ? null : await webgpuDevices(request.gpu);
  const { provider, fallbackReason } = chooseProvider(request.provider, webgpu);
  const verification = chooseVerifier(request.verifier, webgpu);
  let devices = verification.gpu?.devices ?? null;
  if (webgpu && !verification.gpu) await webgpu.devices.dispose();
  let pair: ModelPairHandle | null = null;
  try {
    pair = await request.loadPair(provider);
    // Models and verifier both on WebGPU: the verifier moves to onnxruntime's device and reads the
    // target's logits where the model left them.
    const ortDevice = provider === 'webgpu' && devices ? pair.target.session.gpuDevice : null;
    if (ortDevice) {
      await devices?.dispose();
      devices = new GpuDeviceManager({ sharedDevice: ortDevice });
    }
    const verifier: StepVerifier = devices ? gpuStepVerifier(devices, ortDevice) : cpuVerifier;
    const engine = await SpecEngine.create(pair, request.validate, verifier, ortDevice !== null);
    const loaded = pair;
    return {
      engine,
      provider,
      fallbackReason,
      verifier: verifier.kind,
      verifierAdapter: verification.gpu?.adapter ?? null,
      verifierReason: verification.reason,
      logitsInPlace: ortDevice !== null,
      async dispose() {
        engine.dispose();
        await loaded.draft.session.release();
        await loaded.target.session.release();
        await devices?.dispose();
      },
    };
  } catch (error) {
    await pair?.draft.session.release();
    await pair?.target.session.release();
    await devices?.dispose();
    throw error;
  }
}
