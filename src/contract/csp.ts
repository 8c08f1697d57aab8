/**
 * The app's Content-Security-Policy, in one place: the build puts it in a <meta> tag and `vite preview`
 * sends it as a header. A <meta> policy does not reach a Web Worker, and a static host may send no header,
 * so the engine's worker also applies `connect-src` itself (`connectAllowed`) before every network read.
 * 'wasm-unsafe-eval' lets onnxruntime-web and xgrammar compile WebAssembly; no JS eval is allowed.
 */
const CONNECT_SOURCES = ["'self'", 'https:'] as const;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  `connect-src ${CONNECT_SOURCES.join(' ')}`,
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

/** Whether `connect-src` lets a page (or worker) at `origin` read `url`: the same origin, or any https: URL. */
export function connectAllowed(url: URL, origin: string): boolean {
  return url.origin === origin || url.protocol === 'https:';
}

/** Why a URL is blocked, in words a presenter can act on. */
export function connectBlockedMessage(url: URL): string {
  return `${url.href} is blocked by the app's Content-Security-Policy (connect-src ${CONNECT_SOURCES.join(' ')}): serve the models over https:// or from this app's own origin`;
}

/**
 * Headers every response of the app should carry besides the CSP: no MIME sniffing, and no framing by other
 * sites (a same-origin frame, such as a test page, still works). `vite preview` sends them, and public/_headers
 * asks a static host (Netlify, Cloudflare Pages) to.
 */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'SAMEORIGIN',
} as const;

/**
 * The one page any site may frame: embed.html shows one view alone (src/ui/embed.ts), for a slide deck on
 * another origin (docs/presenting.md#embeds). `/embed` is the same page on a host that drops `.html`.
 */
export const EMBED_PATHS = ['/embed.html', '/embed'] as const;

/**
 * Who may frame the embed page: anyone, a deck opened from disk included (`*` alone leaves out `file:` pages).
 * Only a header can say it (a <meta> policy ignores `frame-ancestors`); it also makes browsers ignore an
 * X-Frame-Options that a static host's catch-all rule adds.
 */
export const EMBED_FRAME_POLICY = 'frame-ancestors * file:';

/**
 * The security headers a response for `path` carries: everywhere the CSP, nosniff and SAMEORIGIN; the embed
 * page instead says `frame-ancestors * file:` in its CSP and sends no X-Frame-Options.
 */
export function securityHeaders(path: string): Record<string, string> {
  if (!(EMBED_PATHS as readonly string[]).includes(path))
    return { ...SECURITY_HEADERS, 'Content-Security-Policy': CONTENT_SECURITY_POLICY };
  return {
    'X-Content-Type-Options': SECURITY_HEADERS['X-Content-Type-Options'],
    'Content-Security-Policy': `${CONTENT_SECURITY_POLICY}; ${EMBED_FRAME_POLICY}`,
  };
}
