/** Stored run history is untrusted: a malformed record is dropped with a notice, never shown, never a blank page. */
import { describe, expect, it } from 'vitest';
import { readHistoryRecords } from '../../src/store/historyDb';
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
      { id: 'g', finishedAt: 10, report: { ...good, counters: { ...good.counters, bySource: { ...good.counters.bySource, grammar: { drafted: -1, invalidated: 0, accepted: 0 } } } } },
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

  it('reads a run stored before the head drafters existed (no head counts) as zero head tokens', () => {
    const good = goodReport();
    const before = Object.fromEntries(Object.entries(good.counters.bySource).filter(([source]) => source !== 'head'));
    const { entries, notice } = readHistoryRecords([{ id: 'before', finishedAt: 1, report: { ...good, counters: { ...good.counters, bySource: before } } }]);
    expect(notice).toBeNull();
    expect(entries[0]?.report.counters.bySource.head).toEqual({ drafted: 0, invalidated: 0, accepted: 0 });
  });
});
