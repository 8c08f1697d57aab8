/**
 * Vite plugin: tells the page where a phone in the room can open it, for the audience QR code
 * (src/ui/AudienceQr.tsx), as `<meta name="speclab-audience-origin">` tags: `SPECLAB_PUBLIC_URL` when set (the
 * address the app is served at; for the dev server and a build), then, under the dev server, each LAN address
 * it listens on (`npm start -- --host`).
 */
import type { HtmlTagDescriptor, Plugin, ViteDevServer } from 'vite';
import { AUDIENCE_ORIGIN_META, audienceBases } from '../src/contract/audience.ts';

export function audienceOrigin(publicUrl = process.env.SPECLAB_PUBLIC_URL): Plugin {
  // Checked when the config loads: a mistyped address stops `npm start` with its reason before anything serves.
  const configured = audienceBases(publicUrl ? [publicUrl] : [], 'SPECLAB_PUBLIC_URL');
  let server: ViteDevServer | undefined;
  return {
    name: 'speclab-audience-origin',
    configureServer(devServer) {
      server = devServer;
    },
    transformIndexHtml(): HtmlTagDescriptor[] {
      const network = audienceBases(server?.resolvedUrls?.network ?? [], 'the dev server’s network address');
      return [...new Set([...configured, ...network])].map((content) => ({
        tag: 'meta',
        attrs: { name: AUDIENCE_ORIGIN_META, content },
        injectTo: 'head',
      }));
    },
  };
}
