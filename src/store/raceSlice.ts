/** The fair race of every method on the form's run: its rounds, tokens per round, progress and result. */
import { DEFAULT_RACE_TOKEN_BUDGET } from '../contract/bench';
import { DECODE_METHODS } from '../contract/runParams';
import { checkForm } from './formSlice';
import { abandonCompile } from './runSlice';
import { encodeShare } from './shareUrl';
import type { StoreAccess } from './slice';
import { DEFAULT_RACE_REPEATS, type RaceEstimate, type SpecActions, type SpecState } from './state';

type RaceSlice = Pick<SpecState, 'race'> &
  Pick<SpecActions, 'startRace' | 'cancelRace' | 'setRaceRepeats' | 'setRaceTokenBudget'>;

/**
 * How long a race of every method should take, said before it starts (a talk's race scene waits on it): the
 * tokens it times (rounds × tokens per round, for each method) at each method's speed in the last race, else at
 * the last run's speed for all; null when neither was measured. The untimed warm-ups (one token each) are left out.
 */
export function raceEstimate(
  state: Pick<SpecState, 'race' | 'run'>,
  repeats: number,
  tokenBudget: number,
): RaceEstimate | null {
  const timedTokens = repeats * tokenBudget;
  const raced = state.race.result?.entries ?? [];
  if (raced.length === DECODE_METHODS.length && raced.every((entry) => entry.tokensPerSecond.median > 0))
    return {
      seconds: raced.reduce((sum, entry) => sum + timedTokens / entry.tokensPerSecond.median, 0),
      basis: 'at the last race’s speeds',
    };
  const speed = state.run.report?.tokensPerSecond ?? 0;
  if (!(Number.isFinite(speed) && speed > 0)) return null;
  return {
    seconds: (DECODE_METHODS.length * timedTokens) / speed,
    basis: `at the last run’s ${speed.toFixed(1)} tokens/s`,
  };
}

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
      estimate: null,
    },
    startRace() {
      if (get().engine.status !== 'ready' || !checkForm(access)) return;
      const { repeats, tokenBudget } = get().race;
      const estimate = raceEstimate(get(), repeats, tokenBudget);
      const id = access.nextRunId();
      // The race is a record of its own: the lecture's run stays on screen with its counters. The engine runs one
      // job at a time, so a run still paused is ended by the race: kept as it stands, under a new id so that its
      // cancelled end is not read as a completion, and not scored.
      const { run } = get();
      const unfinished = run.status === 'running' || run.status === 'paused';
      set({
        race: { id, status: 'running', repeats, tokenBudget, done: 0, total: 0, result: null, error: null, estimate },
        ...(unfinished ? { run: { ...run, id: access.nextRunId(), status: 'stopped' as const } } : {}),
      });
      effects.send({ type: 'race', runId: id, params: get().params, repeats, tokenBudget });
    },
    cancelRace() {
      const { race, compiling } = get();
      if (race.status !== 'running') return;
      // Its samples so far stay in `done` of `total`, which the race view reports; a race is scored only whole.
      if (compiling?.runId === race.id) abandonCompile(access, null);
      else effects.send({ type: 'cancel' });
      set({ race: { ...get().race, status: 'cancelled' } });
    },
    setRaceRepeats(repeats) {
      set({ race: { ...get().race, repeats } });
    },
    setRaceTokenBudget(tokenBudget) {
      set({ race: { ...get().race, tokenBudget } });
    },
  };
}
