import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clearOfflineData, describeCleared, MODEL_CACHE, RUNTIME_CACHE_PREFIX } from '../../src/contract/offlineCaches';

/** A CacheStorage over maps, holding `contents` (cache name → URL → body). */
function fakeStorage(contents: Record<string, Record<string, string>>): CacheStorage {
  const stored = new Map(Object.entries(contents).map(([name, files]) => [name, new Map(Object.entries(files))]));
  const cache = (files: Map<string, string>) =>
    ({
      keys: async () => [...files.keys()].map((url) => new Request(url)),
      match: async (request: Request) => {
        const body = files.get(request.url);
        return body === undefined ? undefined : new Response(body);
      },
    }) as unknown as Cache;
  return {
    keys: async () => [...stored.keys()],
    open: async (name: string) => cache(stored.get(name) ?? new Map()),
    delete: async (name: string) => stored.delete(name),
    has: async (name: string) => stored.has(name),
    match: async () => undefined,
  } as CacheStorage;
}

describe('clear offline data', () => {
  it('deletes the runtime caches of every version and the model cache, keeps the shell, and says what went', async () => {
    const storage = fakeStorage({
      'speclab-shell-abc': { 'http://x/index.html': '<!doctype html>' },
      [`${RUNTIME_CACHE_PREFIX}-abc`]: {
        'http://x/models/speclab-target/manifest.json': '{}',
        'http://x/talks/t.json': 'x'.repeat(1024 ** 2),
      },
      [RUNTIME_CACHE_PREFIX]: { 'http://x/old.json': '[]' },
      [MODEL_CACHE]: { 'https://hub/model.onnx': 'y'.repeat(2 * 1024 ** 2) },
    });
    const cleared = await clearOfflineData(storage);
    expect(cleared.caches.sort()).toEqual([MODEL_CACHE, RUNTIME_CACHE_PREFIX, `${RUNTIME_CACHE_PREFIX}-abc`].sort());
    expect(cleared.files).toBe(4);
    expect(cleared.bytes).toBe(3 * 1024 ** 2 + 4);
    await expect(storage.keys()).resolves.toEqual(['speclab-shell-abc']);
    expect(describeCleared(cleared)).toBe(
      'Cleared 4 files (3.0 MB) kept offline as they were loaded (the float32 target, talks, Hub models); the app and the bundled int8 pair stay cached.',
    );
    expect(describeCleared(await clearOfflineData(storage))).toBe(
      'Nothing to clear: no file was kept beyond the app and the bundled int8 pair, which stay cached.',
    );
  });

  it('names the runtime caches as the service worker does (it is transpiled alone and repeats the prefix)', () => {
    expect(readFileSync('src/serviceWorker.ts', 'utf8')).toContain(`const RUNTIME_PREFIX = '${RUNTIME_CACHE_PREFIX}';`);
  });
});
