/**
 * Where a phone in the room can open the app, for the audience QR code (src/ui/AudienceQr.tsx): the page learns
 * it from `<meta name="speclab-audience-origin">` tags that tools/audienceOriginPlugin.ts writes (a configured
 * `SPECLAB_PUBLIC_URL`, the dev server's LAN addresses under `--host`).
 */
export const AUDIENCE_ORIGIN_META = 'speclab-audience-origin';

/** Whether `hostname` names this computer only: no other device can open it. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The base (origin and path, ending in "/") of each of `addresses` that parses as an http(s) URL on a host other
 * devices can reach, in order, without repeats; `what` names the source of an address that does not.
 */
export function audienceBases(addresses: readonly string[], what: string): string[] {
  const bases: string[] = [];
  for (const address of addresses) {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new Error(`${what} ${JSON.stringify(address)} is not a URL (expected e.g. http://192.168.1.20:5173/)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${what} ${JSON.stringify(address)}: only an http or https address opens on a phone`);
    if (isLoopback(url.hostname)) throw new Error(`${what} ${JSON.stringify(address)} is this computer only`);
    const base = `${url.origin}${url.pathname.replace(/\/?$/, '/')}`;
    if (!bases.includes(base)) bases.push(base);
  }
  return bases;
}
