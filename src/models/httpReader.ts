/**
 * Reads a model directory over HTTP with download progress, retries, timeouts, cancellation and the browser
 * Cache API. Every read is bounded three times: the server must answer (headers) within `requestMs`, a body
 * must not stall longer than `stallMs` between chunks, and must keep NETWORK_LIMITS' pace; past any of these
 * the load fails, naming the server, so a server that never answers or trickles cannot hold the engine. A
 * file is cached only once its whole body has arrived, so an interrupted download never leaves a half entry;
 * a file whose hash then fails is evicted by `evictModelCache`.
 */
import { connectAllowed, connectBlockedMessage } from '../contract/csp';
import { MANIFEST_LIMITS, NETWORK_LIMITS } from '../contract/limits';
import type { NetworkTimeouts } from '../contract/protocol';
import { ModelFileMissingError, type FileReader } from './loader';
import { ModelLoadError } from './manifest';

export const MODEL_CACHE = 'speclab-models-v1';
const ATTEMPTS = 3;

export const DEFAULT_TIMEOUTS: NetworkTimeouts = { requestMs: NETWORK_LIMITS.requestSeconds * 1000, stallMs: NETWORK_LIMITS.stallSeconds * 1000 };

/** The server did not answer, or stopped sending, in time: not retried, since waiting again rarely helps. */
export class NetworkTimeoutError extends ModelLoadError {
  override name = 'NetworkTimeoutError';
}

/** The load was cancelled (a new load, or Cancel). */
export class LoadCancelledError extends ModelLoadError {
  override name = 'LoadCancelledError';
}

export interface HttpReaderOptions {
  signal?: AbortSignal;
  timeouts?: NetworkTimeouts;
}

/** A watchdog over one request: `arm` (re)starts the countdown, after which the request is aborted. */
function watchdog(url: URL, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let expired: NetworkTimeoutError | null = null;
  const onOuterAbort = () => controller.abort();
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  return {
    signal: controller.signal,
    arm(ms: number, what: string) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        expired = new NetworkTimeoutError(`the server at ${url.origin} did not ${what} within ${ms / 1000} s (${url.href})`);
        controller.abort();
      }, ms);
    },
    /** The error to report for a failure: the timeout or the cancellation that caused it, else the failure itself. */
    explain(error: unknown): unknown {
      if (expired) return expired;
      if (outer?.aborted) return new LoadCancelledError(`loading ${url.href} was cancelled`);
      return error;
    },
    done() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}

/**
 * A file larger than expected (the size its manifest lists, else the most any model file may be): stopped at the
 * first byte past that size, and not retried.
 */
export class FileTooLargeError extends ModelLoadError {
  override name = 'FileTooLargeError';
}

/** The most a body may hold, and why (said when it is refused). */
export interface ByteLimit {
  bytes: number;
  why: string;
}

async function readBody(
  response: Response,
  url: URL,
  guard: ReturnType<typeof watchdog>,
  stallMs: number,
  limit: ByteLimit | null,
  onProgress?: (loaded: number, total: number | null) => void,
): Promise<Uint8Array<ArrayBuffer>> {
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const tooLarge = (bytes: string) => new FileTooLargeError(`${url.href} is ${bytes}, but ${limit?.bytes} bytes at most were expected (${limit?.why}): the download was stopped`);
  if (limit && total !== null && total > limit.bytes) throw tooLarge(`${total} bytes (Content-Length)`);
  if (!response.body) {
    const whole = new Uint8Array(await response.arrayBuffer());
    if (limit && whole.length > limit.bytes) throw tooLarge(`${whole.length} bytes`);
    return whole;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  let firstByteAt: number | null = null;
  const { minimumBytesPerSecond, paceGraceSeconds } = NETWORK_LIMITS;
  for (;;) {
    guard.arm(stallMs, 'send any data');
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    const now = performance.now();
    firstByteAt ??= now;
    const seconds = (now - firstByteAt) / 1000;
    if (loaded < (seconds - paceGraceSeconds) * minimumBytesPerSecond) {
      void reader.cancel().catch(() => undefined);
      throw new NetworkTimeoutError(
        `the server at ${url.origin} sent ${loaded} bytes in ${seconds.toFixed(1)} s, slower than the ${minimumBytesPerSecond} bytes/s a download must keep after its first ${paceGraceSeconds} s: the download was stopped (${url.href})`,
      );
    }
    if (limit && loaded > limit.bytes) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${limit.bytes} bytes`);
    }
    onProgress?.(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

export interface BoundedFetchOptions {
  limit: ByteLimit | null;
  timeouts?: NetworkTimeouts | undefined;
  signal?: AbortSignal | undefined;
  init?: RequestInit;
  fetchImpl?: typeof fetch;
  /** Refuses a response from its status and headers, before its body is read. */
  checkResponse?: (response: Response) => void;
  onProgress?: ((loaded: number, total: number | null) => void) | undefined;
}

/**
 * One GET with its body, bounded like every model file (headers within `requestMs`, no gap over `stallMs`,
 * NETWORK_LIMITS' pace, at most `limit.bytes`); failures are NetworkTimeoutError, LoadCancelledError,
 * FileTooLargeError, or what `fetch` or `checkResponse` threw. Also the reader of live /metrics scrapes.
 */
export async function boundedFetch(url: URL, options: BoundedFetchOptions): Promise<Uint8Array<ArrayBuffer>> {
  const { timeouts = DEFAULT_TIMEOUTS, signal, fetchImpl = fetch } = options;
  const guard = watchdog(url, signal);
  try {
    if (signal?.aborted) throw new LoadCancelledError(`loading ${url.href} was cancelled`);
    guard.arm(timeouts.requestMs, 'respond');
    const response = await fetchImpl(url, { ...options.init, signal: guard.signal });
    options.checkResponse?.(response);
    return await readBody(response, url, guard, timeouts.stallMs, options.limit, options.onProgress);
  } catch (error) {
    throw guard.explain(error);
  } finally {
    guard.done();
  }
}

/** A reader for the directory at `baseUrl` (ending in '/'), cached under MODEL_CACHE when `cache` is true. */
export function httpReader(baseUrl: string, cache: boolean, options: HttpReaderOptions = {}): FileReader {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const checkResponse = (url: URL) => (response: Response) => {
    if (response.status === 404) throw new ModelFileMissingError(`${url.href}: HTTP 404 (no such file)`);
    if (!response.ok) throw new ModelLoadError(`${url.href}: HTTP ${response.status} ${response.statusText}`);
    // A web page where a model file should be: the URL is a site, not a model directory (or a server's fallback page).
    if (response.headers.get('content-type')?.includes('text/html')) {
      throw new ModelFileMissingError(`${url.href} is a web page, not a model file: is ${base} the address of a model directory?`);
    }
  };
  return async (path, onProgress, maxBytes) => {
    // Relative to the page in a browser; Node callers pass an absolute URL.
    const url = new URL(path, typeof location === 'undefined' ? base : new URL(base, location.href));
    // The worker applies the page's connect-src itself: a <meta> policy does not reach it.
    if (typeof location !== 'undefined' && !connectAllowed(url, location.origin)) throw new ModelLoadError(connectBlockedMessage(url));
    const store = cache && 'caches' in globalThis ? await caches.open(MODEL_CACHE) : null;
    const hit = await store?.match(url.href);
    if (hit) {
      const bytes = new Uint8Array(await hit.arrayBuffer());
      onProgress?.(bytes.length, bytes.length);
      return bytes;
    }
    // The loader's cap is the listed size, or MANIFEST_LIMITS.fileBytes for a file no manifest sizes.
    const limit = maxBytes === undefined ? null : { bytes: maxBytes, why: maxBytes === MANIFEST_LIMITS.fileBytes ? 'the most any model file may be' : 'the size the manifest lists' };
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const bytes = await boundedFetch(url, { limit, timeouts: options.timeouts, signal: options.signal, checkResponse: checkResponse(url), onProgress });
        await store?.put(url.href, new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }));
        return bytes;
      } catch (error) {
        lastError = error;
        // A missing file will not appear by asking again; a silent server or a cancelled load is not retried.
        if (lastError instanceof ModelFileMissingError || lastError instanceof NetworkTimeoutError || lastError instanceof LoadCancelledError || lastError instanceof FileTooLargeError) break;
      }
    }
    if (lastError instanceof ModelLoadError) throw lastError;
    const detail = lastError instanceof Error ? lastError.message : String(lastError);
    // A browser reports a refused connection, a CORS refusal and a blocked URL alike as "Failed to fetch".
    throw new ModelLoadError(`${url.href}: download failed after ${ATTEMPTS} attempts: ${detail}`);
  };
}

export async function evictModelCache(): Promise<void> {
  if ('caches' in globalThis) await caches.delete(MODEL_CACHE);
}
