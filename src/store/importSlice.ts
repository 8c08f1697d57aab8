/** Opening a shared link: its run, pair and layout, run at once when the link is valid and the models are ready. */
import { BUNDLED_PAIR, BUNDLED_PAIR_IDS } from '../contract/modelPairs';
import { ownValue } from '../contract/ownKeys';
import { beginRun } from './runSlice';
import type { StoreAccess } from './slice';
import type { SpecActions, SpecState } from './state';

type ImportSlice = Pick<SpecState, 'pendingAutoRun'> & Pick<SpecActions, 'applyShared'>;

export function importSlice(access: StoreAccess): ImportSlice {
  const { set, get } = access;
  return {
    pendingAutoRun: false,
    applyShared({ preset, params, errors, text, setup, setupError }) {
      // A link with a bad field loads with the field marked and waits for the user; a good one runs.
      const valid = Object.keys(errors).length === 0 && setupError === undefined;
      set({ preset, params, form: { text, errors }, pendingAutoRun: valid });
      if (setupError !== undefined)
        set({ run: { ...get().run, status: 'error', error: `This link cannot be used as it is: ${setupError}.` } });
      if (setup) {
        const pair = ownValue(BUNDLED_PAIR_IDS, setup.pair) ?? BUNDLED_PAIR;
        const reload = pair.label !== get().pair.label || setup.provider !== get().provider;
        set({ pair, provider: setup.provider, ui: { ...get().ui, presentation: setup.presentation } });
        if (reload && get().engine.status !== 'idle') return get().load();
      }
      if (valid && get().engine.status === 'ready') {
        set({ pendingAutoRun: false });
        beginRun(access, false);
      }
    },
  };
}
