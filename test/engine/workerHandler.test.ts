/**
 * The engine worker's message handler, driven in Node through the protocol's messages over a fake engine: the
 * engine is not what is tested here; the job queue, the pause gate, cancels, the GPU fallback and the trap
 * report are. Each test checks what the page would see, in the order it would see it.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';
import type { FromWorker, ToWorker } from '../../src/contract/protocol';
import { DECODE_METHODS, findPreset, presetParams, type RunParams } from '../../src/contract/runParams';
import type { RunReport } from '../../src/contract/runReport';
import type { StepRecord } from '../../src/contract/stepRecord';
import { GpuDeviceLostError } from '../../src/gpu/device';
import { GrammarTrapError } from '../../src/grammar/engine';
import {
  EngineWorkerHandler,
  type LoadHooks,
  type LoadMessage,
  type WorkerEngine,
  type WorkerSetup,
} from '../../src/engine/workerHandler';
import { goodReport } from '../support/runReports';

const TOKENS = ['a', 'b', 'c'];
const STEPS_PER_RUN = 4;

/** Runs a fixed number of steps, stopping early when aborted; `failure` is thrown after the next run's first step. */
class FakeEngine implements WorkerEngine {
  readonly pair = {
    draft: { name: 'fake draft' },
    target: { name: 'fake target' },
    tokenizer: {
      vocabSize: TOKENS.length,
      tokens: TOKENS,
      decode: (ids: number[]) => ids.map((id) => TOKENS[id]).join(''),
    },
  };
  readonly contextLength = 64;
  readonly scoring = { path: 'batched', reason: 'a fake target' } as const;
  readonly headUnavailable = null;
  failure: Error | null = null;
  compileFailure: Error | null = null;
  readonly started: RunParams[] = [];
  warmUps = 0;
  stepsTaken = 0;
  private readonly compiled = new Set<string>();

  /** Whether each run asked for the teaching analyses, in order. */
  readonly analysesAsked: boolean[] = [];

  async run(
    params: RunParams,
    onStep: (record: StepRecord) => void | Promise<void>,
    signal: AbortSignal,
    extras: { analyses?: boolean } = {},
  ) {
    this.started.push(params);
    this.analysesAsked.push(extras.analyses === true);
    let steps = 0;
    while (steps < STEPS_PER_RUN && !signal.aborted) {
      this.stepsTaken++;
      await onStep({ index: steps } as StepRecord);
      steps++;
      const failure = this.failure;
      this.failure = null;
      if (failure) throw failure;
    }
    const report: RunReport = {
      ...goodReport(),
      params,
      tokens: Array.from({ length: steps }, () => 1),
      steps,
      ending: signal.aborted ? 'cancelled' : 'stopped',
    };
    return report;
  }
  isCompiled(schemaText: string) {
    return this.compiled.has(schemaText);
  }
  async compile(schemaText: string) {
    if (this.compileFailure) throw this.compileFailure;
    this.compiled.add(schemaText);
  }
  async warmUp() {
    this.warmUps++;
  }
  async prepareGrammar() {}
}

interface FakeSetup extends WorkerSetup {
  engine: FakeEngine;
  cpuTwinReasons: string[];
}

function fakeSetup(engine = new FakeEngine(), overrides: Partial<Omit<WorkerSetup, 'engine'>> = {}): FakeSetup {
  const cpuTwinReasons: string[] = [];
  return {
    engine,
    provider: 'webgpu',
    fallbackReason: null,
    webgpuReason: 'a hardware adapter',
    logitsInPlace: false,
    verifier: 'gpu',
    verifierAdapter: 'fake adapter',
    verifierReason: null,
    wasmThreads: { threads: 1, reason: 'one thread: the page is not cross-origin isolated' },
    modelsDevice: null,
    verifierDevices: null,
    useCpuTwin: async (reason) => void cpuTwinReasons.push(reason),
    dispose: async () => undefined,
    cpuTwinReasons,
    ...overrides,
  };
}

/**
 * A handler over `setups` (one per load, in order) with the page's side: every event posted, a wait for the
 * nth event of a type, and messages that reach the worker mid-job, when it next reads its messages.
 */
function harness(...setups: FakeSetup[]) {
  const posted: FromWorker[] = [];
  const loads: LoadMessage[] = [];
  const waiters: (() => void)[] = [];
  const atTurn = new Map<number, ToWorker>();
  let turns = 0;
  const handler: EngineWorkerHandler = new EngineWorkerHandler({
    loadEngine: async (message: LoadMessage, hooks: LoadHooks) => {
      loads.push(message);
      hooks.onPhase('download');
      hooks.onProgress('draft.onnx', 0, 100);
      hooks.onProgress('draft.onnx', 100, 100);
      const setup = setups[loads.length - 1];
      if (!setup) throw new Error(`no setup for load ${loads.length}`);
      return setup;
    },
    post: (message) => {
      posted.push(message);
      for (const wake of waiters.splice(0)) wake();
    },
    readMessages: async () => {
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
      const message = atTurn.get(turns);
      if (message) handler.receive(message);
    },
  });
  const ofType = <T extends FromWorker['type']>(type: T) =>
    posted.filter((message): message is Extract<FromWorker, { type: T }> => message.type === type);
  /** The `count`th event of `type` (the first by default), once posted. */
  const until = async <T extends FromWorker['type']>(type: T, count = 1): Promise<Extract<FromWorker, { type: T }>> => {
    while (ofType(type).length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return ofType(type)[count - 1] as Extract<FromWorker, { type: T }>;
  };
  const stepsOf = (runId: number) =>
    ofType('steps')
      .filter((message) => message.runId === runId)
      .flatMap((message) => message.records.map((record) => record.index));
  return {
    handler,
    posted,
    loads,
    ofType,
    until,
    stepsOf,
    /** `message` reaches the worker the `count`th time from now that a job reads its messages (after a step). */
    deliverAfterTurns: (count: number, message: ToWorker) => atTurn.set(turns + count, message),
    send: (message: ToWorker) => handler.receive(message),
  };
}

const loadMessage: LoadMessage = { type: 'load', source: BUNDLED_PAIR, provider: 'auto', verifier: 'auto' };
const params = (overrides: Partial<RunParams> = {}) =>
  presetParams(findPreset('person'), { schemaText: null, ...overrides });
/** A run message; each run's seed is its id, so that the engine's runs can be told apart. */
const run = (runId: number, paused = false, runParams = params({ seed: runId })): ToWorker => ({
  type: 'run',
  runId,
  params: runParams,
  paused,
  stepDelayMs: 0,
});

/** A handler with its pair loaded and warmed up. */
async function loaded(...setups: FakeSetup[]) {
  const page = harness(...(setups.length > 0 ? setups : [fakeSetup()]));
  page.send(loadMessage);
  await page.until('warmed-up');
  return page;
}

describe('the engine worker handler', () => {
  it('loads: phase, progress, ready with the engine facts, then the warm-up; a run sent meanwhile waits for it', async () => {
    const setup = fakeSetup();
    const page = harness(setup);
    page.send(loadMessage);
    page.send(run(1));
    await page.until('done');
    const types = page.posted.map((message) => message.type);
    expect(types.slice(0, 3)).toEqual(['phase', 'progress', 'progress']);
    expect(types.indexOf('warmed-up')).toBeLessThan(types.indexOf('steps'));
    expect(page.ofType('progress').at(-1)).toEqual({ type: 'progress', file: 'draft.onnx', loaded: 100, total: 100 });
    const { info } = await page.until('ready');
    expect(info).toMatchObject({
      provider: 'webgpu',
      verifier: 'gpu',
      draftName: 'fake draft',
      targetName: 'fake target',
      vocabSize: 3,
      contextLength: 64,
      tokenTexts: TOKENS,
      wasmThreads: { threads: 1, reason: 'one thread: the page is not cross-origin isolated' },
    });
    expect(setup.engine.warmUps).toBe(1);
  });

  it('a load replaced before it ran loads nothing; a failed load says why', async () => {
    const page = harness(fakeSetup());
    page.send(loadMessage);
    page.send(loadMessage);
    await page.until('warmed-up');
    expect(page.loads).toHaveLength(1);
    expect(page.ofType('ready')).toHaveLength(1);
    const failing = harness();
    failing.send(loadMessage);
    expect(await failing.until('load-error')).toEqual({ type: 'load-error', message: 'no setup for load 1' });
    expect(failing.ofType('ready')).toHaveLength(0);
  });

  it('refuses a run before a load, and parameters the contract rejects', async () => {
    const page = harness();
    page.send(run(1));
    expect(await page.until('run-error')).toEqual({
      type: 'run-error',
      runId: 1,
      message: 'the models are not loaded yet',
    });
    const ready = await loaded();
    ready.send(run(2, false, params({ K: 0 })));
    const refused = await ready.until('run-error');
    expect(refused.runId).toBe(2);
    expect(refused.errors?.K).toBeDefined();
  });

  it('runs: every step once, in order, then done; a new schema is compiled first, and said so', async () => {
    const page = await loaded();
    const schemaText = '{"type":"object","properties":{"a":{"type":"string"}}}';
    page.send(run(1, false, params({ schemaText })));
    const done = await page.until('done');
    expect(page.stepsOf(1)).toEqual([0, 1, 2, 3]);
    // A run shorter than the batch interval costs the page one render, at its end (bench:ui's tokens/s).
    expect(page.ofType('steps').map((message) => message.records.length)).toEqual([4]);
    // …and its first step goes ahead alone, at once, for the token stream (bench:load's "run usable").
    expect(page.ofType('first-step').map((message) => [message.runId, message.record.index])).toEqual([[1, 0]]);
    const types = page.posted.map((message) => message.type);
    expect(types.indexOf('first-step')).toBeLessThan(types.indexOf('steps'));
    expect(done.report.ending).toBe('stopped');
    expect(page.ofType('compiling')).toEqual([{ type: 'compiling', runId: 1, properties: 1 }]);
    expect(page.ofType('compiled')).toEqual([{ type: 'compiled', runId: 1 }]);
    // Compiled once: the next run with the schema goes straight to its steps.
    page.send(run(2, false, params({ schemaText })));
    await page.until('done', 2);
    expect(page.ofType('compiling')).toHaveLength(1);
    expect(page.ofType('first-step').map((message) => message.runId)).toEqual([1, 2]);
  });

  it('a paused run takes one step per Step, and Resume runs it to the end', async () => {
    const page = await loaded();
    page.send(run(1, true));
    await page.until('paused');
    expect(page.stepsOf(1)).toEqual([0]);
    page.send({ type: 'step' });
    await page.until('paused', 2);
    expect(page.stepsOf(1)).toEqual([0, 1]);
    page.send({ type: 'resume' });
    const done = await page.until('done');
    expect(page.stepsOf(1)).toEqual([0, 1, 2, 3]);
    expect(done.report.steps).toBe(4);
  });

  it('Pause stops a running run after the step in flight', async () => {
    const setup = fakeSetup();
    const page = await loaded(setup);
    page.deliverAfterTurns(2, { type: 'pause' });
    page.send(run(1));
    expect(await page.until('paused')).toEqual({ type: 'paused', runId: 1, paused: true });
    // Paused after its second step: the run has taken no third.
    expect(page.ofType('done')).toHaveLength(0);
    expect(setup.engine.stepsTaken).toBe(2);
    page.send({ type: 'resume' });
    await page.until('done');
    expect(page.stepsOf(1)).toEqual([0, 1, 2, 3]);
  });

  it('Cancel ends a paused run between whole steps', async () => {
    const page = await loaded();
    page.send(run(1, true));
    await page.until('paused');
    page.send({ type: 'cancel' });
    const done = await page.until('done');
    expect(done.report.ending).toBe('cancelled');
    expect(page.stepsOf(1)).toEqual([0]);
  });

  it('a new run cancels the one running and every one still queued; a Step sent meanwhile is the new one', async () => {
    const setup = fakeSetup();
    const page = await loaded(setup);
    page.send(run(1, true));
    await page.until('paused');
    page.send(run(2));
    page.send(run(3, true));
    page.send({ type: 'step' });
    await page.until('paused', 2);
    // Run 1 ended cancelled; run 2 never started and says nothing (its id is stale on the page).
    expect(page.ofType('done').map((message) => [message.runId, message.report.ending])).toEqual([[1, 'cancelled']]);
    expect(page.posted.some((message) => 'runId' in message && message.runId === 2)).toBe(false);
    expect(setup.engine.started.map((started) => started.seed)).toEqual([1, 3]);
    expect(page.stepsOf(3)).toEqual([0, 1]);
    expect(page.ofType('paused').at(-1)?.runId).toBe(3);
  });

  it('races every method with progress, and a Cancel stops a race between runs', async () => {
    const page = await loaded();
    page.send({ type: 'race', runId: 1, params: params(), repeats: 1, tokenBudget: 1 });
    const { result } = await page.until('race-done');
    expect(result.entries.map((entry) => entry.method)).toEqual([...DECODE_METHODS]);
    const progress = page.ofType('bench-progress');
    expect(progress.at(-1)).toMatchObject({ runId: 1, done: progress.at(-1)?.total });
    page.deliverAfterTurns(3, { type: 'cancel' });
    page.send({ type: 'race', runId: 2, params: params(), repeats: 1, tokenBudget: 1 });
    expect(await page.until('run-error')).toEqual({ type: 'run-error', runId: 2, message: 'race cancelled' });
  });

  it('asks for the teaching analyses in the page’s run, which shows them, and not in a race, which does not', async () => {
    const setup = fakeSetup();
    const page = await loaded(setup);
    page.send(run(1));
    await page.until('done');
    expect(setup.engine.analysesAsked).toEqual([true]);
    page.send({ type: 'race', runId: 2, params: params(), repeats: 1, tokenBudget: 1 });
    await page.until('race-done');
    expect(setup.engine.analysesAsked.length).toBeGreaterThan(1);
    expect(setup.engine.analysesAsked.slice(1)).not.toContain(true);
  });

  it('sweeps cell by cell', async () => {
    const page = await loaded();
    page.send({ type: 'sweep', runId: -1, spec: { base: params(), Ks: [1, 2], Ls: [2], seeds: 1 } });
    await page.until('sweep-done');
    expect(page.ofType('sweep-cell').map(({ cell }) => [cell.K, cell.L])).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  it('after a GPU failure, verification moves to the CPU twin, the page is told, and the next run works', async () => {
    const setup = fakeSetup();
    const page = await loaded(setup);
    setup.engine.failure = new GpuDeviceLostError('the GPU device was lost: test (destroyed)');
    page.send(run(1));
    const failed = await page.until('run-error');
    expect(failed.message).toBe('the GPU device was lost: test (destroyed); continuing on the CPU twin');
    expect(setup.cpuTwinReasons).toEqual(['the GPU device was lost: test (destroyed)']);
    // The step before the failure reached the page, then the CPU twin's ready, then the error.
    const order = page.posted.map((message) => message.type).slice(-3);
    expect(order).toEqual(['steps', 'ready', 'run-error']);
    expect((await page.until('ready', 2)).info).toMatchObject({ verifier: 'cpu', verifierAdapter: null });
    page.send(run(2));
    expect((await page.until('done')).runId).toBe(2);
  });

  it('when the models shared the lost device, the pair reloads on wasm with the CPU twin, saying why', async () => {
    const lost = { reason: 'unknown', message: 'driver reset' } as GPUDeviceLostInfo;
    const first = fakeSetup(new FakeEngine(), { modelsDevice: { lost: Promise.resolve(lost) } });
    const page = await loaded(first, fakeSetup(new FakeEngine(), { provider: 'wasm', verifier: 'cpu' }));
    first.engine.failure = new Error('onnxruntime: the session failed');
    page.send(run(1));
    const failed = await page.until('run-error');
    const reason = 'the GPU device was lost: driver reset (lost)';
    expect(failed.message).toBe(`${reason}; continuing on the CPU twin, with the models on wasm`);
    const { info } = await page.until('ready', 2);
    expect(page.loads[1]).toMatchObject({ provider: 'wasm', verifier: 'cpu' });
    expect(info).toMatchObject({ provider: 'wasm', verifier: 'cpu', fallbackReason: reason, verifierReason: reason });
  });

  it('a trapped grammar engine fails its job, then asks the page to replace the worker', async () => {
    const setup = fakeSetup();
    const page = await loaded(setup);
    setup.engine.failure = new GrammarTrapError('xgrammar crashed on the mask (test)');
    page.send(run(1));
    await page.until('engine-trapped');
    const failed = page.ofType('run-error')[0];
    expect(failed?.message).toMatch(/^xgrammar crashed on the mask \(test\)\. The grammar engine is restarted/);
    expect(page.posted.at(-1)).toEqual({ type: 'engine-trapped' });
    // A trap in a schema's compile is reported the same way.
    setup.engine.compileFailure = new GrammarTrapError('xgrammar crashed on the schema (test)');
    page.send(run(2, false, params({ schemaText: '{"type":"object"}' })));
    await page.until('engine-trapped', 2);
    expect(page.ofType('run-error')[1]?.runId).toBe(2);
    expect(page.posted.at(-1)).toEqual({ type: 'compiled', runId: 2 });
  });

  it('keeps its state in the handler: no module-level let or var in the worker files', () => {
    for (const file of ['src/engine/worker.ts', 'src/engine/workerHandler.ts']) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
      const mutable = source.statements.filter(
        (statement) => ts.isVariableStatement(statement) && !(statement.declarationList.flags & ts.NodeFlags.Const),
      );
      expect(
        mutable.map((statement) => statement.getText(source).split('\n')[0]),
        file,
      ).toEqual([]);
    }
  });
});
