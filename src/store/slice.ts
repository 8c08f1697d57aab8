/**
 * What every slice of the store is built with (zustand's slice pattern, with the side effects passed in): the
 * store's set and get, the effects module, and the run ids that runs, races and talk scenes share.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { StoreEffects } from './effects';
import type { StoreState } from './state';

export interface StoreAccess {
  set: StoreApi<StoreState>['setState'];
  get: () => StoreState;
  effects: StoreEffects;
  /** A fresh id for a run or race: events about an older one are ignored. */
  nextRunId(): number;
}
