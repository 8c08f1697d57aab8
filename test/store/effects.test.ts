/** The store's effects module: the one place the store touches the transport, timers and localStorage. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';
import type { RaceResult } from '../../src/contract/bench';
import type { ToWorker } from '../../src/contract/protocol';
import { compileTimeoutMessage } from '../../src/contract/validation';
import { RUN_START_WAIT_MS, createStoreEffects, type FollowUps } from '../../src/store/effects';

function transport() {
  const sent: ToWorker[] = [];
  const restarts: number[] = [];
  return {
    sent,
    restarts,
    transport: { post: (message: ToWorker) => sent.push(message), restart: () => restarts.push(1) },
  };
}

/** localStorage as a Map, or one that refuses every call (a private window). */
function storage(refuse = false): Storage {
  const items = new Map<string, string>();
  const refused = () => {
    throw new DOMException('refused', 'SecurityError');
  };
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    key: (index) => [...items.keys()][index] ?? null,
    getItem: (key) => (refuse ? refused() : (items.get(key) ?? null)),
    setItem: (key, value) => (refuse ? refused() : void items.set(key, value)),
    removeItem: (key) => void items.delete(key),
  };
}

const RESULT: RaceResult = { repeats: 1, tokenBudget: 1, entries: [{ method: 'ar' } as RaceResult['entries'][number]] };

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the store effects', () => {
  it('sends messages and loads with the network bounds and test hooks it was made with', () => {
    const { sent, restarts, transport: port } = transport();
    const network = { requestMs: 5, stallMs: 6 };
    const effects = createStoreEffects(port, { network, assumeHardwareAdapter: true });
    effects.send({ type: 'pause' });
    effects.load(BUNDLED_PAIR, 'wasm', 'cpu');
    effects.restartEngine();
    expect(sent).toEqual([
      { type: 'pause' },
      { type: 'load', source: BUNDLED_PAIR, provider: 'wasm', verifier: 'cpu', network, assumeHardwareAdapter: true },
    ]);
    expect(restarts).toEqual([1]);
  });

  it("holds a run's message until the page has drawn, and posts it before anything sent meanwhile, so the engine sees the order sent", () => {
    const { sent, restarts, transport: port } = transport();
    const renders: (() => void)[] = [];
    const effects = createStoreEffects(port, { afterRender: (task) => renders.push(task) });
    const run = (runId: number) => ({ type: 'run', runId }) as unknown as ToWorker;
    effects.sendAfterRender(run(1));
    expect(sent).toEqual([]);
    (renders.shift() as () => void)();
    expect(sent).toEqual([run(1)]);
    // Pressed again before the page drew: the first run goes, then the message after it, and the render posts nothing twice.
    effects.sendAfterRender(run(2));
    effects.send({ type: 'pause' });
    effects.sendAfterRender(run(3));
    effects.restartEngine();
    for (const render of renders) render();
    expect(sent).toEqual([run(1), run(2), { type: 'pause' }, run(3)]);
    expect(restarts).toEqual([1]);
  });

  it('posts a held run at once where the page has no idle callback (Node), and at the next idle moment where it has', () => {
    const { sent, transport: port } = transport();
    const run = { type: 'run', runId: 1 } as unknown as ToWorker;
    createStoreEffects(port).sendAfterRender(run);
    expect(sent).toEqual([run]);
    const idle: { task: () => void; timeout: number | undefined }[] = [];
    vi.stubGlobal('requestIdleCallback', (task: () => void, options?: { timeout?: number }) =>
      idle.push({ task, timeout: options?.timeout }),
    );
    createStoreEffects(port).sendAfterRender(run);
    expect(sent).toEqual([run]);
    expect(idle.map(({ timeout }) => timeout)).toEqual([RUN_START_WAIT_MS]);
    idle[0]?.task();
    expect(sent).toEqual([run, run]);
  });

  it('stops a compile past its budget, saying why; a compile that ends in time, or a newer one, stops the watch', () => {
    vi.useFakeTimers();
    const effects = createStoreEffects(transport().transport, { compileBudgetMs: 1000 });
    const stopped: string[] = [];
    effects.watchCompile(3, null, (message) => stopped.push(message));
    vi.advanceTimersByTime(999);
    effects.stopCompileWatch();
    vi.advanceTimersByTime(10_000);
    expect(stopped).toEqual([]);
    effects.watchCompile(3, null, (message) => stopped.push(`first: ${message}`));
    effects.watchCompile(1, '(a+)+', (message) => stopped.push(message));
    vi.advanceTimersByTime(1000);
    expect(stopped).toEqual([compileTimeoutMessage(1000, 1, '(a+)+')]);
    expect(stopped[0]).toContain('"(a+)+" repeats a group');
    expect(compileTimeoutMessage(1000, 3, null)).toMatch(
      /^this schema has 3 properties; compiling it took more than 1 s/,
    );
  });

  it('keeps a race in localStorage and reads it back; a damaged record or refused storage reads as none', () => {
    vi.stubGlobal('localStorage', storage());
    const effects = createStoreEffects(transport().transport);
    expect(effects.readRaceRecord('k')).toBeNull();
    effects.writeRaceRecord('k', RESULT);
    expect(effects.readRaceRecord('k')).toMatchObject({ result: RESULT });
    localStorage.setItem('k', '{"at": 1, "result": {"entries": []}}');
    expect(effects.readRaceRecord('k')).toBeNull();
    localStorage.setItem('k', '{');
    expect(effects.readRaceRecord('k')).toBeNull();
    vi.stubGlobal('localStorage', storage(true));
    expect(() => effects.writeRaceRecord('k', RESULT)).not.toThrow();
    expect(effects.readRaceRecord('k')).toBeNull();
  });

  it('performs a list of effects in order, handing store actions to the store', () => {
    vi.useFakeTimers();
    vi.stubGlobal('localStorage', storage());
    const { sent, restarts, transport: port } = transport();
    const effects = createStoreEffects(port, { compileBudgetMs: 10 });
    const calls: string[] = [];
    const followUps: FollowUps = {
      load: () => calls.push('load'),
      autoRun: () => calls.push('auto-run'),
      startScene: () => calls.push('start-scene'),
      abandonCompile: (message) => calls.push(`abandon: ${message}`),
    };
    effects.perform(
      [
        { type: 'send', message: { type: 'step' } },
        { type: 'keep-race', key: 'k', result: RESULT },
        { type: 'restart-engine' },
        { type: 'load' },
        { type: 'auto-run' },
        { type: 'start-scene' },
        { type: 'watch-compile', properties: 1, pattern: null },
      ],
      followUps,
    );
    expect(sent).toEqual([{ type: 'step' }]);
    expect(restarts).toEqual([1]);
    expect(effects.readRaceRecord('k')?.result).toEqual(RESULT);
    vi.advanceTimersByTime(10);
    expect(calls).toEqual(['load', 'auto-run', 'start-scene', `abandon: ${compileTimeoutMessage(10, 1, null)}`]);
    effects.perform(
      [{ type: 'watch-compile', properties: 1, pattern: null }, { type: 'stop-compile-watch' }],
      followUps,
    );
    vi.advanceTimersByTime(100);
    expect(calls).toHaveLength(4);
  });
});
