/**
 * The Cache API caches besides the service worker's shell: the worker's runtime caches (`speclab-runtime-<version>`,
 * the files kept as they are first loaded: the float32 target, talks) and the model loader's cache of Hub
 * downloads. src/serviceWorker.ts is transpiled alone and repeats the runtime prefix (test/contract/offlineCaches.test.ts
 * checks that the two agree). "Clear offline data" (src/ui/OfflineStatus.tsx) empties them; the shell, checked
 * file by file when it was installed, stays, so the app and the bundled int8 pair still work offline.
 */
export const RUNTIME_CACHE_PREFIX = 'speclab-runtime';
export const MODEL_CACHE = 'speclab-models-v1';

/** What a clear removed: the number of files, their bytes, and the caches deleted. */
export interface ClearedOfflineData {
  files: number;
  bytes: number;
  caches: string[];
}

/** Deletes the runtime and model caches, counting what they held first. */
export async function clearOfflineData(storage: CacheStorage = caches): Promise<ClearedOfflineData> {
  const names = (await storage.keys()).filter((name) => name.startsWith(RUNTIME_CACHE_PREFIX) || name === MODEL_CACHE);
  let files = 0;
  let bytes = 0;
  for (const name of names) {
    const cache = await storage.open(name);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      files++;
      bytes += response ? (await response.blob()).size : 0;
    }
    await storage.delete(name);
  }
  return { files, bytes, caches: names };
}

/** The sentence "Clear offline data" shows. */
export function describeCleared({ files, bytes }: ClearedOfflineData): string {
  if (files === 0)
    return 'Nothing to clear: no file was kept beyond the app and the bundled int8 pair, which stay cached.';
  return `Cleared ${files} ${files === 1 ? 'file' : 'files'} (${(bytes / 1024 ** 2).toFixed(1)} MB) kept offline as they were loaded (the float32 target, talks, Hub models); the app and the bundled int8 pair stay cached.`;
}
