/**
 * Reads a model directory over HTTP with download progress, retries, timeouts, cancellation and the browser
 * Cache API. Every read is bounded as src/contract/boundedFetch.ts bounds it (time to answer, stalls, pace,
 * bytes: at most the size the manifest lists), so a server that never answers or trickles cannot hold the
 * engine. A file is cached only once its whole body has arrived, so an interrupted download never leaves a
 * half entry; a file whose hash then fails is evicted by `evictModelCache`.
 */
import { BoundedReadError, boundedFetch } from '../contract/boundedFetch';
import { connectAllowed, connectBlockedMessage } from '../contract/csp';
import { MANIFEST_LIMITS } from '../contract/limits';
import { MODEL_CACHE } from '../contract/offlineCaches';
import type { NetworkTimeouts } from '../contract/protocol';
import { ModelFileMissingError, type FileReader } from './loader';
import { ModelLoadError } from './manifest';

const ATTEMPTS = 3;

export interface HttpReaderOptions {
  signal?: AbortSignal;
  timeouts?: NetworkTimeouts;
}

/** A reader for the directory at `baseUrl` (ending in '/'), cached under MODEL_CACHE when `cache` is true. */
export function httpReader(baseUrl: string, cache: boolean, options: HttpReaderOptions = {}): FileReader {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const checkResponse = (url: URL) => (response: Response) => {
    if (response.status === 404) throw new ModelFileMissingError(`${url.href}: HTTP 404 (no such file)`);
    if (!response.ok) throw new ModelLoadError(`${url.href}: HTTP ${response.status} ${response.statusText}`);
    // A web page where a model file should be: the URL is a site, not a model directory (or a server's fallback page).
    if (response.headers.get('content-type')?.includes('text/html')) {
      throw new ModelFileMissingError(
        `${url.href} is a web page, not a model file: is ${base} the address of a model directory?`,
      );
    }
  };
  return async (path, onProgress, maxBytes) => {
    // Relative to the page in a browser; Node callers pass an absolute URL.
    const url = new URL(path, typeof location === 'undefined' ? base : new URL(base, location.href));
    // The worker applies the page's connect-src itself: a <meta> policy does not reach it.
    if (typeof location !== 'undefined' && !connectAllowed(url, location.origin))
      throw new ModelLoadError(connectBlockedMessage(url));
    const store = cache && 'caches' in globalThis ? await caches.open(MODEL_CACHE) : null;
    const hit = await store?.match(url.href);
    if (hit) {
      const bytes = new Uint8Array(await hit.arrayBuffer());
      onProgress?.(bytes.length, bytes.length);
      return bytes;
    }
    // The loader's cap is the listed size, or MANIFEST_LIMITS.fileBytes for a file no manifest sizes.
    const limit =
      maxBytes === undefined
        ? null
        : {
            bytes: maxBytes,
            why:
              maxBytes === MANIFEST_LIMITS.fileBytes ? 'the most any model file may be' : 'the size the manifest lists',
          };
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const bytes = await boundedFetch(url, {
          limit,
          timeouts: options.timeouts,
          signal: options.signal,
          checkResponse: checkResponse(url),
          onProgress,
        });
        await store?.put(url.href, new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }));
        return bytes;
      } catch (error) {
        lastError = error;
        // A missing file will not appear by asking again; a silent, slow or oversized body or a cancelled load is not retried.
        if (lastError instanceof ModelFileMissingError || lastError instanceof BoundedReadError) break;
      }
    }
    if (lastError instanceof ModelLoadError || lastError instanceof BoundedReadError) throw lastError;
    const detail = lastError instanceof Error ? lastError.message : String(lastError);
    // A browser reports a refused connection, a CORS refusal and a blocked URL alike as "Failed to fetch".
    throw new ModelLoadError(`${url.href}: download failed after ${ATTEMPTS} attempts: ${detail}`);
  };
}

export async function evictModelCache(): Promise<void> {
  if ('caches' in globalThis) await caches.delete(MODEL_CACHE);
}
