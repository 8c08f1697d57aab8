/**
 * How an engine event changes the store: `reduce` returns the new state's changed fields and the effects the
 * event implies (as data), touching nothing else; the store applies the one and hands the other to effects.ts.
 */
import { recordCompletion, recordStep, type CompletionKind } from '../core/metrics';
import type { FromWorker } from '../contract/protocol';
import { reduceBench } from './benchSlice';
import type { StoreEffect } from './effects';
import { raceRecordKey } from './raceSlice';
import type { StoreState } from './state';
import { claimMissing } from './talk';

/** The store's data, without its actions. */
export type StoreData = {
  [K in keyof StoreState as StoreState[K] extends (...args: never[]) => unknown ? never : K]: StoreState[K];
};

export interface Reduced {
  /** The fields that change (the rest stay as they are). */
  state: Partial<StoreData>;
  effects: StoreEffect[];
}

const only = (state: Partial<StoreData>): Reduced => ({ state, effects: [] });

export function reduce(state: StoreData, message: FromWorker): Reduced {
  const bench = reduceBench(state, message);
  if (bench) return only(bench);
  switch (message.type) {
    case 'progress':
      return only({
        engine: {
          ...state.engine,
          phase: 'download',
          progress: { ...state.engine.progress, [message.file]: { loaded: message.loaded, total: message.total } },
        },
      });
    case 'phase':
      return only({ engine: { ...state.engine, phase: message.phase } });
    case 'compiling':
      return {
        state: { compiling: { runId: message.runId, properties: message.properties } },
        effects: [{ type: 'watch-compile', properties: message.properties, pattern: message.pattern ?? null }],
      };
    case 'compiled':
      return {
        state: state.compiling?.runId === message.runId ? { compiling: null } : {},
        effects: [{ type: 'stop-compile-watch' }],
      };
    case 'warmed-up':
      return {
        state: { engine: { ...state.engine, warm: true } },
        effects: [{ type: 'mark-phase', phase: 'warmed up' }],
      };
    case 'ready': {
      const effects: StoreEffect[] = [{ type: 'mark-phase', phase: 'ready' }];
      // A shared link's run, then a talk's scene, start once the models are ready.
      if (state.pendingAutoRun) effects.push({ type: 'auto-run' });
      if (state.talk?.pending) effects.push({ type: 'start-scene' });
      return {
        state: {
          engine: { ...state.engine, status: 'ready', info: message.info, error: null },
          ...(state.pendingAutoRun ? { pendingAutoRun: false } : {}),
        },
        effects,
      };
    }
    case 'load-error':
      return only({ engine: { ...state.engine, status: 'error', error: message.message } });
    case 'first-step':
      return only(
        message.runId === state.run.id && state.run.steps.length === 0
          ? { run: { ...state.run, firstStep: message.record } }
          : {},
      );
    case 'steps': {
      if (message.runId !== state.run.id) return only({});
      let counters = state.run.counters;
      for (const record of message.records) counters = recordStep(counters, record.counts);
      const steps = [...state.run.steps, ...message.records];
      const show = state.stepToShow;
      const reached = show !== null && state.ui.selectedStep === null && steps.length >= show;
      return only({
        run: { ...state.run, steps, counters },
        ...(reached ? { ui: { ...state.ui, selectedStep: show - 1 } } : {}),
      });
    }
    case 'paused': {
      const current = message.runId === state.run.id;
      // A talk's scene steps on by itself to the step it stops at.
      const stepOn = current && state.talk?.stopAt != null && state.run.steps.length < state.talk.stopAt;
      return {
        state: current && state.run.status === 'running' ? { run: { ...state.run, status: 'paused' } } : {},
        effects: stepOn ? [{ type: 'send', message: { type: 'step' } }] : [],
      };
    }
    case 'done': {
      if (message.runId !== state.run.id) return only({});
      const verdict = message.report.verdict;
      // A cancelled run is no completion: it is not scored.
      const completion: CompletionKind | null = verdict && message.report.ending !== 'cancelled' ? verdict.kind : null;
      return only({
        run: { ...state.run, status: 'done', report: message.report, counters: message.report.counters },
        scorecard: completion ? recordCompletion(state.scorecard, completion) : state.scorecard,
      });
    }
    case 'bench-progress':
      return only(
        message.runId === state.race.id && state.race.status === 'running'
          ? { race: { ...state.race, done: message.done, total: message.total } }
          : {},
      );
    case 'race-done': {
      if (message.runId !== state.race.id || state.race.status !== 'running') return only({});
      // A talk's race scene keeps its rows for the next visit.
      const kept = state.talk?.talk.scenes[state.talk.scene]?.stop === 'race';
      return {
        state: { race: { ...state.race, status: 'done', result: message.result } },
        effects: kept ? [{ type: 'keep-race', key: raceRecordKey(state), result: message.result }] : [],
      };
    }
    case 'scenes-found': {
      const talk = state.talk;
      if (!talk || talk.checking !== message.talkId) return only({});
      if (message.error !== null)
        return only({
          talk: null,
          talkError: `This talk cannot be used: checking what its scenes show failed (${message.error}).`,
        });
      // A scene whose run never shows its claim refuses the whole talk, in one line naming it.
      const missing = message.found.find((entry) => entry.step === null);
      if (missing) return only({ talk: null, talkError: claimMissing(talk.talk, missing.scene) });
      const found = [...talk.found];
      for (const { scene, step } of message.found) found[scene] = step ?? undefined;
      return {
        state: { talk: { ...talk, found, checking: null } },
        effects: talk.pending ? [{ type: 'start-scene' }] : [],
      };
    }
    case 'engine-trapped':
      // The error (shown already) says the engine restarts; the fresh worker reloads the pair.
      return {
        state: { compiling: null },
        effects: [{ type: 'stop-compile-watch' }, { type: 'restart-engine' }, { type: 'load' }],
      };
    case 'run-error': {
      const form = message.errors
        ? { form: { ...state.form, errors: { ...state.form.errors, ...message.errors } } }
        : {};
      if (message.runId === state.run.id)
        return only({ ...form, run: { ...state.run, status: 'error', error: message.message } });
      // A race the page already stopped (Reset, a new run) stays cancelled when the worker reports its end.
      if (message.runId === state.race.id && state.race.status === 'running')
        return only({ ...form, race: { ...state.race, status: 'error', error: message.message } });
      // A sweep's schema is checked and compiled like a run's, and refused the same way.
      if (message.runId === state.sweep.id)
        return only({ ...form, sweep: { ...state.sweep, status: 'error', error: message.message } });
      return only(form);
    }
    default:
      // The bench's own events, which reduceBench folded in already.
      return only({});
  }
}
