/**
 * `--pair` in a Chromium section: the page loads the pair as the app loads a Hub pair, over HTTP
 * (src/models/httpReader.ts). An https URL is fetched as it is. The app's connect-src allows plain http only
 * from its own origin, and a page cannot read the disk, so the tool's Vite server carries the rest under
 * PAIR_ROUTE: a local directory is served read-only (nothing outside it: the route resolves links and
 * refuses any path that leaves the directory), and an http URL is proxied.
 */
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import type { Connect, Plugin, ProxyOptions } from 'vite';
import type { PairLocation } from './pair';

/** The pair's locations as the page reads them, and the words a report names the pair with. */
export interface PagePair {
  draftUrl: string;
  targetUrl: string;
  label: string;
}

const PAIR_ROUTE = '/__speclab-pair';

/** How every report names a --pair, in Node and in Chromium. */
export const pairLabel = (location: PairLocation) => `the pair ${location.draft} → ${location.target}`;

/** GET and HEAD of the files under `directory`; anything else, or any path out of it, is refused. */
function serveDirectory(directory: string): Connect.NextHandleFunction {
  const root = realpathSync(directory);
  return (request, response) => {
    const refuse = (status: number) => {
      response.statusCode = status;
      response.end();
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405);
    let file: string;
    try {
      file = realpathSync(join(root, decodeURIComponent((request.url ?? '/').split('?')[0] as string)));
    } catch {
      return refuse(404);
    }
    if (!file.startsWith(root + sep) || !statSync(file).isFile()) return refuse(404);
    response.setHeader('Content-Type', extname(file) === '.json' ? 'application/json' : 'application/octet-stream');
    response.setHeader('Content-Length', statSync(file).size);
    if (request.method === 'HEAD') return response.end();
    createReadStream(file).pipe(response);
  };
}

/** The page's URLs for `location`, and the plugin that serves (or proxies) what the page cannot fetch itself. */
export function pairForPage(location: PairLocation): { page: PagePair; plugin: Plugin } {
  const routes = new Map<string, Connect.NextHandleFunction>();
  const proxy: Record<string, ProxyOptions> = {};
  const urlFor = (role: 'draft' | 'target', where: string) => {
    if (/^https:\/\//i.test(where)) return where;
    const route = `${PAIR_ROUTE}/${role}/`;
    if (/^http:\/\//i.test(where)) {
      const remote = new URL(where.endsWith('/') ? where : `${where}/`);
      proxy[route] = {
        target: remote.origin,
        changeOrigin: true,
        rewrite: (path) => `${remote.pathname}${path.slice(route.length)}`,
      };
    } else routes.set(route, serveDirectory(where));
    return route;
  };
  const page = {
    draftUrl: urlFor('draft', location.draft),
    targetUrl: urlFor('target', location.target),
    label: pairLabel(location),
  };
  const plugin: Plugin = {
    name: 'speclab-pair',
    config: () => ({ server: { proxy } }),
    configureServer(server) {
      for (const [route, serve] of routes) server.middlewares.use(route, serve);
    },
  };
  return { page, plugin };
}
