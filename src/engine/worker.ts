/**
 * The engine's Web Worker: loads the pair, runs decodes and races, and streams step records to the page
 * in small batches so that the page stays responsive. Pause, single steps and slow motion are gates the
 * decode loop awaits after each step, so a paused or cancelled run always stops between whole steps.
 */
import { runtimeFor } from '../models/browserRuntime';
import type { EngineInfo, FromWorker, ToWorker } from '../contract/protocol';
import { DECODE_METHODS, type RunParams } from '../contract/runParams';
import type { StepRecord } from '../contract/stepRecord';
import { race as raceMethods, scorecard, sweep } from './bench';
import { setupEngine, type EngineSetup } from './setup';
import { GpuDeviceLostError, GpuUncapturedError, describeDeviceLoss } from '../gpu/device';
import { interpretedValidator } from '../grammar/interpretedValidator';
import { measureSchema, parseSchemaText, type SchemaSize } from '../grammar/schema';
import { errorText, trapEvent } from './failures';
import { errorSummary, validateRunParams, type RunParamsInput } from '../contract/validation';
import { loadPair } from '../models/loader';
import { targetUrlFor } from '../contract/modelPairs';
import { evictModelCache, httpReader } from '../models/httpReader';
import { ModelLoadError } from '../models/manifest';
import { markPhase, timed, timedSync } from '../core/timeline';

// Every module of the worker has been fetched and evaluated by now.
markPhase('worker modules');

const post = (message: FromWorker) => {
  postMessage(message);
};

/** After a wasm trap this worker's xgrammar is corrupt: the page replaces the worker. */
function reportTrap(error: unknown): void {
  const event = trapEvent(error);
  if (event) post(event);
}

const FLUSH_MS = 400;

/**
 * onnxruntime's wasm calls resolve within the task that made them, so a decode loop never lets this worker
 * read its messages: without a turn, Cancel or Pause would wait for the whole run, race or sweep (a race cut
 * by Reset ran on for about a minute). A zero-delay macrotask through a MessageChannel (setTimeout is
 * clamped to 4 ms once nested), at most every TURN_MS; the engine leaves time spent here out of tokens/s.
 */
const TURN_MS = 50;
const turns = new MessageChannel();
let lastTurn = 0;
async function readMessagesNow(): Promise<void> {
  if (performance.now() - lastTurn < TURN_MS) return;
  await new Promise<void>((resolve) => {
    turns.port1.onmessage = () => resolve();
    turns.port2.postMessage(null);
  });
  lastTurn = performance.now();
}
/** The loaded pair, its verifier and engine, replaced on every load. */
let setup: EngineSetup | null = null;
/** What the latest load asked for and reported: the base of a fallback after a GPU failure. */
let loaded: { message: LoadMessage; info: EngineInfo } | null = null;
/** Why onnxruntime's WebGPU device was lost under the models, once it has been. */
let modelsDeviceLoss: string | null = null;
let active: { runId: number; controller: AbortController } | null = null;
/**
 * Jobs (runs, races, sweeps, scorecards) are numbered as they arrive; each cancels every job before it, and
 * a cancel cancels every job so far. A job still queued, or still compiling its schema, when it is cancelled
 * must not start: `active` only reaches a job once it runs.
 */
let jobsArrived = 0;
let jobsCancelled = 0;
const cancelledJob = (job: number) => job <= jobsCancelled;
/** The load in flight: a new load (or Cancel, which loads the bundled pair) aborts its network reads. */
let loading: AbortController | null = null;
let paused = false;
let stepsAllowed = 0;
let stepDelayMs = 0;
let wake: (() => void) | null = null;
const nudge = () => {
  wake?.();
  wake = null;
};

type LoadMessage = Extract<ToWorker, { type: 'load' }>;

/** The most often one file's download progress is posted: each post costs the page a render. */
const PROGRESS_MS = 100;

/** Posts a file's progress at its start, at most every PROGRESS_MS while it downloads, and at its end. */
function throttledProgress(): (file: string, loaded: number, total: number | null) => void {
  const lastPost = new Map<string, number>();
  return (file, loaded, total) => {
    const now = performance.now();
    const finished = total !== null && loaded >= total;
    if (!finished && now - (lastPost.get(file) ?? -Infinity) < PROGRESS_MS) return;
    lastPost.set(file, now);
    post({ type: 'progress', file, loaded, total });
  };
}

/**
 * `controller` aborts the load's network reads (a newer load, or Cancel). `lossReason`: set on the reload
 * after a lost device, to say why the models and verifier moved.
 */
async function load(
  message: LoadMessage,
  controller: AbortController,
  lossReason: string | null = null,
): Promise<void> {
  if (controller.signal.aborted) return;
  markPhase('load message');
  const started = performance.now();
  // The previous pair's sessions and device go first: a reload must not hold two pairs in memory.
  const previous = setup;
  setup = null;
  loaded = null;
  modelsDeviceLoss = null;
  await previous?.dispose();
  const { source } = message;
  const network = { signal: controller.signal, ...(message.network ? { timeouts: message.network } : {}) };
  try {
    setup = await setupEngine({
      provider: message.provider,
      verifier: message.verifier,
      gpu: 'gpu' in navigator ? navigator.gpu : null,
      loadPair: async (provider) => {
        // Imported while the model files download.
        const runtime = timed('runtime import', () => runtimeFor(provider));
        const pair = await timed('load pair', () =>
          loadPair(
            runtime,
            {
              draft: httpReader(source.draftUrl, source.cache, network),
              target: httpReader(targetUrlFor(source, provider), source.cache, network),
              ...(source.headUrl ? { head: httpReader(source.headUrl, source.cache, network) } : {}),
            },
            provider,
            { onProgress: throttledProgress(), onPhase: (phase) => post({ type: 'phase', phase }) },
            source.modelFile,
          ),
        );
        return pair;
      },
      validate: interpretedValidator,
      ...(message.assumeHardwareAdapter ? { assumeHardwareAdapter: true } : {}),
    });
    const current = setup;
    const { engine, provider, fallbackReason, webgpuReason, logitsInPlace, verifier, verifierAdapter, verifierReason } =
      current;
    const { pair } = engine;
    void current.modelsDevice?.lost.then((info) => {
      if (setup === current) modelsDeviceLoss = describeDeviceLoss(info);
    });
    const info: EngineInfo = {
      provider,
      fallbackReason: lossReason ?? fallbackReason,
      webgpuReason,
      logitsInPlace,
      draftName: pair.draft.name,
      targetName: pair.target.name,
      vocabSize: pair.tokenizer.vocabSize,
      contextLength: engine.contextLength,
      loadMs: performance.now() - started,
      verifier,
      verifierAdapter,
      verifierReason: lossReason ?? verifierReason,
      scoring: engine.scoring,
      tokenTexts: timedSync('token texts', () => pair.tokenizer.tokens.map((_, id) => pair.tokenizer.decode([id]))),
      headUnavailable: engine.headUnavailable,
    };
    loaded = { message, info };
    markPhase('engine ready');
    post({ type: 'ready', info });
    // After ready, so that a reload is ready to run sooner (docs/presenting.md#offline), and before any run the page
    // sends (the queue holds it), so that the first run's tokens/s is not a cold start's. A failure here is the first
    // run's to meet and report, with its fallback to the CPU twin (runs have one; a load does not).
    await timed('warm-up', () => current.engine.warmUp()).catch(() => undefined);
    if (!controller.signal.aborted) post({ type: 'warmed-up' });
    // After ready, not before: only a run with a schema needs it, and that run waits for it.
    void engine.prepareGrammar().catch(() => undefined);
  } catch (error) {
    // A file that failed its hash must not be served from the cache next time.
    if (error instanceof ModelLoadError) await evictModelCache();
    // A load replaced by another says nothing: the new one reports.
    if (!controller.signal.aborted) post({ type: 'load-error', message: errorText(error) });
  } finally {
    if (loading === controller) loading = null;
  }
}

/** Why a run failed, when the cause is a GPU device that can no longer be trusted. */
function gpuFailure(error: unknown): string | null {
  if (modelsDeviceLoss) return modelsDeviceLoss;
  return error instanceof GpuDeviceLostError || error instanceof GpuUncapturedError ? error.message : null;
}

/**
 * Hands verification to the CPU twin for good after a GPU failure (and the models to wasm, by a reload,
 * when the lost device was onnxruntime's), and returns the message the failed run ends with. Counters stay
 * whole: the failed step produced no record, and every earlier step was complete.
 */
async function fallBackToCpuTwin(failure: string): Promise<string> {
  if (!setup || !loaded) return `${failure}; continuing on the CPU twin`;
  if (modelsDeviceLoss !== null || setup.logitsInPlace) {
    const message: LoadMessage = { ...loaded.message, provider: 'wasm', verifier: 'cpu' };
    const controller = new AbortController();
    loading = controller;
    enqueue(() => load(message, controller, failure));
    return `${failure}; continuing on the CPU twin, with the models on wasm`;
  }
  await setup.useCpuTwin(failure);
  loaded.info = { ...loaded.info, verifier: 'cpu', verifierAdapter: null, verifierReason: failure };
  post({ type: 'ready', info: loaded.info });
  return `${failure}; continuing on the CPU twin`;
}

/** A failed run's message: a GPU failure falls back to the CPU twin first, and says so. */
async function failureMessage(error: unknown): Promise<string> {
  const failure = gpuFailure(error);
  return failure ? fallBackToCpuTwin(failure) : errorText(error);
}

/**
 * The engine checks the parameters again (a message may come from anywhere), then compiles the schema
 * if it is new, saying so first: the page stops the worker when a compile outlasts its budget.
 */
async function prepare(
  runId: number,
  params: unknown,
): Promise<{ engine: EngineSetup['engine']; params: RunParams } | null> {
  if (!setup) {
    post({ type: 'run-error', runId, message: 'the models are not loaded yet' });
    return null;
  }
  const { engine } = setup;
  const checked = validateRunParams(params as RunParamsInput);
  if (!checked.ok) {
    post({ type: 'run-error', runId, message: errorSummary(checked.errors), errors: checked.errors });
    return null;
  }
  const { schemaText } = checked.params;
  if (schemaText !== null && !engine.isCompiled(schemaText)) {
    let size: SchemaSize;
    try {
      size = measureSchema(parseSchemaText(schemaText));
    } catch (error) {
      // Text that is not JSON has nothing to compile.
      post({ type: 'run-error', runId, message: errorText(error) });
      return null;
    }
    post({
      type: 'compiling',
      runId,
      properties: size.properties,
      ...(size.nestedRepetition === null ? {} : { pattern: size.nestedRepetition }),
    });
    try {
      await engine.compile(schemaText);
    } catch (error) {
      post({ type: 'run-error', runId, message: errorText(error) });
      reportTrap(error);
      return null;
    } finally {
      post({ type: 'compiled', runId });
    }
  }
  return { engine, params: checked.params };
}

/**
 * Sends step records in batches, at most every FLUSH_MS while running (each batch costs the page a render,
 * and on a two-core machine the page and the worker share the CPU), and waits where the user paused or
 * slowed playback.
 */
function stepSink(runId: number) {
  let pending: StepRecord[] = [];
  /** Time the run has waited for the presenter (pause, single steps): its batch schedule leaves it out, as tokens/s does. */
  let pausedMs = 0;
  const runClock = () => performance.now() - pausedMs;
  // A batch every FLUSH_MS of the run's own time from its start (the first also waits FLUSH_MS: a run shorter than
  // that costs the page no render until it ends). Batches sent early, while paused or in slow motion, do not move
  // the schedule: a run stepped, paused and resumed sends its batches where a straight run sends them, so the
  // page's renders take the same share of the CPU from both (on two cores, the stepped run read ~15% faster).
  let nextBatch = runClock() + FLUSH_MS;
  const flush = () => {
    if (pending.length === 0) return;
    post({ type: 'steps', runId, records: pending });
    pending = [];
  };
  const onStep = async (record: StepRecord) => {
    pending.push(record);
    if (runClock() > nextBatch) {
      flush();
      nextBatch = runClock() + FLUSH_MS;
    } else if (paused || stepDelayMs > 0) flush();
    await readMessagesNow();
    if (stepDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, stepDelayMs));
    // A cancelled run's last step takes nothing from the allowance of the run that replaced it.
    if (active?.controller.signal.aborted) return;
    if (paused && stepsAllowed > 0) {
      stepsAllowed--;
      if (stepsAllowed > 0) return;
    }
    const pauseStarted = performance.now();
    while (paused && stepsAllowed === 0 && !active?.controller.signal.aborted) {
      post({ type: 'paused', runId, paused: true });
      await new Promise<void>((resolve) => (wake = resolve));
    }
    pausedMs += performance.now() - pauseStarted;
  };
  return { onStep, flush };
}

async function run(message: Extract<ToWorker, { type: 'run' }>, job: number): Promise<void> {
  // A cancelled run is gone from the page already (its id is stale there): nothing to report.
  if (cancelledJob(job)) return;
  const ready = await prepare(message.runId, message.params);
  if (!ready || cancelledJob(job)) return;
  const controller = new AbortController();
  active = { runId: message.runId, controller };
  stepDelayMs = message.stepDelayMs;
  const sink = stepSink(message.runId);
  try {
    const report = await ready.engine.run(ready.params, sink.onStep, controller.signal);
    sink.flush();
    post({ type: 'done', runId: message.runId, report });
  } catch (error) {
    sink.flush();
    post({ type: 'run-error', runId: message.runId, message: await failureMessage(error) });
    reportTrap(error);
  } finally {
    if (active?.controller === controller) active = null;
  }
}

/** A race, sweep or scorecard: cancellable like a run, reporting progress as it goes. */
async function benchJob(
  message: Extract<ToWorker, { type: 'race' | 'sweep' | 'scorecard' }>,
  job: number,
): Promise<void> {
  const { runId } = message;
  const fail = (text: string, cancelled: boolean) =>
    post(
      message.type === 'race'
        ? { type: 'run-error', runId, message: text }
        : { type: 'bench-error', runId, message: text, cancelled },
    );
  if (cancelledJob(job)) return fail(`${message.type} cancelled`, true);
  // A race checks its parameters and compiles its schema as a run does; sweeps and scorecards vary their own.
  // A sweep's schema is compiled the same way, under the page's compile budget (its cells then reuse it).
  const ready =
    message.type === 'race'
      ? await prepare(runId, message.params)
      : message.type === 'sweep'
        ? await prepare(runId, message.spec.base)
        : null;
  // prepare() has reported why (a run error under this job's id).
  if (message.type !== 'scorecard' && !ready) return;
  if (cancelledJob(job)) return fail(`${message.type} cancelled`, true);
  if (!setup) return fail('the models are not loaded yet', false);
  const current = setup.engine;
  const controller = new AbortController();
  active = { runId, controller };
  const options = {
    signal: controller.signal,
    onProgress: (done: number, total: number) => post({ type: 'bench-progress', runId, done, total }),
  };
  const run = (params: RunParams) => current.run(params, readMessagesNow, controller.signal);
  try {
    if (message.type === 'race')
      post({
        type: 'race-done',
        runId,
        result: await raceMethods(run, ready ? ready.params : message.params, DECODE_METHODS, message.repeats, {
          ...options,
          tokenBudget: message.tokenBudget,
        }),
      });
    else if (message.type === 'sweep') {
      await sweep(run, message.spec, { ...options, onCell: (cell) => post({ type: 'sweep-cell', runId, cell }) });
      post({ type: 'sweep-done', runId });
    } else
      post({ type: 'scorecard-done', runId, rows: await scorecard(run, interpretedValidator, message.spec, options) });
  } catch (error) {
    const cancelled = controller.signal.aborted;
    fail(cancelled ? `${message.type} cancelled` : await failureMessage(error), cancelled);
    reportTrap(error);
  } finally {
    if (active?.controller === controller) active = null;
  }
}

// onnxruntime sessions run one call at a time: a new run starts after the one it cancels has stopped.
let queue: Promise<void> = Promise.resolve();
/** Cancels every job so far, running or queued. */
function cancelJobs(): void {
  jobsCancelled = jobsArrived;
  active?.controller.abort();
}

/** A new job cancels every one before it. */
function newJob(): number {
  cancelJobs();
  return ++jobsArrived;
}
const enqueue = (work: () => Promise<void>) => {
  queue = queue.then(work, work);
};

onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case 'load': {
      active?.controller.abort();
      loading?.abort();
      const controller = new AbortController();
      loading = controller;
      nudge();
      enqueue(() => load(message, controller));
      break;
    }
    case 'run': {
      const job = newJob();
      // Set as the message arrives, not when the job starts: a Step or Resume sent while the run still waits in
      // the queue (behind the warm-up, say) belongs to it and must not be overwritten.
      paused = message.paused;
      stepsAllowed = message.paused ? 1 : 0;
      nudge();
      enqueue(() => run(message, job));
      break;
    }
    case 'race':
    case 'sweep':
    case 'scorecard': {
      const job = newJob();
      nudge();
      enqueue(() => benchJob(message, job));
      break;
    }
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
      cancelJobs();
      nudge();
      break;
    case 'lose-gpu-device':
      // The test hook (main.tsx sends it only under ?test-hooks): loses the verifier's device mid-run, as
      // a driver reset would.
      void setup?.verifierDevices?.context().then((context) => context.device.destroy());
      break;
  }
};
