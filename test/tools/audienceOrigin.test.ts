/** Where the audience QR code points a phone (src/contract/audience.ts, tools/audienceOriginPlugin.ts). */
import { describe, expect, it } from 'vitest';
import type { HtmlTagDescriptor, ViteDevServer } from 'vite';
import { audienceBases, isLoopback } from '../../src/contract/audience';
import { audienceOrigin } from '../../tools/audienceOriginPlugin';

/** The tags the plugin writes into index.html, under a dev server listening on `network`. */
function tags(publicUrl: string | undefined, network: string[] | null): HtmlTagDescriptor[] {
  const plugin = audienceOrigin(publicUrl);
  if (network) {
    const server = { resolvedUrls: { local: ['http://localhost:5173/'], network } } as unknown as ViteDevServer;
    (plugin.configureServer as (server: ViteDevServer) => void)(server);
  }
  return (plugin.transformIndexHtml as () => HtmlTagDescriptor[])();
}

describe('the audience address', () => {
  it('knows a loopback host from one a phone can reach', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.3.2.1', '[::1]', '::1'])
      expect(isLoopback(host), host).toBe(true);
    for (const host of ['192.168.1.20', 'talk.example.org', '10.0.0.7', '[fe80::1]'])
      expect(isLoopback(host), host).toBe(false);
  });

  it('keeps the origin and path of each address, ending in a slash, once', () => {
    expect(
      audienceBases(['http://192.168.1.20:5173', 'https://talk.example.org/speclab', 'http://192.168.1.20:5173/'], 'x'),
    ).toEqual(['http://192.168.1.20:5173/', 'https://talk.example.org/speclab/']);
  });

  it('refuses an address that is not a URL, not http(s), or this computer only, naming where it came from', () => {
    expect(() => audienceBases(['talk.example.org'], 'SPECLAB_PUBLIC_URL')).toThrow(
      /^SPECLAB_PUBLIC_URL "talk\.example\.org" is not a URL/,
    );
    expect(() => audienceBases(['ftp://host/'], 'SPECLAB_PUBLIC_URL')).toThrow(/only an http or https address/);
    expect(() => audienceBases(['http://localhost:5173/'], 'SPECLAB_PUBLIC_URL')).toThrow(/is this computer only/);
  });

  it('writes the configured public URL, then the dev server’s LAN addresses, as meta tags', () => {
    expect(tags(undefined, null)).toEqual([]);
    expect(tags(undefined, [])).toEqual([]);
    const written = tags('https://talk.example.org/speclab', ['http://192.168.1.20:5173/']);
    expect(written.map((tag) => [tag.tag, tag.attrs])).toEqual([
      ['meta', { name: 'speclab-audience-origin', content: 'https://talk.example.org/speclab/' }],
      ['meta', { name: 'speclab-audience-origin', content: 'http://192.168.1.20:5173/' }],
    ]);
    // A mistyped address stops the config from loading, with its reason.
    expect(() => audienceOrigin('talk.example.org')).toThrow(/SPECLAB_PUBLIC_URL "talk\.example\.org" is not a URL/);
  });
});
