/** The run history: finished runs, newest first, at most HISTORY_LIMIT (kept in IndexedDB by historyDb.ts). */
import type { StoreAccess } from './slice';
import { HISTORY_LIMIT, type BenchActions, type BenchState } from './state';

type HistorySlice = Pick<BenchState, 'history' | 'historyNotice'> &
  Pick<BenchActions, 'remember' | 'setHistory' | 'clearHistory'>;

export function historySlice({ set, get }: StoreAccess): HistorySlice {
  return {
    history: [],
    historyNotice: null,
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
