import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// onnxruntime-web needs SharedArrayBuffer for its threaded wasm, which needs cross-origin isolation.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The built app carries a CSP. Dev mode is left without it because the React refresh preamble is inline.
// 'wasm-unsafe-eval' lets onnxruntime-web and xgrammar compile WebAssembly; no JS eval is allowed.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' https:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

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

export default defineConfig({
  plugins: [react(), contentSecurityPolicy()],
  server: { headers: crossOriginIsolation },
  preview: { headers: { ...crossOriginIsolation, 'Content-Security-Policy': CONTENT_SECURITY_POLICY } },
  build: { target: 'es2022' },
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
