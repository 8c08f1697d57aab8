/**
 * The engineer's bench in the app's store: K × L sweeps and the scorecard. `reduceBench` folds the worker's
 * bench events in (receive.ts calls it first).
 */
import type { FromWorker } from '../contract/protocol';
import { abandonCompile } from './runSlice';
import type { StoreAccess } from './slice';
import type { BenchActions, BenchJob, BenchState, BenchStatus } from './state';

type BenchSlice = Pick<BenchState, 'sweep' | 'scorecardTable'> &
  Pick<BenchActions, 'startSweep' | 'startScorecard' | 'cancelBench'>;

const idleJob = (): BenchJob => ({ id: 0, status: 'idle', done: 0, total: 0, error: null });

export function benchSlice(access: StoreAccess): BenchSlice {
  const { set, get, effects } = access;
  // Bench ids count down from −1, so they never meet the run ids.
  const ids = { next: -1 };
  return {
    sweep: { ...idleJob(), spec: null, cells: [] },
    scorecardTable: { ...idleJob(), spec: null, rows: [] },
    startSweep(spec) {
      const id = ids.next--;
      set({ sweep: { ...idleJob(), id, status: 'running', spec, cells: [] } });
      effects.send({ type: 'sweep', runId: id, spec });
    },
    startScorecard(spec) {
      const id = ids.next--;
      set({ scorecardTable: { ...idleJob(), id, status: 'running', spec, rows: [] } });
      effects.send({ type: 'scorecard', runId: id, spec });
    },
    // A sweep compiling its schema cannot hear a cancel (wasm cannot be interrupted): the compile is abandoned.
    cancelBench() {
      if (get().compiling?.runId === get().sweep.id) abandonCompile(access, null);
      else effects.send({ type: 'cancel' });
    },
  };
}

/** The bench state after one worker event, or null when the event is not the bench's. */
export function reduceBench(state: BenchState, message: FromWorker): Partial<BenchState> | null {
  const { sweep, scorecardTable } = state;
  switch (message.type) {
    case 'bench-progress':
      if (message.runId === sweep.id) return { sweep: { ...sweep, done: message.done, total: message.total } };
      if (message.runId === scorecardTable.id)
        return { scorecardTable: { ...scorecardTable, done: message.done, total: message.total } };
      return null;
    case 'sweep-cell':
      return message.runId === sweep.id ? { sweep: { ...sweep, cells: [...sweep.cells, message.cell] } } : {};
    case 'sweep-done':
      return message.runId === sweep.id ? { sweep: { ...sweep, status: 'done' } } : {};
    case 'scorecard-done':
      return message.runId === scorecardTable.id
        ? { scorecardTable: { ...scorecardTable, status: 'done', rows: message.rows } }
        : {};
    case 'bench-error': {
      const status: BenchStatus = message.cancelled ? 'cancelled' : 'error';
      const error = message.cancelled ? null : message.message;
      if (message.runId === sweep.id) return { sweep: { ...sweep, status, error } };
      if (message.runId === scorecardTable.id) return { scorecardTable: { ...scorecardTable, status, error } };
      return {};
    }
    default:
      return null;
  }
}
