import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { CONTENT_SECURITY_POLICY } from './src/contract/csp.ts';

// onnxruntime-web needs SharedArrayBuffer for its threaded wasm, which needs cross-origin isolation.
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
 * `vite preview` sends `Cache-Control: no-cache` for every file, so a reload asks again for each. Files under
 * assets/ have a content hash in their name and never change under it: they may be kept for good. (A static
 * host should send the same for assets/; the models' names carry no hash, so they keep revalidating.)
 */
function immutableAssets(): Plugin {
  return {
    name: 'speclab-immutable-assets',
    configurePreviewServer(server) {
      server.middlewares.use((request, response, next) => {
        if (request.url?.startsWith('/assets/')) {
          const setHeader = response.setHeader.bind(response);
          // sirv sets its own Cache-Control after this middleware runs; this one wins for hashed assets.
          response.setHeader = (name, value) => setHeader(name, name.toLowerCase() === 'cache-control' ? 'public, max-age=31536000, immutable' : value);
        }
        next();
      });
    },
  };
}

export default defineConfig({
  plugins: [react(), contentSecurityPolicy(), immutableAssets()],
  server: { headers: crossOriginIsolation },
  preview: { headers: { ...crossOriginIsolation, 'Content-Security-Policy': CONTENT_SECURITY_POLICY } },
  build: { target: 'es2022' },
  // ES-module workers can split: the worker loads only the onnxruntime build its provider needs.
  worker: { format: 'es' },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 120_000,
    // web-xgrammar is a UMD bundle that calls require(); inlined, Vite transforms it as it does for the app.
    server: { deps: { inline: ['@mlc-ai/web-xgrammar'] } },
    // Dawn (the `webgpu` package) finds no adapter on a GPU-less machine unless Vulkan uses SwiftShader.
    env: { VK_ICD_FILENAMES: '/usr/lib/chromium/vk_swiftshader_icd.json' },
    hookTimeout: 120_000,
  },
});
