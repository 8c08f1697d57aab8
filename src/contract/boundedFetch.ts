/**
 * One bounded HTTP read, shared by the model loader (src/models/httpReader.ts) and live /metrics scrapes (the
 * app's vLLM view, `import:vllm --url`): the server must answer (headers) within `requestMs`, a body must not
 * stall longer than `stallMs` between chunks, must keep NETWORK_LIMITS' pace, and must not pass its byte
 * limit; past any of these the read stops at once, naming the server, so a server that never answers, trickles
 * or sends without end cannot hold the caller.
 */
import { NETWORK_LIMITS } from './limits';
import type { NetworkTimeouts } from './protocol';

export const DEFAULT_TIMEOUTS: NetworkTimeouts = {
  requestMs: NETWORK_LIMITS.requestSeconds * 1000,
  stallMs: NETWORK_LIMITS.stallSeconds * 1000,
};

/** A read stopped by one of its bounds, or cancelled: the message says which, and names the server. */
export class BoundedReadError extends Error {
  override name = 'BoundedReadError';
}

/** The server did not answer, or stopped sending, in time: not retried, since waiting again rarely helps. */
export class NetworkTimeoutError extends BoundedReadError {
  override name = 'NetworkTimeoutError';
}

/** The load was cancelled (a new load, or Cancel). */
export class LoadCancelledError extends BoundedReadError {
  override name = 'LoadCancelledError';
}

/** A watchdog over one request: `arm` (re)starts the countdown, after which the request is aborted. */
/** A URL as messages show it: a user name and password in it (http://user:password@host/) never printed. */
export function shownUrl(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = url.username === '' ? '' : '***';
  copy.password = url.password === '' ? '' : '***';
  return copy.href;
}

/** A URL as typed, for a message about it: any user name and password before an @ hidden, even where the text is no valid URL. */
export const shownUrlText = (text: string): string => text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1***@');

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
        expired = new NetworkTimeoutError(
          `the server at ${url.origin} did not ${what} within ${ms / 1000} s (${shownUrl(url)})`,
        );
        controller.abort();
      }, ms);
    },
    /** The error to report for a failure: the timeout or the cancellation that caused it, else the failure itself. */
    explain(error: unknown): unknown {
      if (expired) return expired;
      if (outer?.aborted) return new LoadCancelledError(`loading ${shownUrl(url)} was cancelled`);
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
export class FileTooLargeError extends BoundedReadError {
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
  stream?: StreamOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const tooLarge = (bytes: string) =>
    new FileTooLargeError(
      `${shownUrl(url)} is ${bytes}, but ${limit?.bytes} bytes at most were expected (${limit?.why}): the download was stopped`,
    );
  if (limit && total !== null && total > limit.bytes) {
    // The body is never read: closing it frees the connection rather than leaving it to the server.
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge(`${total} bytes (Content-Length)`);
  }
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
    stream?.onChunk(value, now);
    if (stream?.pace !== false && loaded < (seconds - paceGraceSeconds) * minimumBytesPerSecond) {
      void reader.cancel().catch(() => undefined);
      throw new NetworkTimeoutError(
        `the server at ${url.origin} sent ${loaded} bytes in ${seconds.toFixed(1)} s, slower than the ${minimumBytesPerSecond} bytes/s a download must keep after its first ${paceGraceSeconds} s: the download was stopped (${shownUrl(url)})`,
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

/**
 * A streamed body (server-sent events): each chunk as it arrives, with its time (performance.now()). `pace:
 * false` drops the minimum pace, since a stream sends as fast as its server generates; the stall limit
 * between chunks, the byte limit and the caller's signal still bound it.
 */
export interface StreamOptions {
  onChunk: (chunk: Uint8Array, at: number) => void;
  pace?: boolean;
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
  stream?: StreamOptions;
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
    if (signal?.aborted) throw new LoadCancelledError(`loading ${shownUrl(url)} was cancelled`);
    guard.arm(timeouts.requestMs, 'respond');
    const response = await fetchImpl(url, { ...options.init, signal: guard.signal });
    options.checkResponse?.(response);
    return await readBody(response, url, guard, timeouts.stallMs, options.limit, options.onProgress, options.stream);
  } catch (error) {
    throw guard.explain(error);
  } finally {
    guard.done();
  }
}
