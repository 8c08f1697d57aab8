/**
 * The service worker that keeps SpecLab working offline after one visit (docs/presenting.md#offline).
 * The build (tools/serviceWorkerPlugin.ts) transpiles this file to `sw.js` and puts the precache list in
 * front of it as `SPECLAB_PRECACHE`: every file of the bundle (the app shell, the engine's worker,
 * onnxruntime's wasm) and the bundled int8 pair, and the sha256 each model manifest lists for its files.
 * Install fetches them all into one cache named by the build's version. A new build installs beside the old
 * one and waits: it takes over only when every tab of the old one is closed, or when the page asks (the
 * "reload to update" button), never mid-talk. On activate it deletes every cache of other versions, the shell
 * and the runtime cache alike.
 * A reply is kept only when it is fit for its file (`unfit`): HTTP 200, a content type that fits the file (JSON
 * for .json, and JSON that parses; wasm for .wasm; binary for .onnx; a page only for .html), and a model file's
 * bytes hashing to its manifest's sha256. A captive portal's page, a 404 page or a damaged file is passed on to
 * the page, which says what is wrong, and never kept; install fails on one and is tried again on the next visit.
 * Pages, assets and models are served from the cache first (a page visit gets its page, index.html or
 * embed.html, whatever its query; any other path gets index.html). Talks and every other same-origin file
 * (the float32 target, the first time it is loaded) go to the network first and are kept when fit, so an
 * edited talk shows after one reload; the cached copy answers only when the network fails or sends a reply
 * unfit for the file.
 * Hub downloads are not touched here: the model loader keeps them in its own Cache API cache.
 * Imports nothing: it is transpiled alone.
 */

declare const SPECLAB_PRECACHE: { version: string; files: string[]; sha256: Record<string, string> };

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
/** As RUNTIME_CACHE_PREFIX in src/contract/offlineCaches.ts, whose "Clear offline data" deletes these caches. */
const RUNTIME_PREFIX = 'speclab-runtime';
const RUNTIME = `${RUNTIME_PREFIX}-${SPECLAB_PRECACHE.version}`;
const at = (file: string) => new URL(file, scope.registration.scope).href;
const INDEX = at('index.html');
const PRECACHED = new Set(SPECLAB_PRECACHE.files.map(at));
/** The sha256 a model manifest lists, by absolute URL. */
const LISTED_SHA256 = new Map(Object.entries(SPECLAB_PRECACHE.sha256).map(([file, sha]) => [at(file), sha]));
/** Files under these folders change without a new build (a talk edited on the server): network first. */
const NETWORK_FIRST = ['talks/'].map(at);
/** A JSON file is parsed before it is kept; one past this size is not kept. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

const hex = (digest: ArrayBuffer) =>
  Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');

/** Why `response` may not be kept as `url`, from its status and headers alone, or null when it may. */
function unfitReply(url: string, response: Response): string | null {
  if (response.status !== 200 || response.type === 'opaque' || response.redirected)
    return `HTTP ${response.status}${response.redirected ? ' after a redirect' : ''}`;
  const path = new URL(url).pathname;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const served = type === '' ? 'no content type' : type;
  if (path.endsWith('.json'))
    return type === 'application/json' || type.endsWith('+json') ? null : `${served} for a JSON file`;
  if (path.endsWith('.wasm')) return type === 'application/wasm' ? null : `${served} for a wasm file`;
  // vite preview sends application/octet-stream (vite.config.ts); a static host sends that, nothing, or its own
  // binary type (S3: binary/octet-stream) for .onnx. Text is a page or a message; the sha256 check does the rest.
  if (path.endsWith('.onnx'))
    return type.startsWith('text/') || type.endsWith('json') ? `${served} for a model file` : null;
  if (path.endsWith('.html') || path.endsWith('/')) return type === 'text/html' ? null : `${served} for a page`;
  return type === 'text/html' ? 'a web page for a file that is not one' : null;
}

/** Why a body that `unfitReply` let pass may not be kept: a model file whose sha256 is not its manifest's, JSON that does not parse. */
async function unfitBody(url: string, response: Response): Promise<string | null> {
  const sha = LISTED_SHA256.get(url);
  const json = new URL(url).pathname.endsWith('.json');
  if (sha === undefined && !json) return null;
  const bytes = await response.arrayBuffer();
  if (sha !== undefined) {
    const got = hex(await crypto.subtle.digest('SHA-256', bytes));
    if (got !== sha) return `sha256 ${got}, but its manifest lists ${sha}`;
  }
  if (json) {
    if (bytes.byteLength > MAX_JSON_BYTES) return `${bytes.byteLength} bytes of JSON`;
    try {
      JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return 'not JSON';
    }
  }
  return null;
}

/** Puts `response` in `cache` as `url` once its body is fit, else says why not. */
async function keep(cache: Cache, url: string, response: Response): Promise<string | null> {
  const problem = unfitReply(url, response) ?? (await unfitBody(url, response.clone()));
  if (problem === null) await cache.put(url, response);
  return problem;
}

scope.addEventListener('install', (event) => {
  // Files under assets/ carry a content hash and may come from the HTTP cache as they are; the others (the
  // page, the models) are revalidated, so the cache holds this build's copy and not an older one.
  const request = (file: string) =>
    new Request(at(file), { cache: file.startsWith('assets/') ? 'default' : 'no-cache' });
  const precache = async (cache: Cache, file: string) => {
    const problem = await keep(cache, at(file), await fetch(request(file)));
    // One unfit file fails the install: the old worker (or none) stays, and the next visit tries again.
    if (problem !== null) throw new Error(`${file} was not cached: ${problem}`);
  };
  event.waitUntil(
    caches.open(SHELL).then((cache) => Promise.all(SPECLAB_PRECACHE.files.map((file) => precache(cache, file)))),
  );
});

scope.addEventListener('activate', (event) => {
  // Every cache of another version goes: its shell, and what it kept at run time (a bad entry included).
  const current = new Set([SHELL, RUNTIME]);
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => (name.startsWith(SHELL_PREFIX) || name.startsWith(RUNTIME_PREFIX)) && !current.has(name))
            .map((name) => caches.delete(name)),
        ),
      )
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

/**
 * The network's reply, and whether its status and headers fit the file. A fit reply goes to the page at once
 * (a download's progress and timeouts stay the page's) while a copy is checked whole and kept in the runtime
 * cache in the background (`later`).
 */
async function fromNetwork(
  request: Request,
  key: string,
  later: (work: Promise<unknown>) => void,
): Promise<{ response: Response; fit: boolean }> {
  const response = await fetch(request);
  const fit = unfitReply(key, response) === null;
  if (fit) {
    // Cloned now: once the page has the response, its body is locked.
    const copy = response.clone();
    later(caches.open(RUNTIME).then((runtime) => keep(runtime, key, copy)));
  }
  return { response, fit };
}

/** A precached page, asset or model: from the shell cache first (its entries were checked at install). */
async function fromCacheFirst(
  request: Request,
  key: string,
  later: (work: Promise<unknown>) => void,
): Promise<Response> {
  const hit =
    (await caches.open(SHELL).then((shell) => shell.match(key))) ??
    (await caches.open(RUNTIME).then((runtime) => runtime.match(key)));
  return hit ?? (await fromNetwork(request, key, later)).response;
}

/** A talk or a file not precached: the network first; the cached copy when the network fails or sends a reply unfit for the file. */
async function fromNetworkFirst(
  request: Request,
  key: string,
  later: (work: Promise<unknown>) => void,
): Promise<Response> {
  // The runtime copy is the newer one (a talk precached and since edited); both were fit when they were kept.
  const cached = async () =>
    (await caches.open(RUNTIME).then((runtime) => runtime.match(key))) ??
    (await caches.open(SHELL).then((shell) => shell.match(key)));
  try {
    const { response, fit } = await fromNetwork(request, key, later);
    if (fit) return response;
    return (await cached()) ?? response;
  } catch (error) {
    const hit = await cached();
    if (hit) return hit;
    throw error;
  }
}

scope.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  // Other origins (the Hub) and anything but a plain GET go to the network as they would without this worker.
  if (
    request.method !== 'GET' ||
    url.origin !== new URL(scope.registration.scope).origin ||
    request.headers.has('range')
  )
    return;
  // The worker script itself is checked by the browser, never answered from a cache.
  if (url.pathname.endsWith('/sw.js')) return;
  const key = request.mode === 'navigate' ? pageKey(url) : (request.url.split('#')[0] ?? request.url);
  const networkFirst = !PRECACHED.has(key) || NETWORK_FIRST.some((folder) => key.startsWith(folder));
  const later = (work: Promise<unknown>) => event.waitUntil(work.catch(() => undefined));
  const response = networkFirst ? fromNetworkFirst(request, key, later) : fromCacheFirst(request, key, later);
  event.respondWith(request.mode === 'navigate' ? response.then(withCrossOriginIsolation) : response);
});

/**
 * A page with the cross-origin isolation headers the dev server and preview send (vite.config.ts), where its
 * host sent none (a static host without public/_headers): onnxruntime-web's threaded wasm needs
 * SharedArrayBuffer, so the page can use every core from the second visit on.
 */
function withCrossOriginIsolation(response: Response): Response {
  if (response.type === 'opaqueredirect' || response.headers.has('cross-origin-embedder-policy')) return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
