/**
 * The service worker that keeps SpecLab working offline after one visit (docs/presenting.md#offline).
 * The build (tools/serviceWorkerPlugin.ts) transpiles this file to `sw.js` and puts the precache list in
 * front of it as `SPECLAB_PRECACHE`: every file of the bundle (the app shell, the engine's worker,
 * onnxruntime's wasm) and the bundled int8 pair. Install fetches them all into one cache named by the
 * build's version. A new build installs beside the old one and waits: it takes over only when every tab
 * of the old one is closed, or when the page asks (the "reload to update" button), never mid-talk.
 * Precached files are served from the cache first (a page visit gets its page, index.html or embed.html,
 * whatever its query; any other path gets index.html); any other same-origin GET is fetched and kept in a
 * runtime cache (the float32 target the first time it is loaded), so it too works offline afterwards.
 * Hub downloads are not touched here: the model loader keeps them in its own Cache API cache.
 * Imports nothing: it is transpiled alone.
 */

declare const SPECLAB_PRECACHE: { version: string; files: string[] };

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WorkerScope {
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
}

const scope = self as unknown as WorkerScope;
const SHELL_PREFIX = 'speclab-shell-';
const SHELL = `${SHELL_PREFIX}${SPECLAB_PRECACHE.version}`;
const RUNTIME = 'speclab-runtime';
const at = (file: string) => new URL(file, scope.registration.scope).href;
const INDEX = at('index.html');
const PRECACHED = new Set(SPECLAB_PRECACHE.files.map(at));

scope.addEventListener('install', (event) => {
  // Files under assets/ carry a content hash and may come from the HTTP cache as they are; the others (the
  // page, the models) are revalidated, so the cache holds this build's copy and not an older one.
  const request = (file: string) => new Request(at(file), { cache: file.startsWith('assets/') ? 'default' : 'no-cache' });
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(SPECLAB_PRECACHE.files.map(request))));
});

scope.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith(SHELL_PREFIX) && name !== SHELL).map((name) => caches.delete(name))))
      .then(() => scope.clients.claim()),
  );
});

scope.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') void scope.skipWaiting();
});

/** The cache key of a page visit: the precached page at its path (embed.html, with or without `.html`), else index.html. */
function pageKey(url: URL): string {
  const page = url.pathname.endsWith('.html') ? `${url.origin}${url.pathname}` : `${url.origin}${url.pathname}.html`;
  return PRECACHED.has(page) ? page : INDEX;
}

async function fromCacheOrNetwork(request: Request): Promise<Response> {
  const shell = await caches.open(SHELL);
  const key = request.mode === 'navigate' ? pageKey(new URL(request.url)) : request.url.split('#')[0] ?? request.url;
  const hit = (await shell.match(key)) ?? (await caches.open(RUNTIME).then((runtime) => runtime.match(request)));
  if (hit) return hit;
  const response = await fetch(request);
  // A partial response cannot be stored, and the shell's files are only ever stored by install.
  if (response.ok && response.status === 200 && !PRECACHED.has(key)) {
    const copy = response.clone();
    void caches.open(RUNTIME).then((runtime) => runtime.put(request, copy));
  }
  return response;
}

scope.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  // Other origins (the Hub) and anything but a plain GET go to the network as they would without this worker.
  if (request.method !== 'GET' || url.origin !== new URL(scope.registration.scope).origin || request.headers.has('range')) return;
  // The worker script itself is checked by the browser, never answered from a cache.
  if (url.pathname.endsWith('/sw.js')) return;
  event.respondWith(fromCacheOrNetwork(request));
});
