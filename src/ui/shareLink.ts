import { bundledPairId } from '../contract/modelPairs';
import type { SpecState } from '../store/store';
import { encodeShare } from '../store/shareUrl';

/** The share link of the run as it stands: every parameter and the seed, the bundled pair, runtime and layout, and the theme when light. */
export function shareLinkOf(state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'ui'>): string {
  const pairId = bundledPairId(state.pair);
  const setup =
    pairId === null ? {} : { setup: { pair: pairId, provider: state.provider, presentation: state.ui.presentation } };
  const theme = state.ui.theme === 'light' ? `&${THEME_KEY}=light` : '';
  return `${location.origin}${location.pathname}${encodeShare({ params: state.params, preset: state.preset, ...setup })}${theme}`;
}

/** The share link's key for the light projector theme (`theme=light`), also read from the page's query. */
export const THEME_KEY = 'theme';

/** The theme a page's address asks for: `theme=light` in the query or in the share link's fragment. */
export function themeOf(url: URL): 'dark' | 'light' {
  const fragment = url.hash.startsWith('#run?') ? new URLSearchParams(url.hash.slice('#run?'.length)) : null;
  return (url.searchParams.get(THEME_KEY) ?? fragment?.get(THEME_KEY)) === 'light' ? 'light' : 'dark';
}
