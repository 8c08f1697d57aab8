import { availableParallelism } from 'node:os';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { CONTENT_SECURITY_POLICY, EMBED_PATHS, securityHeaders } from './src/contract/csp.ts';
import { LongestFirstSequencer } from './test/support/sequencer.ts';
import { serviceWorker } from './tools/serviceWorkerPlugin.ts';
import { audienceOrigin } from './tools/audienceOriginPlugin.ts';

// onnxruntime-web needs SharedArrayBuffer for its threaded wasm, which needs cross-origin isolation.
// public/_headers repeats these and the preview's other headers for a static host (test/contract/headers.test.ts).
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The built app carries a CSP (src/contract/csp.ts). Dev mode is left without it because the React refresh
// preamble is inline. A host must send it as a header too: a <meta> policy does not cover the worker.

function contentSecurityPolicy(): Plugin {
  return {
    name: 'speclab-csp',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
        injectTo: 'head-prepend',
      },
    ],
  };
}

/**
 * Two fixes to what `vite preview` sends. It marks every file `Cache-Control: no-cache`, so a reload asks
 * again for each; files under assets/ have a content hash in their name and never change under it, so they
 * may be kept for good (the models' names carry no hash: they keep revalidating). And it sends .onnx files
 * with no Content-Type, which its compression then gzips on the fly: 21 MB of float weights, for 7%, at the
 * cost of seconds of the server's CPU; as application/octet-stream they go as they are. A static host
 * should send the same headers. And embed.html (`EMBED_PATHS`) may be framed by any site: it gets the security
 * headers `securityHeaders` gives it (no X-Frame-Options, `frame-ancestors * file:`) in place of the others.
 */
function previewHeaders(): Plugin {
  return {
    name: 'speclab-preview-headers',
    configurePreviewServer(server) {
      server.middlewares.use((request, response, next) => {
        const path = request.url?.split('?')[0] ?? '';
        const immutable = path.startsWith('/assets/');
        const binary = path.endsWith('.onnx');
        const embed = (EMBED_PATHS as readonly string[]).includes(path);
        if (immutable || binary || embed) {
          const framing = new Map(
            Object.entries(securityHeaders(path)).map(([name, value]) => [name.toLowerCase(), value]),
          );
          const setHeader = response.setHeader.bind(response);
          // The file server sets its headers after this middleware runs; these win for the files above.
          response.setHeader = (name, value) => {
            const header = name.toLowerCase();
            if (immutable && header === 'cache-control') return setHeader(name, 'public, max-age=31536000, immutable');
            if (binary && header === 'content-type') return setHeader(name, 'application/octet-stream');
            // The embed page's security headers replace the others; one it has none of (X-Frame-Options) is left out.
            if (embed && (header === 'x-frame-options' || header === 'content-security-policy')) {
              const value = framing.get(header);
              return value === undefined ? response : setHeader(name, value);
            }
            return setHeader(name, value);
          };
        }
        next();
      });
    },
  };
}

export default defineConfig({
  plugins: [react(), contentSecurityPolicy(), previewHeaders(), serviceWorker(), audienceOrigin()],
  server: { headers: crossOriginIsolation },
  // `npm start` on a fresh clone: every dependency pre-bundled before the first page is served. Vite's scan starts
  // at the HTML pages and does not follow `new Worker(new URL(…))`, so the engine's dependencies (onnxruntime-web,
  // xgrammar) were found only when the worker asked for them; Vite then re-bundled and reloaded the page, blank
  // again, mid-start (docs/performance.md#npm-start-on-a-fresh-clone).
  optimizeDeps: {
    entries: ['index.html', 'embed.html', 'src/engine/worker.ts'],
    include: ['onnxruntime-web', 'onnxruntime-web/wasm', '@mlc-ai/web-xgrammar'],
  },
  preview: { headers: { ...crossOriginIsolation, ...securityHeaders('/') } },
  // Two pages, one app: embed.html boots the same entry in embed mode (src/ui/embed.ts).
  build: { target: 'es2022', rolldownOptions: { input: { main: 'index.html', embed: 'embed.html' } } },
  // ES-module workers can split: the worker loads only the onnxruntime build its provider needs.
  worker: { format: 'es' },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Two files at a time even on two cores (vitest's default is one fewer than the cores): much of a file's
    // time is spent waiting on Chromium, SwiftShader or a server, which the other file can use.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirstSequencer },
    // One production build for every browser suite of the run (test/support/browser.ts).
    globalSetup: ['test/support/buildFolder.ts'],
    // Hangs are what these catch: with two files sharing the cores, a heavy test may take twice its time alone.
    testTimeout: 300_000,
    // web-xgrammar is a UMD bundle that calls require(); inlined, Vite transforms it as it does for the app.
    server: { deps: { inline: ['@mlc-ai/web-xgrammar'] } },
    // Dawn (the `webgpu` package) finds no adapter on a GPU-less machine unless Vulkan uses SwiftShader.
    env: { VK_ICD_FILENAMES: '/usr/lib/chromium/vk_swiftshader_icd.json' },
    hookTimeout: 300_000,
  },
});
