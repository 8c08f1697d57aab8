/** Stored run history is untrusted: a malformed record is dropped with a notice, never shown, never a blank page. */
import { describe, expect, it } from 'vitest';
import { persistHistory, readHistoryRecords } from '../../src/store/historyDb';
import { createSpecStore } from '../../src/store/store';
import { goodReport } from '../support/runReports';

describe('stored history records', () => {
  it('keeps the good ones newest first and drops each malformed one (null report, id alone, empty report, bad params, wrong histogram, no counts per draft source)', () => {
    const good = goodReport();
    const records: unknown[] = [
      { id: 'old', finishedAt: 1, report: good },
      { id: 'x', finishedAt: 5, report: null },
      { id: 'y' },
      { id: 'z', finishedAt: 6, report: {} },
      { id: 'p', finishedAt: 7, report: { ...good, params: { ...good.params, K: 1e9 } } },
      { id: 'h', finishedAt: 8, report: { ...good, counters: { ...good.counters, histogram: [1] } } },
      // Without counts per draft source it used to load, then throw in the comparison of two runs.
      { id: 's', finishedAt: 9, report: { ...good, counters: { ...good.counters, bySource: undefined } } },
      {
        id: 'g',
        finishedAt: 10,
        report: {
          ...good,
          counters: {
            ...good.counters,
            bySource: { ...good.counters.bySource, grammar: { drafted: -1, invalidated: 0, accepted: 0 } },
          },
        },
      },
      null,
      'text',
      { id: 'new', finishedAt: 2, report: good },
    ];
    const { entries, notice } = readHistoryRecords(records);
    expect(entries.map((entry) => entry.id)).toEqual(['new', 'old']);
    expect(notice).toBe('9 stored runs were unreadable and were dropped ("x": the report is missing).');
  });

  it('gives no notice when every record is good, and the store shows the notice until the history is cleared', () => {
    expect(readHistoryRecords([{ id: 'a', finishedAt: 1, report: goodReport() }]).notice).toBeNull();
    const store = createSpecStore({ post: () => undefined, restart: () => undefined });
    const { entries, notice } = readHistoryRecords([{ id: 'x', finishedAt: 1, report: null }]);
    store.getState().setHistory(entries, notice);
    expect(store.getState().historyNotice).toMatch(/^1 stored run was unreadable and was dropped/);
    store.getState().clearHistory();
    expect(store.getState().historyNotice).toBeNull();
  });

  it.each([['head'], ['copy'], ['head', 'copy']])(
    'reads a run stored before the %s drafters existed (no counts) as zero tokens of them',
    (...missing: string[]) => {
      const good = goodReport();
      const before = Object.fromEntries(
        Object.entries(good.counters.bySource).filter(([source]) => !missing.includes(source)),
      );
      const { entries, notice } = readHistoryRecords([
        { id: 'before', finishedAt: 1, report: { ...good, counters: { ...good.counters, bySource: before } } },
      ]);
      expect(notice).toBeNull();
      for (const source of missing)
        expect(entries[0]?.report.counters.bySource[source as 'head' | 'copy']).toEqual({
          drafted: 0,
          invalidated: 0,
          accepted: 0,
        });
    },
  );
});

/**
 * An IndexedDB with one object store held in a Map, whose writes commit unless `refuse` names an error: then
 * each write's request succeeds and its transaction aborts with that error, as a full quota does in Chromium.
 */
function fakeIndexedDB(refuse: DOMException | null): { factory: IDBFactory; stored: Map<string, unknown> } {
  const stored = new Map<string, unknown>();
  const later = (run: () => void) => void setTimeout(run, 0);
  const transaction = (mode: IDBTransactionMode) => {
    const tx = {
      error: null as DOMException | null,
      oncomplete: null as (() => void) | null,
      onabort: null as (() => void) | null,
      objectStore: () => objectStore,
    };
    const answer = (result: unknown, write: () => void) => {
      const req = { result, error: null, onsuccess: null as (() => void) | null, onerror: null as (() => void) | null };
      later(() => {
        req.onsuccess?.();
        if (mode === 'readonly') return;
        if (refuse) {
          tx.error = refuse;
          tx.onabort?.();
        } else {
          write();
          tx.oncomplete?.();
        }
      });
      return req;
    };
    const objectStore = {
      put: (value: { id: string }) => answer(value.id, () => stored.set(value.id, value)),
      delete: (id: string) => answer(undefined, () => stored.delete(id)),
      clear: () => answer(undefined, () => stored.clear()),
      getAll: () => answer([...stored.values()], () => undefined),
      getAllKeys: () => answer([...stored.keys()], () => undefined),
    };
    return tx;
  };
  const db = { transaction: (_store: string, mode: IDBTransactionMode) => transaction(mode) };
  const factory = {
    open: () => {
      const req = { result: db, onsuccess: null as (() => void) | null, onerror: null, onupgradeneeded: null };
      later(() => req.onsuccess?.());
      return req;
    },
  };
  return { factory: factory as unknown as IDBFactory, stored };
}

describe('a run the browser refuses to store', () => {
  /** The history after one finished run, with the database `refuse`-ing writes or not. */
  async function finishOneRun(refuse: DOMException | null) {
    const store = createSpecStore({ post: () => undefined, restart: () => undefined });
    const { factory, stored } = fakeIndexedDB(refuse);
    await persistHistory(store, factory, null);
    store.setState({ run: { ...store.getState().run, id: 7, status: 'done', report: goodReport() } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { state: store.getState(), stored };
  }

  it('is shown with a notice that it was not kept across reloads, naming QuotaExceededError (it vanished on reload, unsaid)', async () => {
    const { state, stored } = await finishOneRun(
      new DOMException('The quota has been exceeded.', 'QuotaExceededError'),
    );
    expect(stored.size).toBe(0);
    expect(state.history).toHaveLength(1);
    expect(state.historyNotice).toBe(
      "The last run is shown but was not kept across reloads: the browser refused to store it (QuotaExceededError: The quota has been exceeded.). This site's storage is full: free some space (or clear the history) and the next run is kept.",
    );
  });

  it('is stored with no notice when the write commits', async () => {
    const { state, stored } = await finishOneRun(null);
    expect([...stored.keys()]).toEqual([state.history[0]?.id]);
    expect(state.historyNotice).toBeNull();
  });
});
