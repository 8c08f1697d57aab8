/**
 * The engine's Web Worker: loads the pair, runs decodes and races, and streams step records to the page
 * in small batches so that the page stays responsive. Pause, single steps and slow motion are gates the
 * decode loop awaits after each step, so a paused or cancelled run always stops between whole steps.
 */
import { ort } from '../models/browserRuntime';
import type { ExecutionProvider, FromWorker, ToWorker, VerifierChoice } from '../contract/protocol';
import { DECODE_METHODS, type RunParams } from '../contract/runParams';
import type { StepRecord } from '../contract/stepRecord';
import { cpuVerifier, type StepVerifier } from '../contract/stepVerifier';
import { race as raceMethods, scorecard, sweep } from './bench';
import { SpecEngine } from './engine';
import { GpuDeviceManager } from '../gpu/device';
import { gpuStepVerifier } from '../gpu/stepVerifier';
import { interpretedValidator } from '../grammar/interpretedValidator';
import { loadPair } from '../models/loader';
import { evictModelCache, httpReader } from '../models/httpReader';
import { ModelLoadError } from '../models/manifest';

const post = (message: FromWorker) => {
  postMessage(message);
};
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const FLUSH_MS = 400;
let engine: SpecEngine | null = null;
/** The verifier's WebGPU device, replaced with the engine on every load. */
let gpuDevices: GpuDeviceManager | null = null;
let active: { runId: number; controller: AbortController } | null = null;
let paused = false;
let stepsAllowed = 0;
let stepDelayMs = 0;
let wake: (() => void) | null = null;
const nudge = () => {
  wake?.();
  wake = null;
};

/** A WebGPU device for the WGSL verifier, or null where WebGPU is absent. */
async function webgpuDevices(): Promise<{ devices: GpuDeviceManager; adapter: string; software: boolean } | null> {
  if (!('gpu' in navigator)) return null;
  const devices = new GpuDeviceManager({ gpu: navigator.gpu });
  try {
    const context = await devices.context();
    return { devices, adapter: context.adapterName, software: context.software };
  } catch {
    return null;
  }
}

/**
 * Where the models run. 'auto' prefers WebGPU on a hardware adapter; on a software one (SwiftShader) the
 * wasm EP is an order of magnitude faster (npm run bench:models), so the models go there and say why.
 */
function chooseProvider(requested: ExecutionProvider | 'auto', gpu: { software: boolean } | null): { provider: ExecutionProvider; fallbackReason: string | null } {
  if (requested === 'wasm') return { provider: 'wasm', fallbackReason: null };
  if (!gpu) return { provider: 'wasm', fallbackReason: 'no WebGPU adapter was granted' };
  if (requested === 'auto' && gpu.software) return { provider: 'wasm', fallbackReason: 'the WebGPU adapter is software-only, where wasm runs the models faster' };
  return { provider: 'webgpu', fallbackReason: null };
}

/** Where steps are verified; on a software adapter 'auto' keeps the CPU twin, which is faster there (npm run bench). */
function chooseVerifier(requested: VerifierChoice, gpu: Awaited<ReturnType<typeof webgpuDevices>>): { verifier: StepVerifier; adapter: string | null; reason: string | null } {
  if (requested === 'cpu') return { verifier: cpuVerifier, adapter: null, reason: null };
  if (!gpu) return { verifier: cpuVerifier, adapter: null, reason: 'no WebGPU' };
  if (requested === 'auto' && gpu.software) return { verifier: cpuVerifier, adapter: null, reason: 'software WebGPU adapter: the CPU twin is faster; choose WGSL to see the kernels run' };
  return { verifier: gpuStepVerifier(gpu.devices), adapter: gpu.adapter, reason: null };
}

async function load(message: Extract<ToWorker, { type: 'load' }>): Promise<void> {
  const started = performance.now();
  // The previous pair's sessions and device go first: a reload must not hold two pairs in memory.
  const previous = engine;
  engine = null;
  previous?.dispose();
  await previous?.pair.draft.session.release();
  await previous?.pair.target.session.release();
  await gpuDevices?.dispose();
  const gpu = await webgpuDevices();
  gpuDevices = gpu?.devices ?? null;
  const { provider, fallbackReason } = chooseProvider(message.provider, gpu);
  const verification = chooseVerifier(message.verifier, gpu);
  const { source } = message;
  try {
    const pair = await loadPair(ort, { draft: httpReader(source.draftUrl, source.cache), target: httpReader(source.targetUrl, source.cache) }, provider, (file, loaded, total) =>
      post({ type: 'progress', file, loaded, total }),
      source.modelFile,
    );
    // Models and verifier both on WebGPU: the verifier moves to onnxruntime's device and reads the
    // target's logits where the model left them.
    const ortDevice = provider === 'webgpu' && verification.verifier.kind === 'gpu' ? pair.target.session.gpuDevice : null;
    if (ortDevice) {
      await gpuDevices?.dispose();
      gpuDevices = new GpuDeviceManager({ sharedDevice: ortDevice });
    }
    const verifier = ortDevice && gpuDevices ? gpuStepVerifier(gpuDevices, ortDevice) : verification.verifier;
    engine = await SpecEngine.create(pair, interpretedValidator, verifier, ortDevice !== null);
    post({
      type: 'ready',
      info: {
        provider,
        fallbackReason,
        draftName: pair.draft.name,
        targetName: pair.target.name,
        vocabSize: pair.tokenizer.vocabSize,
        contextLength: engine.contextLength,
        loadMs: performance.now() - started,
        verifier: verification.verifier.kind,
        verifierAdapter: verification.adapter,
        verifierReason: verification.reason,
        tokenTexts: pair.tokenizer.tokens.map((_, id) => pair.tokenizer.decode([id])),
      },
    });
  } catch (error) {
    // A file that failed its hash must not be served from the cache next time.
    if (error instanceof ModelLoadError) await evictModelCache();
    post({ type: 'load-error', message: errorText(error) });
  }
}

/**
 * Sends step records in batches, at most every FLUSH_MS while running (each batch costs the page a render,
 * and on a two-core machine the page and the worker share the CPU), and waits where the user paused or
 * slowed playback.
 */
function stepSink(runId: number) {
  let pending: StepRecord[] = [];
  // The first batch also waits FLUSH_MS: a run shorter than that costs the page no render until it ends.
  let lastFlush = performance.now();
  const flush = () => {
    if (pending.length === 0) return;
    post({ type: 'steps', runId, records: pending });
    pending = [];
    lastFlush = performance.now();
  };
  const onStep = async (record: StepRecord) => {
    pending.push(record);
    if (paused || stepDelayMs > 0 || performance.now() - lastFlush > FLUSH_MS) flush();
    if (stepDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, stepDelayMs));
    if (paused && stepsAllowed > 0) {
      stepsAllowed--;
      if (stepsAllowed > 0) return;
    }
    while (paused && stepsAllowed === 0 && !active?.controller.signal.aborted) {
      post({ type: 'paused', runId, paused: true });
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  return { onStep, flush };
}

async function run(message: Extract<ToWorker, { type: 'run' }>): Promise<void> {
  if (!engine) return post({ type: 'run-error', runId: message.runId, message: 'the models are not loaded yet' });
  const controller = new AbortController();
  active = { runId: message.runId, controller };
  paused = message.paused;
  stepsAllowed = message.paused ? 1 : 0;
  stepDelayMs = message.stepDelayMs;
  const sink = stepSink(message.runId);
  try {
    const report = await engine.run(message.params, sink.onStep, controller.signal);
    sink.flush();
    post({ type: 'done', runId: message.runId, report });
  } catch (error) {
    sink.flush();
    post({ type: 'run-error', runId: message.runId, message: errorText(error) });
  } finally {
    if (active?.controller === controller) active = null;
  }
}

/** A race, sweep or scorecard: cancellable like a run, reporting progress as it goes. */
async function benchJob(message: Extract<ToWorker, { type: 'race' | 'sweep' | 'scorecard' }>): Promise<void> {
  const { runId } = message;
  const fail = (text: string, cancelled: boolean) => post(message.type === 'race' ? { type: 'run-error', runId, message: text } : { type: 'bench-error', runId, message: text, cancelled });
  if (!engine) return fail('the models are not loaded yet', false);
  const current = engine;
  const controller = new AbortController();
  active = { runId, controller };
  const options = { signal: controller.signal, onProgress: (done: number, total: number) => post({ type: 'bench-progress', runId, done, total }) };
  const run = (params: RunParams) => current.run(params, undefined, controller.signal);
  try {
    if (message.type === 'race') post({ type: 'race-done', runId, result: await raceMethods(run, message.params, DECODE_METHODS, message.repeats, options) });
    else if (message.type === 'sweep') {
      await sweep(run, message.spec, { ...options, onCell: (cell) => post({ type: 'sweep-cell', runId, cell }) });
      post({ type: 'sweep-done', runId });
    } else post({ type: 'scorecard-done', runId, rows: await scorecard(run, interpretedValidator, message.spec, options) });
  } catch (error) {
    const cancelled = controller.signal.aborted;
    fail(cancelled ? `${message.type} cancelled` : errorText(error), cancelled);
  } finally {
    if (active?.controller === controller) active = null;
  }
}

// onnxruntime sessions run one call at a time: a new run starts after the one it cancels has stopped.
let queue: Promise<void> = Promise.resolve();
const enqueue = (work: () => Promise<void>) => {
  queue = queue.then(work, work);
};

onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case 'load':
      active?.controller.abort();
      nudge();
      enqueue(() => load(message));
      break;
    case 'run':
      active?.controller.abort();
      nudge();
      enqueue(() => run(message));
      break;
    case 'race':
    case 'sweep':
    case 'scorecard':
      active?.controller.abort();
      nudge();
      enqueue(() => benchJob(message));
      break;
    case 'pause':
      paused = true;
      break;
    case 'resume':
      paused = false;
      nudge();
      break;
    case 'step':
      stepsAllowed++;
      nudge();
      break;
    case 'delay':
      stepDelayMs = message.stepDelayMs;
      break;
    case 'cancel':
      active?.controller.abort();
      nudge();
      break;
  }
};
