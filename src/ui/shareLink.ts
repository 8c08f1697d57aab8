import { bundledPairId } from '../contract/modelPairs';
import type { SpecState } from '../store/store';
import { encodeShare } from '../store/shareUrl';
import { AUDIENCE_ORIGIN_META, audienceBases, isLoopback } from '../contract/audience';

/** The share link of the run as it stands: every parameter and the seed, the bundled pair, runtime and layout, and the theme when light. */
export function shareLinkOf(state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'ui'>): string {
  const pairId = bundledPairId(state.pair);
  const setup =
    pairId === null ? {} : { setup: { pair: pairId, provider: state.provider, presentation: state.ui.presentation } };
  const theme = state.ui.theme === 'light' ? `&${THEME_KEY}=light` : '';
  return `${location.origin}${location.pathname}${encodeShare({ params: state.params, preset: state.preset, ...setup })}${theme}`;
}

/**
 * The link for the room (the audience QR code, and Share while presenting): the share link in the ordinary
 * layout (present=0), the one a phone or a laptop opens; on `base` (an address other devices reach) when given.
 */
export function audienceLinkOf(
  state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'ui'>,
  base: string | null = null,
): string {
  const link = shareLinkOf({ ...state, ui: { ...state.ui, presentation: false } });
  if (base === null) return link;
  // The link's fragment and query (the run) on the other address, whose path replaces this page's.
  return `${base}${link.slice(`${location.origin}${location.pathname}`.length)}`;
}

/**
 * Where the room can open this app: `loopback` when this page's address is this computer only; `bases`, the
 * addresses the server published for other devices (tools/audienceOriginPlugin.ts), first the configured one.
 */
export function roomAddresses(): { loopback: boolean; bases: string[] } {
  const published = [...document.querySelectorAll<HTMLMetaElement>(`meta[name="${AUDIENCE_ORIGIN_META}"]`)].map(
    (meta) => meta.content,
  );
  let bases: string[];
  try {
    bases = audienceBases(published, 'the page’s audience address');
  } catch {
    // The plugin checked them; a page edited by hand gets none rather than a wrong one.
    bases = [];
  }
  return { loopback: isLoopback(location.hostname), bases };
}

/** The room's link: the audience link, on the first published address when this page is loopback. */
export function roomLinkOf(state: Pick<SpecState, 'params' | 'preset' | 'pair' | 'provider' | 'ui'>): string {
  const { loopback, bases } = roomAddresses();
  return audienceLinkOf(state, loopback ? (bases[0] ?? null) : null);
}

/** The share link's key for the light projector theme (`theme=light`), also read from the page's query. */
export const THEME_KEY = 'theme';

/** The theme a page's address asks for: `theme=light` in the query or in the share link's fragment. */
export function themeOf(url: URL): 'dark' | 'light' {
  const fragment = url.hash.startsWith('#run?') ? new URLSearchParams(url.hash.slice('#run?'.length)) : null;
  return (url.searchParams.get(THEME_KEY) ?? fragment?.get(THEME_KEY)) === 'light' ? 'light' : 'dark';
}
