/**
 * The app's state, framework-free (zustand's vanilla store); React only subscribes to it (src/ui/storeContext.ts).
 * It is built from slices (run, form, race, talk, import, bench, history), each a part of the state with the
 * actions on it. Actions send messages to the engine (a Web Worker behind `EngineTransport`) through the effects
 * module; the engine's events come back through `receive`, which reduces each to new state (receive.ts, one batch
 * of step records per update) and hands the effects it implies to the effects module.
 */
import { createStore } from 'zustand/vanilla';
import { benchSlice } from './benchSlice';
import { createStoreEffects, type FollowUps } from './effects';
import { formSlice } from './formSlice';
import { historySlice } from './historySlice';
import { importSlice } from './importSlice';
import { raceSlice } from './raceSlice';
import { reduce } from './receive';
import { abandonCompile, beginRun, runSlice } from './runSlice';
import type { StoreAccess } from './slice';
import type { EngineTransport, StoreOptions, StoreState } from './state';
import { startScene, talkSlice } from './talkSlice';

export { DEFAULT_RACE_REPEATS, HELP_TOPICS } from './state';
export type { EngineTransport, HelpTopic, ReplayState, RunStatus, SpecActions, SpecState, StoreOptions } from './state';

export type SpecStore = ReturnType<typeof createSpecStore>;

export function createSpecStore(transport: EngineTransport, options: StoreOptions = {}) {
  const effects = createStoreEffects(transport, options);
  const runIds = { next: 1 };
  return createStore<StoreState>()((set, get) => {
    const access: StoreAccess = { set, get, effects, nextRunId: () => runIds.next++ };
    const followUps: FollowUps = {
      load: () => get().load(),
      autoRun: () => beginRun(access, false),
      startScene: () => startScene(access),
      abandonCompile: (message) => abandonCompile(access, message),
    };
    return {
      ...runSlice(access),
      ...formSlice(access),
      ...raceSlice(access),
      ...talkSlice(access),
      ...importSlice(access),
      ...benchSlice(access),
      ...historySlice(access),
      receive(message) {
        const reduced = reduce(get(), message);
        // An event that changes nothing (a stale run's steps, say) does not wake the subscribers.
        if (Object.keys(reduced.state).length > 0) set(reduced.state);
        effects.perform(reduced.effects, followUps);
      },
    };
  });
}
