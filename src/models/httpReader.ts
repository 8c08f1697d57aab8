/**
 * Reads a model directory over HTTP with download progress, retries, and the browser Cache API. A file is
 * cached only once its whole body has arrived, so an interrupted download never leaves a half entry; a
 * file whose hash then fails is evicted by `evictModelCache`.
 */
import { ModelFileMissingError, type FileReader } from './loader';
import { ModelLoadError } from './manifest';

export const MODEL_CACHE = 'speclab-models-v1';
const ATTEMPTS = 3;

async function readBody(response: Response, onProgress?: (loaded: number, total: number | null) => void): Promise<Uint8Array<ArrayBuffer>> {
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
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

/** A reader for the directory at `baseUrl` (ending in '/'), cached under MODEL_CACHE when `cache` is true. */
export function httpReader(baseUrl: string, cache: boolean): FileReader {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return async (path, onProgress) => {
    // Relative to the page in a browser; Node callers pass an absolute URL.
    const url = new URL(path, typeof location === 'undefined' ? base : new URL(base, location.href)).href;
    const store = cache && 'caches' in globalThis ? await caches.open(MODEL_CACHE) : null;
    const hit = await store?.match(url);
    if (hit) {
      const bytes = new Uint8Array(await hit.arrayBuffer());
      onProgress?.(bytes.length, bytes.length);
      return bytes;
    }
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const response = await fetch(url);
        if (response.status === 404) throw new ModelFileMissingError(`${url}: HTTP 404 (no such file)`);
        if (!response.ok) throw new ModelLoadError(`${url}: HTTP ${response.status} ${response.statusText}`);
        const bytes = await readBody(response, onProgress);
        await store?.put(url, new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }));
        return bytes;
      } catch (error) {
        lastError = error;
        // A missing file will not appear by asking again.
        if (error instanceof ModelFileMissingError) break;
      }
    }
    throw lastError instanceof ModelLoadError
      ? lastError
      : new ModelLoadError(`${url}: download failed after ${ATTEMPTS} attempts: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
  };
}

export async function evictModelCache(): Promise<void> {
  if ('caches' in globalThis) await caches.delete(MODEL_CACHE);
}
