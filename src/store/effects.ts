/**
 * Everything the store does to the world, in one place: messages to the engine (and restarting it), the
 * schema compile's watchdog timer, races kept in localStorage, and timeline marks. The slices call it from
 * their actions; the effects an engine event implies (receive.ts returns them as data) are run by `perform`.
 */
import type { RaceResult } from '../contract/bench';
import { SCHEMA_LIMITS } from '../contract/limits';
import type { ExecutionProvider, PairSource, ToWorker, VerifierChoice } from '../contract/protocol';
import { compileTimeoutMessage } from '../contract/validation';
import { markPhase } from '../core/timeline';
import type { EngineTransport, StoreOptions } from './state';

/** What an engine event asks of the world, as data: `receive` returns these, `perform` does them in order. */
export type StoreEffect =
  | { type: 'send'; message: ToWorker }
  | { type: 'mark-phase'; phase: string }
  /** A compile started: stop it (and say why) if it outlasts the budget. */
  | { type: 'watch-compile'; properties: number; pattern: string | null }
  | { type: 'stop-compile-watch' }
  /** The engine is replaced by a fresh one, which the `load` after it loads. */
  | { type: 'restart-engine' }
  | { type: 'keep-race'; key: string; result: RaceResult }
  /** Store actions an event leads to: load the pair, start the run a link asked for, start a talk's scene. */
  | { type: 'load' }
  | { type: 'auto-run' }
  | { type: 'start-scene' };

/** The store's own actions that effects lead to. */
export interface FollowUps {
  load(): void;
  autoRun(): void;
  startScene(): void;
  /** Stops a compile that ran past its budget, saying why. */
  abandonCompile(message: string): void;
}

/** A talk's race, as kept: when it ran and its rows. */
export interface RaceRecord {
  at: number;
  result: RaceResult;
}

export type StoreEffects = ReturnType<typeof createStoreEffects>;

/** The longest a run's message waits for the page to draw the run's start (a busy page gets no idle moment). */
export const RUN_START_WAIT_MS = 100;

function nextIdleMoment(task: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(task, { timeout: RUN_START_WAIT_MS });
  else task();
}

export function createStoreEffects(transport: EngineTransport, options: StoreOptions = {}) {
  const compileBudgetMs = options.compileBudgetMs ?? SCHEMA_LIMITS.compileSeconds * 1000;
  const watchdog: { timer: ReturnType<typeof setTimeout> | undefined } = { timer: undefined };
  const stopCompileWatch = () => clearTimeout(watchdog.timer);
  const afterRender = options.afterRender ?? nextIdleMoment;
  /** A message waiting for the page's render; anything posted meanwhile posts it first, so the engine sees the order sent. */
  let held: ToWorker | null = null;
  const post = (message: ToWorker) => {
    postHeld();
    transport.post(message);
  };
  const postHeld = () => {
    const message = held;
    held = null;
    if (message) transport.post(message);
  };
  const effects = {
    send: post,
    /**
     * Sends `message` once the page has drawn the store's latest change. A run's start redraws the page (the last
     * run's charts, stream and inspector cleared); drawn while the engine's first steps ran, that work took the
     * engine's second core and a fifth of the run's tokens/s in bench:ui (docs/performance.md, "The UI").
     */
    sendAfterRender(message: ToWorker): void {
      postHeld();
      held = message;
      afterRender(postHeld);
    },
    /** Asks the engine for a pair, with the network bounds and test hooks this store was made with. */
    load(source: PairSource, provider: ExecutionProvider | 'auto', verifier: VerifierChoice): void {
      post({
        type: 'load',
        source,
        provider,
        verifier,
        ...(options.network ? { network: options.network } : {}),
        ...(options.assumeHardwareAdapter ? { assumeHardwareAdapter: true } : {}),
      });
    },
    /** Stops the engine at once (a compile cannot be interrupted) and starts a fresh one, with no pair loaded. */
    restartEngine(): void {
      postHeld();
      transport.restart();
    },
    /** Calls `onTimeout` with why, if the compile is not over within the budget. */
    watchCompile(properties: number, pattern: string | null, onTimeout: (message: string) => void): void {
      stopCompileWatch();
      watchdog.timer = setTimeout(
        () => onTimeout(compileTimeoutMessage(compileBudgetMs, properties, pattern)),
        compileBudgetMs,
      );
    },
    stopCompileWatch,
    /** A talk's race as kept on an earlier visit, or null (none, damaged, or no storage). */
    readRaceRecord(key: string): RaceRecord | null {
      try {
        const record: unknown = JSON.parse(localStorage.getItem(key) ?? 'null');
        if (typeof record !== 'object' || record === null || !('at' in record) || !('result' in record)) return null;
        const { at, result } = record as { at: unknown; result: unknown };
        const entries = typeof result === 'object' && result !== null && 'entries' in result ? result.entries : null;
        return typeof at === 'number' && Array.isArray(entries) && entries.length > 0 ? (record as RaceRecord) : null;
      } catch {
        // No storage (a private window, a sandboxed frame) or a damaged entry: the scene races afresh.
        return null;
      }
    },
    writeRaceRecord(key: string, result: RaceResult): void {
      try {
        localStorage.setItem(key, JSON.stringify({ at: Date.now(), result } satisfies RaceRecord));
      } catch {
        // Storage full or refused: the race is shown, just not kept.
      }
    },
    /** Does what an engine event implies, in order. */
    perform(list: readonly StoreEffect[], followUps: FollowUps): void {
      for (const effect of list) {
        switch (effect.type) {
          case 'send':
            effects.send(effect.message);
            break;
          case 'mark-phase':
            markPhase(effect.phase);
            break;
          case 'watch-compile':
            effects.watchCompile(effect.properties, effect.pattern, followUps.abandonCompile);
            break;
          case 'stop-compile-watch':
            stopCompileWatch();
            break;
          case 'restart-engine':
            effects.restartEngine();
            break;
          case 'keep-race':
            effects.writeRaceRecord(effect.key, effect.result);
            break;
          case 'load':
            followUps.load();
            break;
          case 'auto-run':
            followUps.autoRun();
            break;
          case 'start-scene':
            followUps.startScene();
            break;
        }
      }
    },
  };
  return effects;
}
