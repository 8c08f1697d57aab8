import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { SpecActions, SpecState, SpecStore } from '../store/store';

export const StoreContext = createContext<SpecStore | null>(null);

/** Subscribes a component to one slice of the app store. */
export function useSpec<T>(selector: (state: SpecState & SpecActions) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useSpec outside <StoreContext.Provider>');
  return useStore(store, selector);
}
