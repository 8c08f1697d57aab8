/**
 * Talk mode (./talk.ts): the open talk and the scene on screen. Each scene sets the pair, provider, layout and
 * run, and pauses its run at its step counts; a race scene replays the race kept from a rehearsal when there is one.
 */
import { BUNDLED_PAIR, BUNDLED_PAIR_IDS } from '../contract/modelPairs';
import { ownValue } from '../contract/ownKeys';
import { raceRecordKey } from './raceSlice';
import { beginRun } from './runSlice';
import type { StoreAccess } from './slice';
import { freshRun, type SpecActions, type SpecState } from './state';
import { claimsStep, parseTalk, sceneStops } from './talk';

type TalkSlice = Pick<SpecState, 'talk' | 'talkError' | 'stepToShow'> &
  Pick<SpecActions, 'openTalk' | 'goToScene' | 'talkNext' | 'talkPrevious' | 'leaveTalk'>;

/** Past any scene's last stop: goToScene clamps it to the last. */
const MAX_STOPS_INDEX = Number.MAX_SAFE_INTEGER;

/**
 * Asks the engine for the step that shows each claim not yet checked, of the scenes that run on the pair and
 * provider now loaded (the open scene's); returns whether it asked (the scene then waits for the answer).
 */
function checkClaims(access: StoreAccess): boolean {
  const { set, get, effects } = access;
  const talk = get().talk;
  const open = talk?.talk.scenes[talk.scene];
  if (!talk || !open || talk.checking !== null) return talk?.checking != null;
  const scenes = talk.talk.scenes.flatMap((scene, index) =>
    claimsStep(scene) && talk.found[index] === undefined && scene.pair === open.pair && scene.provider === open.provider
      ? [{ scene: index, params: scene.run.params, claim: scene.shows }]
      : [],
  );
  if (scenes.length === 0) return false;
  const checking = access.nextRunId();
  set({ talk: { ...talk, checking } });
  effects.send({ type: 'find-scenes', talkId: checking, scenes });
  return true;
}

/** The open scene's run: a race, or a seeded run paused at its step or run to the end; first, its claim checked. */
export function startScene(access: StoreAccess): void {
  const { set, get, effects } = access;
  if (checkClaims(access)) return;
  const talk = get().talk;
  const scene = talk?.talk.scenes[talk.scene];
  if (!talk || !scene) return;
  // The scene opens on the step that shows its claim: paused there (or at its counts), the inspector on it.
  const found = talk.found[talk.scene];
  const stops = sceneStops(scene, found);
  const stop = Math.min(talk.stop, Math.max(stops.length - 1, 0));
  set({ talk: { ...talk, stop, stopAt: stops[stop] ?? null }, stepToShow: found ?? scene.step ?? null });
  if (scene.stop === 'race') {
    const record = effects.readRaceRecord(raceRecordKey(get()));
    if (record)
      set({
        race: {
          ...get().race,
          id: access.nextRunId(),
          status: 'done',
          done: 0,
          total: 0,
          result: record.result,
          error: null,
          recordedAt: record.at,
          estimate: null,
        },
        run: freshRun(access.nextRunId(), get().params),
      });
    else {
      // Started before the last scene's run is cleared: its speed is what the race's estimate rests on.
      get().startRace();
      set({ run: freshRun(access.nextRunId(), get().params) });
    }
  } else beginRun(access, stops.length > 0);
  // After the scene's run or race has replaced the last scene's, so that the last one never reads as this one's.
  set({ talk: { ...(get().talk ?? talk), pending: false } });
}

export function talkSlice(access: StoreAccess): TalkSlice {
  const { set, get, effects } = access;
  return {
    talk: null,
    talkError: null,
    stepToShow: null,
    openTalk(source) {
      const parsed = parseTalk(source);
      if ('error' in parsed) return set({ talkError: parsed.error });
      set({
        talkError: null,
        talk: { talk: parsed.talk, scene: 0, stop: 0, stopAt: null, pending: false, found: [], checking: null },
      });
      get().goToScene(0);
    },
    goToScene(index, stop = 0) {
      const talk = get().talk;
      if (!talk) return;
      const at = Math.min(Math.max(index, 0), talk.talk.scenes.length - 1);
      const scene = talk.talk.scenes[at];
      if (!scene) return;
      if (get().run.status === 'running' || get().run.status === 'paused' || get().race.status === 'running')
        get().reset();
      const pair = ownValue(BUNDLED_PAIR_IDS, scene.pair) ?? BUNDLED_PAIR;
      const reload =
        pair.label !== get().pair.label || scene.provider !== get().provider || get().engine.status === 'error';
      // Kept as asked (past the last stop: the last); startScene settles it once the scene's claim is found.
      set({
        talk: { ...talk, scene: at, stop, stopAt: null, pending: true },
        ui: { ...get().ui, presentation: scene.presentation, selectedStep: null },
        stepToShow: null,
        preset: scene.run.preset,
        params: scene.run.params,
        form: { text: {}, errors: {} },
        pair,
        provider: scene.provider,
        pendingAutoRun: false,
      });
      if (reload) get().load();
      else if (get().engine.status === 'ready') startScene(access);
    },
    talkNext() {
      const { talk, run } = get();
      if (!talk) return;
      const scene = talk.talk.scenes[talk.scene];
      const next = scene ? sceneStops(scene, talk.found[talk.scene])[talk.stop + 1] : undefined;
      if (
        next !== undefined &&
        talk.stopAt !== null &&
        run.status === 'paused' &&
        !talk.pending &&
        run.steps.length >= talk.stopAt
      ) {
        // The same run steps on: the 'paused' event asks for steps until the new count.
        set({ talk: { ...talk, stop: talk.stop + 1, stopAt: next } });
        effects.send({ type: 'step' });
      } else if (talk.scene + 1 < talk.talk.scenes.length) get().goToScene(talk.scene + 1);
    },
    talkPrevious() {
      const talk = get().talk;
      if (!talk) return;
      if (talk.stop > 0) get().goToScene(talk.scene, talk.stop - 1);
      else if (talk.scene > 0) get().goToScene(talk.scene - 1, MAX_STOPS_INDEX);
    },
    leaveTalk() {
      set({ talk: null, stepToShow: null });
    },
  };
}
