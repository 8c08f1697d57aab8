/** A wasm trap in the grammar engine does not jam the app: the page replaces the worker and reloads the pair. */
import { describe, expect, it } from 'vitest';
import type { EngineInfo, ToWorker } from '../../src/contract/protocol';
import { GrammarTrapError, isGrammarTrap } from '../../src/grammar/engine';
import { SchemaError } from '../../src/grammar/schema';
import { createSpecStore } from '../../src/store/store';

const INFO: EngineInfo = { provider: 'wasm', fallbackReason: null, draftName: 'd', targetName: 't', vocabSize: 10, contextLength: 128, loadMs: 1, verifier: 'cpu', verifierAdapter: null, verifierReason: null, scoring: { path: 'tree', reason: null }, tokenTexts: [] };

describe('a trapped grammar engine', () => {
  it('is told apart from xgrammar’s own refusals: a trap restarts, an abort with a message does not', () => {
    expect(isGrammarTrap(new WebAssembly.RuntimeError('memory access out of bounds'))).toBe(true);
    expect(isGrammarTrap(new GrammarTrapError('xgrammar crashed on the schema'))).toBe(true);
    expect(isGrammarTrap(new WebAssembly.RuntimeError('Aborted(). Build with -sASSERTIONS for more info.'))).toBe(false);
    expect(isGrammarTrap(new SchemaError('xgrammar rejected the schema: bad'))).toBe(false);
  });

  it('restarts the worker and reloads the pair after the run’s error, and the next run is sent to the fresh engine', () => {
    const sent: ToWorker[] = [];
    let restarts = 0;
    const store = createSpecStore({ post: (message) => sent.push(message), restart: () => restarts++ });
    store.getState().receive({ type: 'ready', info: INFO });
    store.getState().start();
    const runId = (sent.at(-1) as { runId: number }).runId;
    store.getState().receive({ type: 'run-error', runId, message: 'xgrammar crashed on the schema. The grammar engine is restarted and the models reload; then the next run works.' });
    store.getState().receive({ type: 'engine-trapped' });
    expect(restarts).toBe(1);
    expect(sent.at(-1)?.type).toBe('load');
    expect(store.getState().run.error).toMatch(/restarted/);
    store.getState().receive({ type: 'ready', info: INFO });
    store.getState().start();
    expect(sent.at(-1)?.type).toBe('run');
  });
});
