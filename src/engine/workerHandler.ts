/**
 * What the engine's Web Worker does with each message from the page, as an object over an injected engine
 * loader and transport (worker.ts wires the real ones), so that a Node test can drive it with a fake engine.
 * It loads the pair, runs decodes and races, and streams step records to the page in small batches so that
 * the page stays responsive. Pause, single steps and slow motion are gates the decode loop awaits after each
 * step, so a paused or cancelled run always stops between whole steps.
 */
import type { EngineInfo, FromWorker, LoadPhase, ToWorker, WasmThreads } from '../contract/protocol';
import { DECODE_METHODS, presetParams, type RunParams } from '../contract/runParams';
import { SCHEMA_PRESETS, type SchemaPreset } from '../contract/presets';
import type { RunReport } from '../contract/runReport';
import type { ScoringPlan, StepRecord } from '../contract/stepRecord';
import { errorSummary, validateRunParams, type RunParamsInput } from '../contract/validation';
import { markPhase, timed, timedSync } from '../core/timeline';
import { GpuDeviceLostError, GpuUncapturedError, describeDeviceLoss } from '../gpu/device';
import { interpretedValidator } from '../grammar/interpretedValidator';
import { measureSchema, parseSchemaText, type SchemaSize } from '../grammar/schema';
import { race as raceMethods, scorecard, sweep } from './bench';
import { errorText, trapEvent } from './failures';
import type { EngineSetup } from './setup';
import { findClaimStep } from './sceneFinder';

export type LoadMessage = Extract<ToWorker, { type: 'load' }>;
type RunMessage = Extract<ToWorker, { type: 'run' }>;
type BenchMessage = Extract<ToWorker, { type: 'race' | 'sweep' | 'scorecard' }>;
type FindScenesMessage = Extract<ToWorker, { type: 'find-scenes' }>;

/** The schema of the run the app starts with (the first preset's, as presetParams writes it): compiled after ready. */
const FIRST_RUN_SCHEMA = presetParams(SCHEMA_PRESETS[0] as SchemaPreset).schemaText as string;

/** What the handler asks of a loaded engine: SpecEngine has it, and so does a test's fake. */
export interface WorkerEngine {
  readonly pair: {
    draft: { name: string };
    target: { name: string };
    tokenizer: { vocabSize: number; tokens: readonly unknown[]; decode(ids: number[]): string };
  };
  readonly contextLength: number;
  readonly scoring: ScoringPlan;
  readonly headUnavailable: string | null;
  run(
    params: RunParams,
    onStep: (record: StepRecord) => void | Promise<void>,
    signal: AbortSignal,
    extras?: { analyses?: boolean },
  ): Promise<RunReport>;
  /** Whether `schemaText` was compiled already, so that a run would not wait on a compile. */
  isCompiled(schemaText: string): boolean;
  compile(schemaText: string): Promise<unknown>;
  warmUp(): Promise<void>;
  prepareGrammar(): Promise<unknown>;
}

/** A loaded pair with its verifier, as setupEngine builds it (EngineSetup fits). */
export interface WorkerSetup extends Pick<
  EngineSetup,
  | 'provider'
  | 'fallbackReason'
  | 'webgpuReason'
  | 'logitsInPlace'
  | 'verifier'
  | 'verifierAdapter'
  | 'verifierReason'
  | 'useCpuTwin'
  | 'dispose'
> {
  engine: WorkerEngine;
  /** onnxruntime-web's wasm threads in this worker (src/models/browserRuntime.ts). */
  wasmThreads: WasmThreads;
  modelsDevice: { lost: Promise<GPUDeviceLostInfo> } | null;
  verifierDevices: { context(): Promise<{ device: { destroy(): void } }> } | null;
}

/** What a load reports while it runs, and what aborts its network reads (a newer load, or Cancel). */
export interface LoadHooks {
  signal: AbortSignal;
  onProgress(file: string, loaded: number, total: number | null): void;
  onPhase(phase: LoadPhase): void;
}

/** The worker's outside world: how a pair is loaded, how events reach the page, and how it reads its messages. */
export interface WorkerPorts {
  loadEngine(message: LoadMessage, hooks: LoadHooks): Promise<WorkerSetup>;
  post(message: FromWorker): void;
  /**
   * Lets the worker read the messages waiting for it, mid-run: onnxruntime's wasm calls resolve within the task
   * that made them, so a decode loop would otherwise never hear Cancel or Pause (worker.ts says how).
   */
  readMessages(): Promise<void>;
}

/** Everything the worker remembers between messages. */
interface WorkerState {
  /** The loaded pair, its verifier and engine, replaced on every load. */
  setup: WorkerSetup | null;
  /** What the latest load asked for and reported: the base of a fallback after a GPU failure. */
  loaded: { message: LoadMessage; info: EngineInfo } | null;
  /** Why onnxruntime's WebGPU device was lost under the models, once it has been. */
  modelsDeviceLoss: string | null;
  /** The job running now (a run, race, sweep or scorecard) and what aborts it. */
  active: { runId: number; controller: AbortController } | null;
  /**
   * Jobs are numbered as they arrive; each cancels every job before it, and a cancel cancels every job so far.
   * A job still queued, or still compiling its schema, when it is cancelled must not start: `active` only
   * reaches a job once it runs.
   */
  jobsArrived: number;
  jobsCancelled: number;
  /** The load in flight: a new load (or Cancel, which loads the bundled pair) aborts its network reads. */
  loading: AbortController | null;
  paused: boolean;
  /** Steps the presenter asked for while paused. */
  stepsAllowed: number;
  stepDelayMs: number;
  /** Wakes a run waiting at its pause gate. */
  wake: (() => void) | null;
  /** onnxruntime sessions run one call at a time: each job starts after the one before it has stopped. */
  queue: Promise<void>;
}

/** The most often step records are sent while a run goes straight on: each batch costs the page a render. */
const FLUSH_MS = 400;
/** The most often one file's download progress is posted: each post costs the page a render. */
const PROGRESS_MS = 100;

export class EngineWorkerHandler {
  private readonly state: WorkerState = {
    setup: null,
    loaded: null,
    modelsDeviceLoss: null,
    active: null,
    jobsArrived: 0,
    jobsCancelled: 0,
    loading: null,
    paused: false,
    stepsAllowed: 0,
    stepDelayMs: 0,
    wake: null,
    queue: Promise.resolve(),
  };

  constructor(private readonly ports: WorkerPorts) {}

  /** One message from the page. Jobs queue behind each other; pause, step, delay and cancel act at once. */
  receive(message: ToWorker): void {
    const { state } = this;
    switch (message.type) {
      case 'load': {
        state.active?.controller.abort();
        state.loading?.abort();
        const controller = new AbortController();
        state.loading = controller;
        this.nudge();
        this.enqueue(() => this.load(message, controller));
        break;
      }
      case 'run': {
        const job = this.newJob();
        // Set as the message arrives, not when the job starts: a Step or Resume sent while the run still waits in
        // the queue (behind the warm-up, say) belongs to it and must not be overwritten.
        state.paused = message.paused;
        state.stepsAllowed = message.paused ? 1 : 0;
        this.nudge();
        this.enqueue(() => this.run(message, job));
        break;
      }
      case 'race':
      case 'sweep':
      case 'scorecard': {
        const job = this.newJob();
        this.nudge();
        this.enqueue(() => this.benchJob(message, job));
        break;
      }
      case 'pause':
        state.paused = true;
        break;
      case 'resume':
        state.paused = false;
        this.nudge();
        break;
      case 'step':
        state.stepsAllowed++;
        this.nudge();
        break;
      case 'delay':
        state.stepDelayMs = message.stepDelayMs;
        break;
      case 'cancel':
        this.cancelJobs();
        this.nudge();
        break;
      case 'find-scenes':
        // Queued, not a job: it cancels nothing, and a run sent after it waits for the talk's check.
        this.enqueue(() => this.findScenes(message));
        break;
      case 'lose-gpu-device':
        // The test hook (app.tsx sends it only under ?test-hooks): loses the verifier's device mid-run, as
        // a driver reset would.
        void state.setup?.verifierDevices?.context().then((context) => context.device.destroy());
        break;
    }
  }

  private post(message: FromWorker): void {
    this.ports.post(message);
  }

  /** After a wasm trap this worker's xgrammar is corrupt: the page replaces the worker. */
  private reportTrap(error: unknown): void {
    const event = trapEvent(error);
    if (event) this.post(event);
  }

  private nudge(): void {
    this.state.wake?.();
    this.state.wake = null;
  }

  private enqueue(work: () => Promise<void>): void {
    this.state.queue = this.state.queue.then(work, work);
  }

  private cancelledJob(job: number): boolean {
    return job <= this.state.jobsCancelled;
  }

  /** Cancels every job so far, running or queued. */
  private cancelJobs(): void {
    this.state.jobsCancelled = this.state.jobsArrived;
    this.state.active?.controller.abort();
  }

  /** A new job cancels every one before it. */
  private newJob(): number {
    this.cancelJobs();
    return ++this.state.jobsArrived;
  }

  /** Posts a file's progress at its start, at most every PROGRESS_MS while it downloads, and at its end. */
  private throttledProgress(): LoadHooks['onProgress'] {
    const lastPost = new Map<string, number>();
    return (file, loaded, total) => {
      const now = performance.now();
      const finished = total !== null && loaded >= total;
      if (!finished && now - (lastPost.get(file) ?? -Infinity) < PROGRESS_MS) return;
      lastPost.set(file, now);
      this.post({ type: 'progress', file, loaded, total });
    };
  }

  /**
   * `controller` aborts the load's network reads (a newer load, or Cancel). `lossReason`: set on the reload
   * after a lost device, to say why the models and verifier moved.
   */
  private async load(message: LoadMessage, controller: AbortController, lossReason: string | null = null) {
    const { state } = this;
    if (controller.signal.aborted) return;
    markPhase('load message');
    const started = performance.now();
    // The previous pair's sessions and device go first: a reload must not hold two pairs in memory.
    const previous = state.setup;
    state.setup = null;
    state.loaded = null;
    state.modelsDeviceLoss = null;
    await previous?.dispose();
    try {
      const current = await this.ports.loadEngine(message, {
        signal: controller.signal,
        onProgress: this.throttledProgress(),
        onPhase: (phase) => this.post({ type: 'phase', phase }),
      });
      state.setup = current;
      const { engine } = current;
      const { pair } = engine;
      void current.modelsDevice?.lost.then((info) => {
        if (state.setup === current) state.modelsDeviceLoss = describeDeviceLoss(info);
      });
      const info: EngineInfo = {
        provider: current.provider,
        fallbackReason: lossReason ?? current.fallbackReason,
        webgpuReason: current.webgpuReason,
        logitsInPlace: current.logitsInPlace,
        draftName: pair.draft.name,
        targetName: pair.target.name,
        vocabSize: pair.tokenizer.vocabSize,
        contextLength: engine.contextLength,
        loadMs: performance.now() - started,
        verifier: current.verifier,
        verifierAdapter: current.verifierAdapter,
        verifierReason: lossReason ?? current.verifierReason,
        scoring: engine.scoring,
        tokenTexts: timedSync('token texts', () => pair.tokenizer.tokens.map((_, id) => pair.tokenizer.decode([id]))),
        headUnavailable: engine.headUnavailable,
        wasmThreads: current.wasmThreads,
      };
      state.loaded = { message, info };
      markPhase('engine ready');
      this.post({ type: 'ready', info });
      // After ready, not before: only a run with a schema needs the grammar engine, and that run waits for it. It
      // starts now, beside the warm-up (its wasm compiles off this thread), with the first preset's schema, the one
      // the Run button starts with: a Run pressed at once then waits for neither (bench:load's "run usable").
      void engine
        .prepareGrammar()
        .then(() => engine.compile(FIRST_RUN_SCHEMA))
        .catch(() => undefined);
      // After ready, so that a reload is ready to run sooner (docs/presenting.md#offline), and before any run the page
      // sends (the queue holds it), so that the first run's tokens/s is not a cold start's. A failure here is the first
      // run's to meet and report, with its fallback to the CPU twin (runs have one; a load does not).
      await timed('warm-up', () => engine.warmUp()).catch(() => undefined);
      if (!controller.signal.aborted) this.post({ type: 'warmed-up' });
    } catch (error) {
      // A load replaced by another says nothing: the new one reports.
      if (!controller.signal.aborted) this.post({ type: 'load-error', message: errorText(error) });
    } finally {
      if (state.loading === controller) state.loading = null;
    }
  }

  /** A talk's scenes, each run until the first step that shows its claim (src/engine/sceneFinder.ts). */
  private async findScenes({ talkId, scenes }: FindScenesMessage): Promise<void> {
    const engine = this.state.setup?.engine;
    const found: { scene: number; step: number | null }[] = [];
    if (!engine) return this.post({ type: 'scenes-found', talkId, found, error: 'the models are not loaded' });
    try {
      for (const { scene, params, claim } of scenes)
        found.push({ scene, step: await findClaimStep(engine, params, claim) });
      this.post({ type: 'scenes-found', talkId, found, error: null });
    } catch (error) {
      this.post({ type: 'scenes-found', talkId, found, error: errorText(error) });
      this.reportTrap(error);
    }
  }

  /** Why a run failed, when the cause is a GPU device that can no longer be trusted. */
  private gpuFailure(error: unknown): string | null {
    if (this.state.modelsDeviceLoss) return this.state.modelsDeviceLoss;
    return error instanceof GpuDeviceLostError || error instanceof GpuUncapturedError ? error.message : null;
  }

  /**
   * Hands verification to the CPU twin for good after a GPU failure (and the models to wasm, by a reload,
   * when the lost device was onnxruntime's), and returns the message the failed run ends with. Counters stay
   * whole: the failed step produced no record, and every earlier step was complete.
   */
  private async fallBackToCpuTwin(failure: string): Promise<string> {
    const { state } = this;
    const { setup, loaded } = state;
    if (!setup || !loaded) return `${failure}; continuing on the CPU twin`;
    if (state.modelsDeviceLoss !== null || setup.logitsInPlace) {
      const message: LoadMessage = { ...loaded.message, provider: 'wasm', verifier: 'cpu' };
      const controller = new AbortController();
      state.loading = controller;
      this.enqueue(() => this.load(message, controller, failure));
      return `${failure}; continuing on the CPU twin, with the models on wasm`;
    }
    await setup.useCpuTwin(failure);
    loaded.info = { ...loaded.info, verifier: 'cpu', verifierAdapter: null, verifierReason: failure };
    this.post({ type: 'ready', info: loaded.info });
    return `${failure}; continuing on the CPU twin`;
  }

  /** A failed job's message: a GPU failure falls back to the CPU twin first, and says so. */
  private async failureMessage(error: unknown): Promise<string> {
    const failure = this.gpuFailure(error);
    return failure ? this.fallBackToCpuTwin(failure) : errorText(error);
  }

  /**
   * The engine checks the parameters again (a message may come from anywhere), then compiles the schema
   * if it is new, saying so first: the page stops the worker when a compile outlasts its budget.
   */
  private async prepare(runId: number, params: unknown): Promise<{ engine: WorkerEngine; params: RunParams } | null> {
    const { setup } = this.state;
    if (!setup) {
      this.post({ type: 'run-error', runId, message: 'the models are not loaded yet' });
      return null;
    }
    const { engine } = setup;
    const checked = validateRunParams(params as RunParamsInput);
    if (!checked.ok) {
      this.post({ type: 'run-error', runId, message: errorSummary(checked.errors), errors: checked.errors });
      return null;
    }
    const { schemaText } = checked.params;
    if (schemaText !== null && !engine.isCompiled(schemaText)) {
      let size: SchemaSize;
      try {
        size = measureSchema(parseSchemaText(schemaText));
      } catch (error) {
        // Text that is not JSON has nothing to compile.
        this.post({ type: 'run-error', runId, message: errorText(error) });
        return null;
      }
      this.post({
        type: 'compiling',
        runId,
        properties: size.properties,
        ...(size.nestedRepetition === null ? {} : { pattern: size.nestedRepetition }),
      });
      try {
        await engine.compile(schemaText);
      } catch (error) {
        this.post({ type: 'run-error', runId, message: errorText(error) });
        this.reportTrap(error);
        return null;
      } finally {
        this.post({ type: 'compiled', runId });
      }
    }
    return { engine, params: checked.params };
  }

  /**
   * Runs one job as the active one, so that Cancel and newer jobs abort it. A failure is reported through
   * `fail`: as `cancelledText` when the job was cancelled and has one, else with its GPU fallback done first;
   * a trapped grammar engine is reported after it.
   */
  private async activeJob(
    runId: number,
    cancelledText: string | null,
    work: (signal: AbortSignal) => Promise<void>,
    fail: (message: string, cancelled: boolean) => void,
  ): Promise<void> {
    const { state } = this;
    const controller = new AbortController();
    state.active = { runId, controller };
    try {
      await work(controller.signal);
    } catch (error) {
      const cancelled = controller.signal.aborted;
      fail(cancelled && cancelledText !== null ? cancelledText : await this.failureMessage(error), cancelled);
      this.reportTrap(error);
    } finally {
      if (state.active?.controller === controller) state.active = null;
    }
  }

  /**
   * Sends step records in batches, at most every FLUSH_MS while running (each batch costs the page a render,
   * and on a two-core machine the page and the worker share the CPU), and waits where the user paused or
   * slowed playback.
   */
  private stepSink(runId: number) {
    const { state } = this;
    let pending: StepRecord[] = [];
    /** Time the run has waited for the presenter (pause, single steps): its batch schedule leaves it out, as tokens/s does. */
    let pausedMs = 0;
    const runClock = () => performance.now() - pausedMs;
    // A batch every FLUSH_MS of the run's own time from its start (the first also waits FLUSH_MS: a run shorter than
    // that costs the page no render until it ends; sent at once as a batch, the first step cost the page's tokens/s
    // a third in bench:ui, 0.86 → 0.60 of the bare worker's, as the charts and the inspector redrew for it). The
    // first step also goes ahead alone, as 'first-step', which only the token stream draws. Batches sent early,
    // while paused or in slow motion, do not move the schedule: a run stepped, paused and resumed sends its batches
    // where a straight run sends them, so the page's renders take the same share of the CPU from both (on two
    // cores, the stepped run read ~15% faster).
    let nextBatch = runClock() + FLUSH_MS;
    const flush = () => {
      if (pending.length === 0) return;
      this.post({ type: 'steps', runId, records: pending });
      pending = [];
    };
    const aborted = () => state.active?.controller.signal.aborted === true;
    let sentFirst = false;
    const onStep = async (record: StepRecord) => {
      if (!sentFirst) this.post({ type: 'first-step', runId, record });
      sentFirst = true;
      pending.push(record);
      if (runClock() > nextBatch) {
        flush();
        nextBatch = runClock() + FLUSH_MS;
      } else if (state.paused || state.stepDelayMs > 0) flush();
      await this.ports.readMessages();
      if (state.stepDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.stepDelayMs));
      // A cancelled run's last step takes nothing from the allowance of the run that replaced it.
      if (aborted()) return;
      if (state.paused && state.stepsAllowed > 0) {
        state.stepsAllowed--;
        if (state.stepsAllowed > 0) return;
      }
      const pauseStarted = performance.now();
      while (state.paused && state.stepsAllowed === 0 && !aborted()) {
        this.post({ type: 'paused', runId, paused: true });
        await new Promise<void>((resolve) => (state.wake = resolve));
      }
      pausedMs += performance.now() - pauseStarted;
    };
    return { onStep, flush };
  }

  private async run(message: RunMessage, job: number): Promise<void> {
    const { runId } = message;
    // A cancelled run is gone from the page already (its id is stale there): nothing to report.
    if (this.cancelledJob(job)) return;
    const ready = await this.prepare(runId, message.params);
    if (!ready || this.cancelledJob(job)) return;
    this.state.stepDelayMs = message.stepDelayMs;
    const sink = this.stepSink(runId);
    await this.activeJob(
      runId,
      null,
      async (signal) => {
        // The steps so far go before the run's end, whichever it is.
        // The page's run is the one whose steps the inspector, charts and explanations show.
        const report = await ready.engine
          .run(ready.params, sink.onStep, signal, { analyses: true })
          .finally(sink.flush);
        this.post({ type: 'done', runId, report });
      },
      (text) => this.post({ type: 'run-error', runId, message: text }),
    );
  }

  /** A race, sweep or scorecard: cancellable like a run, reporting progress as it goes. */
  private async benchJob(message: BenchMessage, job: number): Promise<void> {
    const { runId } = message;
    const cancelledText = `${message.type} cancelled`;
    const fail = (text: string, cancelled: boolean) =>
      this.post(
        message.type === 'race'
          ? { type: 'run-error', runId, message: text }
          : { type: 'bench-error', runId, message: text, cancelled },
      );
    if (this.cancelledJob(job)) return fail(cancelledText, true);
    // A race checks its parameters and compiles its schema as a run does; sweeps and scorecards vary their own.
    // A sweep's schema is compiled the same way, under the page's compile budget (its cells then reuse it).
    const ready =
      message.type === 'race'
        ? await this.prepare(runId, message.params)
        : message.type === 'sweep'
          ? await this.prepare(runId, message.spec.base)
          : null;
    // prepare() has reported why (a run error under this job's id).
    if (message.type !== 'scorecard' && !ready) return;
    if (this.cancelledJob(job)) return fail(cancelledText, true);
    const { setup } = this.state;
    if (!setup) return fail('the models are not loaded yet', false);
    const { engine } = setup;
    const readMessages = () => this.ports.readMessages();
    await this.activeJob(
      runId,
      cancelledText,
      async (signal) => {
        const options = {
          signal,
          onProgress: (done: number, total: number) => this.post({ type: 'bench-progress', runId, done, total }),
        };
        const run = (params: RunParams) => engine.run(params, readMessages, signal);
        if (message.type === 'race') {
          const params = ready ? ready.params : message.params;
          const { repeats, tokenBudget } = message;
          const result = await raceMethods(run, params, DECODE_METHODS, repeats, { ...options, tokenBudget });
          this.post({ type: 'race-done', runId, result });
        } else if (message.type === 'sweep') {
          await sweep(run, message.spec, {
            ...options,
            onCell: (cell) => this.post({ type: 'sweep-cell', runId, cell }),
          });
          this.post({ type: 'sweep-done', runId });
        } else {
          const rows = await scorecard(run, interpretedValidator, message.spec, options);
          this.post({ type: 'scorecard-done', runId, rows });
        }
      },
      fail,
    );
  }
}
