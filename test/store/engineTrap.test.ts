/**
 * Nothing jams the engine: a wasm trap in the grammar engine replaces the worker, and a sweep's or a race's
 * schema compile has the same budget as a run's, with Cancel (or Reset) able to stop it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findPreset, presetParams } from '../../src/contract/runParams';
import type { ToWorker } from '../../src/contract/protocol';
import { GrammarEngine, GrammarTrapError, isGrammarTrap } from '../../src/grammar/engine';
import { SchemaError } from '../../src/grammar/schema';
import { createSpecStore } from '../../src/store/store';
import { SMALL_VOCAB, STOP } from '../support/smallVocab';
import { WASM_ENGINE_INFO } from '../support/engineInfo';

/** The schema checks refuse what is known to trap xgrammar; a test lets one through to see what a trap they miss does. */
const schemaChecks = vi.hoisted(() => ({ skipped: false }));
vi.mock('../../src/grammar/schema', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/grammar/schema')>();
  return { ...actual, checkSchema: (schema: unknown) => (schemaChecks.skipped ? [] : actual.checkSchema(schema)) };
});

afterEach(() => {
  vi.useRealTimers();
});

function readyStore() {
  const sent: ToWorker[] = [];
  let restarts = 0;
  const store = createSpecStore(
    { post: (message) => sent.push(message), restart: () => restarts++ },
    { compileBudgetMs: 10_000 },
  );
  store.getState().receive({ type: 'ready', info: WASM_ENGINE_INFO });
  return { store, sent, restarts: () => restarts };
}

describe('a sweep compiling a huge schema', () => {
  const spec = { base: presetParams(findPreset('person')), Ks: [1, 2], Ls: [2], seeds: 1 };

  it('is stopped by the compile budget: the worker restarts and the sweep reads error', () => {
    vi.useFakeTimers();
    const { store, sent, restarts } = readyStore();
    store.getState().startSweep(spec);
    const runId = store.getState().sweep.id;
    store.getState().receive({ type: 'compiling', runId, properties: 10_000 });
    vi.advanceTimersByTime(10_000);
    expect(restarts()).toBe(1);
    expect(store.getState().sweep).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^this schema has 10,000 properties; compiling it took more than 10 s/) as unknown,
    });
    expect(sent.at(-1)?.type).toBe('load');
  });

  it('is abandoned at once by Cancel, which a worker busy compiling could not hear', () => {
    const { store, restarts } = readyStore();
    store.getState().startSweep(spec);
    store.getState().receive({ type: 'compiling', runId: store.getState().sweep.id, properties: 10_000 });
    store.getState().cancelBench();
    expect(restarts()).toBe(1);
    expect(store.getState().sweep.status).toBe('cancelled');
    expect(store.getState().compiling).toBeNull();
  });

  it('shows a refused schema as the sweep’s error', () => {
    const { store } = readyStore();
    store.getState().startSweep(spec);
    store.getState().receive({
      type: 'run-error',
      runId: store.getState().sweep.id,
      message: 'the schema nests more than 32 levels deep',
    });
    expect(store.getState().sweep).toMatchObject({
      status: 'error',
      error: 'the schema nests more than 32 levels deep',
    });
  });
});

describe('a race compiling a huge schema', () => {
  it('is stopped by the same compile budget: the worker restarts and the race reads error', () => {
    vi.useFakeTimers();
    const { store, sent, restarts } = readyStore();
    store.getState().startRace();
    store.getState().receive({ type: 'compiling', runId: store.getState().race.id, properties: 10_000 });
    vi.advanceTimersByTime(10_000);
    expect(restarts()).toBe(1);
    expect(store.getState().race).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^this schema has 10,000 properties; compiling it took more than 10 s/) as unknown,
    });
    expect(sent.at(-1)?.type).toBe('load');
  });

  it('is abandoned at once by Reset', () => {
    const { store, restarts } = readyStore();
    store.getState().startRace();
    store.getState().receive({ type: 'compiling', runId: store.getState().race.id, properties: 10_000 });
    store.getState().reset();
    expect(restarts()).toBe(1);
    expect(store.getState().race.status).toBe('cancelled');
    expect(store.getState().compiling).toBeNull();
  });
});

describe('a trapped grammar engine', () => {
  it('is told apart from xgrammar’s own refusals: a trap restarts, an abort with a message does not', () => {
    expect(isGrammarTrap(new WebAssembly.RuntimeError('memory access out of bounds'))).toBe(true);
    expect(isGrammarTrap(new GrammarTrapError('xgrammar crashed on the schema'))).toBe(true);
    expect(isGrammarTrap(new WebAssembly.RuntimeError('Aborted(). Build with -sASSERTIONS for more info.'))).toBe(
      false,
    );
    expect(isGrammarTrap(new SchemaError('xgrammar rejected the schema: bad'))).toBe(false);
  });

  it('is what a stack overflow inside xgrammar is (a regex of 5,000 nested groups, past the checks), so the worker restarts rather than every later compile failing', async () => {
    const engine = await GrammarEngine.create({ tokens: SMALL_VOCAB, vocabType: 'raw', stopTokenIds: [STOP] });
    const schema = JSON.stringify({
      type: 'object',
      properties: { x: { type: 'string', pattern: `${'('.repeat(5000)}a${')'.repeat(5000)}` } },
    });
    await expect(engine.compile(schema)).rejects.toThrow(/nests its groups 5,000 levels deep/);
    schemaChecks.skipped = true;
    try {
      await expect(engine.compile(schema)).rejects.toThrow(GrammarTrapError);
    } finally {
      schemaChecks.skipped = false;
    }
  });

  it('restarts the worker and reloads the pair after the run’s error, and the next run is sent to the fresh engine', () => {
    const { store, sent, restarts } = readyStore();
    store.getState().start();
    const runId = (sent.at(-1) as { runId: number }).runId;
    store.getState().receive({
      type: 'run-error',
      runId,
      message:
        'xgrammar crashed on the schema. The grammar engine is restarted and the models reload; then the next run works.',
    });
    store.getState().receive({ type: 'engine-trapped' });
    expect(restarts()).toBe(1);
    expect(sent.at(-1)?.type).toBe('load');
    expect(store.getState().run.error).toMatch(/restarted/);
    store.getState().receive({ type: 'ready', info: WASM_ENGINE_INFO });
    store.getState().start();
    expect(sent.at(-1)?.type).toBe('run');
  });
});
