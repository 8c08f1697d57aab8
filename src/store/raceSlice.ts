/** The fair race of every method on the form's run: its rounds, tokens per round, progress and result. */
import { DEFAULT_RACE_TOKEN_BUDGET } from '../contract/bench';
import { checkForm } from './formSlice';
import { encodeShare } from './shareUrl';
import type { StoreAccess } from './slice';
import { DEFAULT_RACE_REPEATS, freshRun, type SpecActions, type SpecState } from './state';

type RaceSlice = Pick<SpecState, 'race'> & Pick<SpecActions, 'startRace' | 'setRaceRepeats' | 'setRaceTokenBudget'>;

/**
 * A talk's race scene, once raced, is kept in localStorage under everything its figures depend on (the run, the
 * pair, the provider asked for, the rounds and the tokens per round), so that the talk shows it at once on the
 * next visit (docs/presenting.md#talk-mode): a rehearsal races, the talk replays the recorded rows, and says when
 * they were recorded.
 */
const RACE_RECORD_PREFIX = 'speclab-race:';
export function raceRecordKey(state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'race'>): string {
  const { pair, provider, race } = state;
  const run = encodeShare({ params: state.params, preset: state.preset });
  return `${RACE_RECORD_PREFIX}${pair.label}|${provider}|${race.repeats}|${race.tokenBudget}|${run}`;
}

export function raceSlice(access: StoreAccess): RaceSlice {
  const { set, get, effects } = access;
  return {
    race: {
      id: 0,
      status: 'idle',
      repeats: DEFAULT_RACE_REPEATS,
      tokenBudget: DEFAULT_RACE_TOKEN_BUDGET,
      done: 0,
      total: 0,
      result: null,
      error: null,
    },
    startRace() {
      if (get().engine.status !== 'ready' || !checkForm(access)) return;
      const { repeats, tokenBudget } = get().race;
      const id = access.nextRunId();
      // A run in flight or paused is cancelled by the race: its output goes, and it is not scored.
      set({
        race: { id, status: 'running', repeats, tokenBudget, done: 0, total: 0, result: null, error: null },
        run: freshRun(access.nextRunId(), get().params),
        ui: { ...get().ui, selectedStep: null },
      });
      effects.send({ type: 'race', runId: id, params: get().params, repeats, tokenBudget });
    },
    setRaceRepeats(repeats) {
      set({ race: { ...get().race, repeats } });
    },
    setRaceTokenBudget(tokenBudget) {
      set({ race: { ...get().race, tokenBudget } });
    },
  };
}
