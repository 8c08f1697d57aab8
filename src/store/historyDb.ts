/**
 * The run history in IndexedDB, so that a reload keeps the last runs. `persistHistory` loads what was kept
 * into the store, records every finished run, and empties the database when the store's history is cleared.
 * A stored record is untrusted: each is checked on load (checkRunReport), and a bad one is dropped with a
 * notice rather than shown. A clear is told to the page's other tabs, which empty their lists too.
 */
import { checkRunReport } from '../contract/validation';
import { HISTORY_LIMIT, type HistoryEntry } from './state';
import type { SpecStore } from './store';

const DB_NAME = 'speclab-history';
const STORE = 'runs';
/** The channel on which one tab tells the others that it cleared the history. */
export const HISTORY_CHANNEL = 'speclab-history';

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

function open(factory: IDBFactory): Promise<IDBDatabase> {
  const req = factory.open(DB_NAME, 1);
  req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id' });
  return request(req);
}

/**
 * One request in its own transaction. A write resolves only once its transaction commits: a full storage quota
 * (QuotaExceededError) aborts the transaction after the request itself has succeeded.
 */
async function transact<T>(
  db: IDBDatabase,
  mode: IDBTransactionMode,
  work: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const transaction = db.transaction(STORE, mode);
  const result = request(work(transaction.objectStore(STORE)));
  if (mode === 'readonly') return result;
  const committed = new Promise<void>((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onabort = () => reject(transaction.error ?? new Error('the IndexedDB transaction was aborted'));
  });
  const [value] = await Promise.all([result, committed]);
  return value;
}

/** The notice for a run shown in the history that the browser refused to store. */
export function notKeptNotice(error: unknown): string {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const full = error instanceof Error && error.name === 'QuotaExceededError';
  return `The last run is shown but was not kept across reloads: the browser refused to store it (${reason}). ${full ? "This site's storage is full: free some space (or clear the history) and the next run is kept." : 'The next run will be tried again.'}`;
}

/** A stored record as a history entry, or what is wrong with it. */
export function checkHistoryRecord(value: unknown): { entry: HistoryEntry } | { error: string } {
  if (typeof value !== 'object' || value === null) return { error: 'it is not a record' };
  const { id, finishedAt, report } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id === '') return { error: 'it has no id' };
  if (typeof finishedAt !== 'number' || !Number.isFinite(finishedAt))
    return { error: `${JSON.stringify(id.slice(0, 40))} has no finishing time` };
  const problem = checkRunReport(report);
  if (problem !== null) return { error: `${JSON.stringify(id.slice(0, 40))}: ${problem}` };
  const entry = value as HistoryEntry;
  // A run stored before the head drafters existed counts no head tokens.
  if ((entry.report.counters.bySource as Partial<HistoryEntry['report']['counters']['bySource']>).head === undefined) {
    return {
      entry: {
        ...entry,
        report: {
          ...entry.report,
          counters: {
            ...entry.report.counters,
            bySource: { ...entry.report.counters.bySource, head: { drafted: 0, invalidated: 0, accepted: 0 } },
          },
        },
      },
    };
  }
  return { entry };
}

/** The valid records, newest first, and a notice naming how many were dropped and why (the first reason). */
export function readHistoryRecords(records: readonly unknown[]): { entries: HistoryEntry[]; notice: string | null } {
  const entries: HistoryEntry[] = [];
  const errors: string[] = [];
  for (const record of records) {
    const checked = checkHistoryRecord(record);
    if ('entry' in checked) entries.push(checked.entry);
    else errors.push(checked.error);
  }
  entries.sort((a, b) => b.finishedAt - a.finishedAt);
  const notice =
    errors.length === 0
      ? null
      : `${errors.length} stored ${errors.length === 1 ? 'run was' : 'runs were'} unreadable and ${errors.length === 1 ? 'was' : 'were'} dropped (${errors[0]}).`;
  return { entries, notice };
}

/** Newest first, at most HISTORY_LIMIT: older entries are deleted as new ones arrive. */
async function save(db: IDBDatabase, entry: HistoryEntry): Promise<void> {
  await transact(db, 'readwrite', (store) => store.put(entry));
  const all = await transact(db, 'readonly', (store) => store.getAll() as IDBRequest<HistoryEntry[]>);
  const stale = all.sort((a, b) => b.finishedAt - a.finishedAt).slice(HISTORY_LIMIT);
  for (const old of stale) await transact(db, 'readwrite', (store) => store.delete(old.id));
}

export async function persistHistory(
  store: SpecStore,
  factory: IDBFactory = indexedDB,
  channel: BroadcastChannel | null = openChannel(),
): Promise<void> {
  const db = await open(factory);
  const stored = await transact(db, 'readonly', (objects) => objects.getAll() as IDBRequest<unknown[]>);
  const { entries, notice } = readHistoryRecords(stored);
  if (notice !== null) {
    // The unreadable records go, so that the notice is shown once.
    const keep = new Set(entries.map((entry) => entry.id));
    const ids = await transact(db, 'readonly', (objects) => objects.getAllKeys());
    for (const id of ids)
      if (typeof id !== 'string' || !keep.has(id)) await transact(db, 'readwrite', (objects) => objects.delete(id));
  }
  store.getState().setHistory(entries, notice);
  let clearedElsewhere = false;
  if (channel) {
    channel.onmessage = (event: MessageEvent<unknown>) => {
      if (event.data !== 'cleared' || store.getState().history.length === 0) return;
      clearedElsewhere = true;
      store.getState().setHistory([], 'The history was cleared in another tab.');
      clearedElsewhere = false;
    };
  }
  store.subscribe((state, previous) => {
    const report = state.run.report;
    if (report && report !== previous.run.report) {
      const entry: HistoryEntry = { id: `${Date.now()}-${state.run.id}`, finishedAt: Date.now(), report };
      state.remember(entry);
      save(db, entry).catch((error: unknown) =>
        store.getState().setHistory(store.getState().history, notKeptNotice(error)),
      );
    }
    if (state.history.length === 0 && previous.history.length > 0 && !clearedElsewhere) {
      void transact(db, 'readwrite', (objects) => objects.clear());
      channel?.postMessage('cleared');
    }
  });
}

/** The cross-tab channel, where the browser has one. */
function openChannel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(HISTORY_CHANNEL);
}
