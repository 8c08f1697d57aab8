/**
 * `?embed=<view>` (docs/presenting.md#embeds): the page shows one view alone, filling its frame, for a slide
 * tool's iframe; `&controls=1` keeps the run bar above it. The view names are talk mode's (src/store/talk.ts).
 * The query is untrusted input: an unknown view is answered with the list of names, in text.
 */
import { VIEWS, type ViewName } from '../store/talk';

export type Embed = { view: ViewName; controls: boolean } | { error: string };

/** The embed a page's query asks for, or null when it asks for none. */
export function parseEmbed(search: string): Embed | null {
  const query = new URLSearchParams(search);
  const view = query.get('embed');
  if (view === null) return null;
  if (!VIEWS.includes(view as ViewName)) return { error: `?embed=${view} is not a view; the views are ${VIEWS.join(', ')}` };
  const controls = query.get('controls');
  if (controls !== null && controls !== '0' && controls !== '1') return { error: `&controls=${controls} must be 0 or 1` };
  return { view: view as ViewName, controls: controls === '1' };
}
