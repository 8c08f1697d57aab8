import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { SpecStore } from '../store/store';

export const StoreContext = createContext<SpecStore | null>(null);

/** The app store itself, without subscribing: for handlers that read the state when they run. */
export function useSpecStore(): SpecStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('the SpecLab store hooks need a <StoreContext.Provider> above them');
  return store;
}

/** Subscribes a component to one slice of the app store. */
export function useSpec<T>(selector: (state: ReturnType<SpecStore['getState']>) => T): T {
  return useStore(useSpecStore(), selector);
}
