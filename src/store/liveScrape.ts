/**
 * The vLLM view's live mode: scrape a server's /metrics from the page, every few seconds, and read each
 * window between two scrapes (src/core/vllmMetrics.ts). A page can read another origin only where that
 * server allows it (CORS), and only where the app's Content-Security-Policy lets it connect (https:, or the
 * app's own origin); either refusal is said in plain words, with the terminal's way round it.
 */
import { BoundedReadError, boundedFetch, shownUrl } from '../contract/boundedFetch';
import { connectAllowed } from '../contract/csp';
import { SCRAPE_LIMITS } from '../contract/limits';
import { ScrapeError, readMetrics, readingDelta, type ScrapeReading } from '../core/vllmMetrics';

const TERMINAL = (url: string) => `npm run import:vllm -- --url ${url} reads it from a terminal`;

/** The typed address as a URL the page may read; a ScrapeError says why not. */
export function liveScrapeUrl(text: string, origin: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ScrapeError(`${JSON.stringify(text.slice(0, 200))} is not a URL, such as https://host:8000/metrics`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ScrapeError(`a metrics URL must be http or https, got ${url.protocol}`);
  if (!connectAllowed(url, origin)) {
    throw new ScrapeError(
      `${shownUrl(url)}: this page may only read https:// addresses or its own origin (its Content-Security-Policy); serve /metrics over https (a reverse proxy), or ${TERMINAL(shownUrl(url))}`,
    );
  }
  return url;
}

/** The most a scrape's body may hold: a larger or endless one is stopped at its first byte past it. */
export const SCRAPE_BYTE_LIMIT = { bytes: SCRAPE_LIMITS.bytes, why: 'the most a scrape may be' };

/**
 * One scrape of a live server, read per model, bounded in bytes and time like a model download; a fetch the
 * browser refuses or cannot make is said plainly.
 */
export async function fetchScrape(url: URL, fetchImpl?: typeof fetch): Promise<ScrapeReading> {
  let bytes: Uint8Array;
  try {
    bytes = await boundedFetch(url, {
      limit: SCRAPE_BYTE_LIMIT,
      init: { cache: 'no-store' },
      ...(fetchImpl && { fetchImpl }),
      checkResponse: (response) => {
        if (!response.ok) throw new ScrapeError(`${shownUrl(url)}: HTTP ${response.status} ${response.statusText}`);
      },
    });
  } catch (error) {
    if (error instanceof ScrapeError) throw error;
    // Too large, too slow, or cancelled: the reader's own words.
    if (error instanceof BoundedReadError) throw new ScrapeError(error.message);
    // The browser gives no reason it lets a page read: a CORS refusal and a server that is down look the same.
    throw new ScrapeError(
      `${shownUrl(url)}: the server did not allow this page to read it (CORS) or is unreachable; start vLLM with --allowed-origins for this page's origin, or ${TERMINAL(shownUrl(url))}`,
    );
  }
  return readMetrics(new TextDecoder().decode(bytes), shownUrl(url));
}

/** Live polling's state: the last scrape, and the window between it and the one before (null after the first). */
export interface LiveState {
  last: ScrapeReading;
  window: ScrapeReading | null;
  scrapes: number;
}

/** Folds a new scrape into the live state: each window is the delta between two consecutive scrapes. */
export function nextLiveState(state: LiveState | null, scrape: ScrapeReading): LiveState {
  return {
    last: scrape,
    window: state === null ? null : readingDelta(state.last, scrape),
    scrapes: (state?.scrapes ?? 0) + 1,
  };
}
