/**
 * Who may use `npm run serve`, decided from the headers before a body is read: only same-origin or
 * no-origin requests (a web page elsewhere cannot drive the server, nor read /metrics through a rebound DNS
 * name), JSON bodies only, and a bearer token on /v1 when --api-key-file is given. A refusal is not counted
 * in /metrics and decodes nothing. docs/engineers.md, "Security defaults", says the same for a user.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';

export interface GuardOptions {
  /** The --host value the server listens on. */
  host: string;
  /** The port it listens on (known once it does). */
  port: number;
  /** The one cross-origin page allowed (--cors), or null for none. */
  cors: string | null;
  /** The bearer token /v1 requires (--api-key-file), or null for none. */
  apiKey: string | null;
}

export interface Refusal {
  status: number;
  message: string;
  type: string;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Is the listening address reachable from other machines (a warning that there is no authentication is due)? */
export const isExposed = (host: string) => !LOOPBACK_HOSTS.has(host.toLowerCase());

/** The names a Host header may carry: 127.0.0.1, localhost, the --host value, and on a wildcard host the machine's own addresses. */
function allowedHostnames(host: string): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.toLowerCase()]);
  if (WILDCARD_HOSTS.has(host))
    for (const addresses of Object.values(networkInterfaces()))
      for (const address of addresses ?? [])
        names.add(address.family === 'IPv6' ? `[${address.address}]` : address.address);
  return names;
}

/** The hostname of a Host header ("example.com:8000", "[::1]:8000"), lower-cased; null when it is not one. */
function hostnameOf(header: string): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(header.trim());
  return match ? (match[1] as string).toLowerCase() : null;
}

/** --cors: one origin, scheme://host[:port], never "*" (every page would then drive the server). */
export function corsOrigin(text: string): string | null {
  if (text === '*') return null;
  try {
    const url = new URL(text);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text.replace(/\/$/, '')) return null;
    return url.origin;
  } catch {
    return null;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export function createGuard(options: () => GuardOptions) {
  let hostnames: Set<string> | null = null;
  const current = () => {
    const settings = options();
    hostnames ??= allowedHostnames(settings.host);
    return { settings, hostnames };
  };

  /** Same-origin: an Origin whose host is one this server answers to, on its port. */
  const sameOrigin = (origin: string, allowed: Set<string>, port: number) => {
    try {
      const url = new URL(origin);
      return (
        allowed.has(url.hostname.toLowerCase()) && Number(url.port || (url.protocol === 'https:' ? 443 : 80)) === port
      );
    } catch {
      return false;
    }
  };

  /** Why this request is refused, or null to serve it. */
  function refusal(request: IncomingMessage, path: string): Refusal | null {
    const { settings, hostnames: allowed } = current();
    const forbidden = (message: string): Refusal => ({ status: 403, message, type: 'forbidden' });
    const host = hostnameOf(request.headers.host ?? '');
    if (host === null || !allowed.has(host))
      return forbidden(
        `Host ${JSON.stringify((request.headers.host ?? '').slice(0, 100))} is not this server's (it answers to ${[...allowed].slice(0, 4).join(', ')}): refused, as a DNS-rebinding page would be`,
      );
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== settings.cors && !sameOrigin(origin, allowed, settings.port))
      return forbidden(
        `cross-origin request from ${JSON.stringify(origin.slice(0, 100))} refused: start serve with --cors ORIGIN to let that page use it`,
      );
    if (request.method === 'OPTIONS')
      return origin === undefined || settings.cors === null
        ? forbidden(
            'OPTIONS is a cross-origin preflight; this server allows no other origin unless started with --cors ORIGIN',
          )
        : null;
    if (request.method === 'POST') {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json')
        return {
          status: 415,
          message: `a POST body must be JSON, sent with content-type: application/json (got ${JSON.stringify((request.headers['content-type'] ?? 'none').slice(0, 60))})`,
          type: 'unsupported_media_type',
        };
    }
    if (settings.apiKey !== null && path.startsWith('/v1/')) {
      const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
      // Compared as digests, in constant time, so neither the key nor its length leaks through timing.
      if (match === null || !timingSafeEqual(digest(match[1] as string), digest(settings.apiKey)))
        return {
          status: 401,
          message: 'this server needs an API key: Authorization: Bearer KEY',
          type: 'invalid_api_key',
        };
    }
    return null;
  }

  /** CORS headers: only for the --cors origin, on its own requests. */
  function corsHeaders(request: IncomingMessage): Record<string, string> {
    const { cors } = current().settings;
    if (cors === null || request.headers.origin !== cors) return {};
    return {
      'access-control-allow-origin': cors,
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
      vary: 'Origin',
    };
  }

  return { refusal, corsHeaders };
}
