/**
 * Embeds (docs/presenting.md#embeds): the page shows one view alone, filling its frame, for a slide tool's
 * iframe; `&controls=1` keeps the run bar above it, `&step=N` shows step N in the tree and the inspector. Two addresses, one app: `embed.html?view=<view>`, the
 * page any site may frame (its #root carries `data-embed`; src/contract/csp.ts), and the app's own
 * `?embed=<view>`, which only a page of the app's origin may frame. The view names are talk mode's
 * (src/store/talk.ts). The query is untrusted input: an unknown view is answered with the list of names, in text.
 */
import { LIMITS } from '../contract/limits';
import { VIEWS, type ViewName } from '../store/talk';

/** `step`: the step (from 1) the tree and the inspector show once the run has reached it; absent: the latest. */
export type Embed = { view: ViewName; controls: boolean; step?: number } | { error: string };

/** The most steps a run can take (a token at least per step): a `&step=` past it can never be shown. */
const MAX_SHOWN_STEP = LIMITS.maxTokens.max;

/**
 * The embed a page's query asks for, or null when it asks for none. On the embed page (`embedPage`) the view
 * is `?view=` and is required; on the app's page it is `?embed=`.
 */
export function parseEmbed(search: string, embedPage = false): Embed | null {
  const query = new URLSearchParams(search);
  const key = embedPage ? 'view' : 'embed';
  const view = query.get(key);
  if (view === null)
    return embedPage ? { error: `embed.html needs ?view=<view>; the views are ${VIEWS.join(', ')}` } : null;
  if (!VIEWS.includes(view as ViewName))
    return { error: `?${key}=${view} is not a view; the views are ${VIEWS.join(', ')}` };
  const controls = query.get('controls');
  if (controls !== null && controls !== '0' && controls !== '1')
    return { error: `&controls=${controls} must be 0 or 1` };
  const step = query.get('step');
  if (step !== null && !(/^[1-9]\d*$/.test(step) && Number(step) <= MAX_SHOWN_STEP))
    return { error: `&step=${step} must be a whole number of steps from 1 to ${MAX_SHOWN_STEP}` };
  return { view: view as ViewName, controls: controls === '1', ...(step === null ? {} : { step: Number(step) }) };
}

/** This page's embed: embed.html always is one; index.html is one with `?embed=`. */
export function pageEmbed(): Embed | null {
  return parseEmbed(location.search, document.getElementById('root')?.hasAttribute('data-embed') ?? false);
}

/** Whether this page is an embed of `view` alone (the view may then fit itself to the frame). */
export function embedsView(view: ViewName): boolean {
  const embed = pageEmbed();
  return embed !== null && !('error' in embed) && embed.view === view;
}
