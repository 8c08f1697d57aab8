/**
 * The run history in IndexedDB, so that a reload keeps the last runs. `persistHistory` loads what was kept
 * into the store, records every finished run, and empties the database when the store's history is cleared.
 */
import { HISTORY_LIMIT, type HistoryEntry } from './benchSlice';
import type { SpecStore } from './store';

const DB_NAME = 'speclab-history';
const STORE = 'runs';

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

async function transact<T>(db: IDBDatabase, mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return request(work(db.transaction(STORE, mode).objectStore(STORE)));
}

/** Newest first, at most HISTORY_LIMIT: older entries are deleted as new ones arrive. */
async function save(db: IDBDatabase, entry: HistoryEntry): Promise<void> {
  await transact(db, 'readwrite', (store) => store.put(entry));
  const all = await transact(db, 'readonly', (store) => store.getAll() as IDBRequest<HistoryEntry[]>);
  const stale = all.sort((a, b) => b.finishedAt - a.finishedAt).slice(HISTORY_LIMIT);
  for (const old of stale) await transact(db, 'readwrite', (store) => store.delete(old.id));
}

export async function persistHistory(store: SpecStore, factory: IDBFactory = indexedDB): Promise<void> {
  const db = await open(factory);
  const kept = await transact(db, 'readonly', (objects) => objects.getAll() as IDBRequest<HistoryEntry[]>);
  store.getState().setHistory(kept.sort((a, b) => b.finishedAt - a.finishedAt));
  store.subscribe((state, previous) => {
    const report = state.run.report;
    if (report && report !== previous.run.report) {
      const entry: HistoryEntry = { id: `${Date.now()}-${state.run.id}`, finishedAt: Date.now(), report };
      state.remember(entry);
      void save(db, entry);
    }
    if (state.history.length === 0 && previous.history.length > 0) void transact(db, 'readwrite', (objects) => objects.clear());
  });
}
