import { bundledPairId } from '../contract/modelPairs';
import type { SpecState } from '../store/store';
import { encodeShare } from '../store/shareUrl';

/** The share link of the run as it stands: every parameter and the seed, and the bundled pair, runtime and layout. */
export function shareLinkOf(state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'ui'>): string {
  const pairId = bundledPairId(state.pair);
  const setup = pairId === null ? {} : { setup: { pair: pairId, provider: state.provider, presentation: state.ui.presentation } };
  return `${location.origin}${location.pathname}${encodeShare({ params: state.params, preset: state.preset, ...setup })}`;
}
