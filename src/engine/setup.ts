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
import { ProviderUnsupportedError } from '../models/manifest';
import { SpecEngine } from './engine';
import { timed } from '../core/timeline';
import type { TargetThreadClient } from './targetThread';

export interface SetupRequest {
  provider: ExecutionProvider | 'auto';
  verifier: VerifierChoice;
  /** WebGPU's entry point (navigator.gpu, or Dawn's in Node), or null where there is none. */
  gpu: GPU | null;
  /** Loads the pair on the provider the setup chose. */
  loadPair: (provider: ExecutionProvider) => Promise<ModelPairHandle>;
  validate: SchemaValidator;
  /** false forces the batched scoring path (benches compare the two); the tree path where the target allows it by default. */
  treeScoring?: boolean;
  /** Test hook (?test-hooks&hardware-adapter): treat the WebGPU adapter as hardware, to check what a GPU machine gets. */
  assumeHardwareAdapter?: boolean;
  /** The target on a thread of its own (targetThread.ts), for drafting ahead; the target here where absent. */
  targetThread?: TargetThreadClient;
}

export interface EngineSetup {
  engine: SpecEngine;
  provider: ExecutionProvider;
  /** Why the preferred provider was not used, when it was not. */
  fallbackReason: string | null;
  /** Why the models run on WebGPU, when they do: a hardware adapter, or WebGPU was chosen (with the adapter's name). */
  webgpuReason: string | null;
  verifier: 'cpu' | 'gpu';
  /** The WebGPU adapter the verifier runs on, when it does. */
  verifierAdapter: string | null;
  /** Why the verifier is not where it was asked to be, when it is not. */
  verifierReason: string | null;
  /** Whether the WGSL verifier reads the target's logits where onnxruntime left them (on its device). */
  logitsInPlace: boolean;
  /** The WGSL verifier's devices (onnxruntime's device when logitsInPlace), or null on the CPU twin. */
  verifierDevices: GpuDeviceManager | null;
  /** onnxruntime's WebGPU device when the models run there, or null on wasm. */
  modelsDevice: GPUDevice | null;
  /**
   * Moves verification to the CPU twin for good (after the GPU failed: `reason` says how) and releases the
   * verifier's device; the engine keeps running. Where the models shared that device, reload instead.
   */
  useCpuTwin(reason: string): Promise<void>;
  /** Releases the engine, the models' sessions and the verifier's device. */
  dispose(): Promise<void>;
}

interface WebGpu {
  devices: GpuDeviceManager;
  adapter: string;
  software: boolean;
}

/** A WebGPU device for the WGSL verifier, or why there is none (absent, or no adapter or device granted). */
async function webgpuDevices(gpu: GPU | null, assumeHardware: boolean): Promise<WebGpu | { unavailable: string }> {
  if (!gpu) return { unavailable: 'no WebGPU' };
  const devices = new GpuDeviceManager({ gpu });
  try {
    const context = await devices.context();
    return { devices, adapter: context.adapterName, software: context.software && !assumeHardware };
  } catch (error) {
    await devices.dispose();
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}

interface ProviderChoice {
  provider: ExecutionProvider;
  fallbackReason: string | null;
  webgpuReason: string | null;
}

/**
 * Where the models run. 'auto' prefers WebGPU on a hardware adapter; on a software one (SwiftShader) the
 * wasm EP is an order of magnitude faster (npm run bench:models), so the models go there and say why.
 */
function chooseProvider(
  requested: ExecutionProvider | 'auto',
  gpu: WebGpu | { unavailable: string } | null,
): ProviderChoice {
  if (requested === 'wasm') return { provider: 'wasm', fallbackReason: null, webgpuReason: null };
  if (!gpu || 'unavailable' in gpu)
    return { provider: 'wasm', fallbackReason: 'no WebGPU adapter was granted', webgpuReason: null };
  if (requested === 'auto' && gpu.software)
    return {
      provider: 'wasm',
      fallbackReason: 'the WebGPU adapter is software-only, where wasm runs the models faster',
      webgpuReason: null,
    };
  const webgpuReason =
    requested === 'auto'
      ? `hardware adapter: ${gpu.adapter}`
      : `chosen, on ${gpu.software ? 'the software adapter' : 'the adapter'} ${gpu.adapter}`;
  return { provider: 'webgpu', fallbackReason: null, webgpuReason };
}

/** Where steps are verified; on a software adapter 'auto' keeps the CPU twin, which is faster there (npm run bench). */
function chooseVerifier(
  requested: VerifierChoice,
  gpu: WebGpu | { unavailable: string } | null,
): { gpu: WebGpu | null; reason: string | null } {
  if (requested === 'cpu' || !gpu) return { gpu: null, reason: null };
  if ('unavailable' in gpu) return { gpu: null, reason: gpu.unavailable };
  if (requested === 'auto' && gpu.software)
    return { gpu: null, reason: 'software WebGPU adapter: the CPU twin is faster; choose WGSL to see the kernels run' };
  return { gpu, reason: null };
}

export async function setupEngine(request: SetupRequest): Promise<EngineSetup> {
  const webgpu =
    request.provider === 'wasm' && request.verifier === 'cpu'
      ? null
      : await timed('webgpu probe', () => webgpuDevices(request.gpu, request.assumeHardwareAdapter === true));
  let { provider, fallbackReason, webgpuReason } = chooseProvider(request.provider, webgpu);
  const verification = chooseVerifier(request.verifier, webgpu);
  let devices = verification.gpu?.devices ?? null;
  if (webgpu && 'devices' in webgpu && !verification.gpu) await webgpu.devices.dispose();
  let pair: ModelPairHandle | null = null;
  try {
    try {
      pair = await request.loadPair(provider);
    } catch (error) {
      // A model that gives the right logits on wasm only (the int8 target) runs there, and the page says why.
      if (!(provider === 'webgpu' && error instanceof ProviderUnsupportedError)) throw error;
      provider = 'wasm';
      fallbackReason = error.message;
      webgpuReason = null;
      pair = await request.loadPair(provider);
    }
    // Models and verifier both on WebGPU: the verifier moves to onnxruntime's device and reads the
    // target's logits where the model left them.
    const ortDevice = provider === 'webgpu' && devices ? pair.target.session.gpuDevice : null;
    if (ortDevice) {
      await devices?.dispose();
      devices = new GpuDeviceManager({ sharedDevice: ortDevice });
    }
    // The engine holds a verifier that forwards to the one in use, so that a GPU failure can hand the
    // rest of the session to the CPU twin without rebuilding the engine.
    let inUse: StepVerifier = devices ? gpuStepVerifier(devices, ortDevice) : cpuVerifier;
    const forwarding: StepVerifier = {
      get kind() {
        return inUse.kind;
      },
      verify: (input) => inUse.verify(input),
    };
    const engine = SpecEngine.create(pair, request.validate, forwarding, {
      logitsInPlace: ortDevice !== null,
      ...(request.treeScoring === undefined ? {} : { treeScoring: request.treeScoring }),
      ...(request.targetThread ? { targetThread: request.targetThread } : {}),
    });
    const loaded = pair;
    const setup: EngineSetup = {
      engine,
      provider,
      fallbackReason,
      webgpuReason,
      verifier: inUse.kind,
      verifierAdapter: verification.gpu?.adapter ?? null,
      verifierReason: verification.reason,
      logitsInPlace: ortDevice !== null,
      verifierDevices: devices,
      modelsDevice: provider === 'webgpu' ? pair.target.session.gpuDevice : null,
      async useCpuTwin(reason) {
        inUse = cpuVerifier;
        Object.assign(setup, { verifier: 'cpu', verifierAdapter: null, verifierReason: reason, verifierDevices: null });
        await devices?.dispose();
        devices = null;
      },
      async dispose() {
        engine.dispose();
        await loaded.draft.session.release();
        await loaded.target.session.release();
        await loaded.head?.session.release();
        await devices?.dispose();
      },
    };
    return setup;
  } catch (error) {
    await pair?.draft.session.release();
    await pair?.target.session.release();
    await pair?.head?.session.release();
    await devices?.dispose();
    throw error;
  }
}
