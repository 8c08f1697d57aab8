/**
 * The engineer's bench in the app's store: K × L sweeps, the scorecard and the run history. Its state and
 * actions are spread into the main store (store.ts); `receiveBench` folds the worker's bench events in.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { ScorecardRow, ScorecardSpec, SweepCell, SweepSpec } from '../contract/bench';
import type { FromWorker, ToWorker } from '../contract/protocol';
import type { RunReport } from '../contract/runReport';

export type BenchStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface BenchJob {
  id: number;
  status: BenchStatus;
  done: number;
  total: number;
  error: string | null;
}

/** One finished run as the history keeps it: its parameters, counters, histogram and text (the report). */
export interface HistoryEntry {
  id: string;
  finishedAt: number;
  report: RunReport;
}

/** The history keeps this many runs, newest first. */
export const HISTORY_LIMIT = 20;

export interface BenchState {
  sweep: BenchJob & { spec: SweepSpec | null; cells: SweepCell[] };
  scorecardTable: BenchJob & { spec: ScorecardSpec | null; rows: ScorecardRow[] };
  history: HistoryEntry[];
  /** What was wrong with the stored history (records dropped on load, a clear in another tab); null when nothing. */
  historyNotice: string | null;
}

export interface BenchActions {
  startSweep(spec: SweepSpec): void;
  startScorecard(spec: ScorecardSpec): void;
  /** Stops the sweep or scorecard in progress after its current run. */
  cancelBench(): void;
  /** Adds a finished run to the history (newest first, at most HISTORY_LIMIT). */
  remember(entry: HistoryEntry): void;
  setHistory(entries: HistoryEntry[], notice?: string | null): void;
  clearHistory(): void;
}

const idleJob = (): BenchJob => ({ id: 0, status: 'idle', done: 0, total: 0, error: null });

/** Bench ids count down from −1, so they never meet the main store's run ids. */
let nextBenchId = -1;

export function benchSlice(
  set: StoreApi<BenchState>['setState'],
  get: () => BenchState,
  send: (message: ToWorker) => void,
): BenchState & BenchActions {
  return {
    sweep: { ...idleJob(), spec: null, cells: [] },
    scorecardTable: { ...idleJob(), spec: null, rows: [] },
    history: [],
    historyNotice: null,
    startSweep(spec) {
      const id = nextBenchId--;
      set({ sweep: { ...idleJob(), id, status: 'running', spec, cells: [] } });
      send({ type: 'sweep', runId: id, spec });
    },
    startScorecard(spec) {
      const id = nextBenchId--;
      set({ scorecardTable: { ...idleJob(), id, status: 'running', spec, rows: [] } });
      send({ type: 'scorecard', runId: id, spec });
    },
    cancelBench() {
      send({ type: 'cancel' });
    },
    remember(entry) {
      set({ history: [entry, ...get().history.filter((kept) => kept.id !== entry.id)].slice(0, HISTORY_LIMIT) });
    },
    setHistory(entries, notice = null) {
      set({ history: entries.slice(0, HISTORY_LIMIT), historyNotice: notice });
    },
    clearHistory() {
      set({ history: [], historyNotice: null });
    },
  };
}

/** Folds one worker event into the bench state; false when the event is not the bench's. */
export function receiveBench(state: BenchState, set: StoreApi<BenchState>['setState'], message: FromWorker): boolean {
  const { sweep, scorecardTable } = state;
  switch (message.type) {
    case 'bench-progress':
      if (message.runId === sweep.id) set({ sweep: { ...sweep, done: message.done, total: message.total } });
      else if (message.runId === scorecardTable.id)
        set({ scorecardTable: { ...scorecardTable, done: message.done, total: message.total } });
      else return false;
      return true;
    case 'sweep-cell':
      if (message.runId === sweep.id) set({ sweep: { ...sweep, cells: [...sweep.cells, message.cell] } });
      return true;
    case 'sweep-done':
      if (message.runId === sweep.id) set({ sweep: { ...sweep, status: 'done' } });
      return true;
    case 'scorecard-done':
      if (message.runId === scorecardTable.id)
        set({ scorecardTable: { ...scorecardTable, status: 'done', rows: message.rows } });
      return true;
    case 'bench-error': {
      const status: BenchStatus = message.cancelled ? 'cancelled' : 'error';
      const error = message.cancelled ? null : message.message;
      if (message.runId === sweep.id) set({ sweep: { ...sweep, status, error } });
      else if (message.runId === scorecardTable.id) set({ scorecardTable: { ...scorecardTable, status, error } });
      return true;
    }
    default:
      return false;
  }
}
