import { useEffect, useState } from 'react';
import { clearOfflineData, describeCleared } from '../contract/offlineCaches';
import { useSpec } from './storeContext';

/** Where offline use stands (docs/presenting.md#offline). */
type Offline =
  | { kind: 'waiting' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'caching' }
  | { kind: 'ready'; update: ServiceWorker | null }
  | { kind: 'failed'; reason: string };

/** Why this page can never be cached, or null when it can. */
function whyUnavailable(): string | null {
  // import.meta.hot exists only under the development server (a build under NODE_ENV=test is not PROD, yet is built).
  if (import.meta.hot) return 'the development server is never cached';
  if (!('serviceWorker' in navigator)) return 'this page has no service workers (it needs https:// or localhost)';
  // The browser tests would each download the whole precache in the background; the one that tests it asks.
  if (navigator.webdriver && !new URLSearchParams(location.search).has('sw')) return 'under automation, only with ?sw';
  return null;
}

function describe(registration: ServiceWorkerRegistration): Offline {
  // A waiting worker is a newer build, installed and held back until the presenter asks for it.
  if (registration.active) return { kind: 'ready', update: registration.waiting };
  if (registration.installing || registration.waiting) return { kind: 'caching' };
  return { kind: 'failed', reason: 'the files could not all be cached (reload to try again)' };
}

/**
 * Registers the offline service worker once the models have loaded (so that its downloads never slow the
 * first load), and says where it stands: caching, "offline: ready", or what is missing. A new build is
 * announced with a button and applied only when pressed: never mid-talk.
 */
export function OfflineStatus() {
  const engineReady = useSpec((s) => s.engine.status === 'ready');
  const [registered, setOffline] = useState<Offline>({ kind: 'waiting' });
  const unavailable = whyUnavailable();
  useEffect(() => {
    if (!engineReady || unavailable !== null) return;
    let cancelled = false;
    const container = navigator.serviceWorker;
    container
      .register(`${import.meta.env.BASE_URL}sw.js`)
      .then((registration) => {
        const update = () => {
          if (!cancelled) setOffline(describe(registration));
        };
        const watch = (worker: ServiceWorker | null) => worker?.addEventListener('statechange', update);
        watch(registration.installing);
        watch(registration.waiting);
        registration.addEventListener('updatefound', () => {
          watch(registration.installing);
          update();
        });
        update();
      })
      .catch((error: unknown) => {
        if (!cancelled) setOffline({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      cancelled = true;
    };
  }, [engineReady, unavailable]);
  // What "Clear offline data" last did, or why it could not.
  const [cleared, setCleared] = useState<string | null>(null);
  const clear = () =>
    clearOfflineData()
      .then((result) => setCleared(describeCleared(result)))
      .catch((error: unknown) =>
        setCleared(`Could not clear the offline data: ${error instanceof Error ? error.message : String(error)}`),
      );
  const offline: Offline =
    unavailable !== null && engineReady ? { kind: 'unavailable', reason: unavailable } : registered;
  if (offline.kind === 'waiting') return null;
  const applyUpdate = (worker: ServiceWorker) => {
    navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
    worker.postMessage('skip-waiting');
  };
  return (
    <>
      <span className="offline-status" data-testid="offline-status" data-state={offline.kind}>
        {offline.kind === 'unavailable' && `offline: not available (${offline.reason})`}
        {offline.kind === 'caching' && 'offline: caching the app and the bundled pair…'}
        {offline.kind === 'failed' && `offline: not ready (${offline.reason})`}
        {offline.kind === 'ready' && 'offline: ready'}
        {offline.kind === 'ready' && offline.update && (
          <>
            {' · a new version is ready '}
            <button type="button" onClick={() => offline.update && applyUpdate(offline.update)}>
              Reload to update
            </button>
          </>
        )}
      </span>
      {(offline.kind === 'ready' || offline.kind === 'failed') && (
        <span className="offline-clear">
          {' '}
          <button
            type="button"
            onClick={() => void clear()}
            title="Delete the files kept offline as they were loaded (the float32 target, talks, Hub models); the app and the bundled pair stay cached"
          >
            Clear offline data
          </button>
          {cleared !== null && (
            <span role="status" data-testid="offline-cleared">
              {' '}
              {cleared}
            </span>
          )}
        </span>
      )}
    </>
  );
}
