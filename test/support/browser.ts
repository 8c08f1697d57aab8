import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { build, createServer, preview, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';

/** The three projector sizes the browser tests look at a view in, smallest first. */
export const PROJECTORS = [
  { width: 1024, height: 768 },
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
] as const;

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags for headless Chromium on a machine with no GPU and no outside network; WebGPU runs on SwiftShader. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `webgpu: false` launches a browser without WebGPU, as many a projector laptop is. */
export async function launchChromium(options: { webgpu?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium libvulkan1)`);
  }
  const args =
    options.webgpu === false ? CHROMIUM_ARGS.filter((arg) => arg !== '--enable-unsafe-webgpu') : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: CHROMIUM_PATH, args });
}

export interface BuiltApp {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the app's production build with `vite preview`, exactly as `npm run preview` would. The build is the
 * run's one shared build (`sharedBuild`). `previewPlugins` may add test endpoints to the preview server (a model
 * server that never answers).
 */
export async function buildAndPreview(previewPlugins: Plugin[] = []): Promise<BuiltApp> {
  const outDir = await sharedBuild();
  const server: PreviewServer = await preview({
    logLevel: 'warn',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1' },
    plugins: previewPlugins,
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a local URL');
  return { url, close: () => server.close() };
}

const BUILD_POLL_MS = 250;

/** Whether this suite is the first to want the build: creating a folder is atomic. */
function claimBuild(marker: string): boolean {
  try {
    mkdirSync(marker);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * `vite build` once per run, into the folder test/support/buildFolder.ts made for it: the first suite to get
 * here builds, and a suite in another worker that finds the build under way waits for it to finish. Returns
 * the build's folder (the smoke test serves it with `bench:load --dist`).
 */
export async function sharedBuild(): Promise<string> {
  const folder = inject('buildFolder');
  const outDir = join(folder, 'dist');
  const built = join(folder, 'built');
  const failed = join(folder, 'failed');
  if (!claimBuild(join(folder, 'building'))) {
    while (!existsSync(built)) {
      if (existsSync(failed))
        throw new Error(`the run's build failed in another suite: ${readFileSync(failed, 'utf8')}`);
      await new Promise((resolve) => setTimeout(resolve, BUILD_POLL_MS));
    }
    return outDir;
  }
  try {
    await build({ logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  } catch (error) {
    writeFileSync(failed, String(error));
    throw error;
  }
  writeFileSync(built, '');
  return outDir;
}

/**
 * For the enclosing suite: a Vite dev server over the project (so pages load modules as the app does) and
 * headless Chromium, started before its tests and closed after them. `open` loads a page by path.
 */
export function suiteDevPages(): { open: (path: string) => Promise<Page> } {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    // A dependency cache per vitest worker: two suites pre-bundling into one folder at once can race on a clean clone.
    const cacheDir = join('node_modules', '.vite', `suite-worker-${process.env.VITEST_POOL_ID ?? process.pid}`);
    // The heavy dependencies pre-bundled at start: one found only when a page imports it makes Vite re-bundle and
    // reload that page mid-test ("execution context was destroyed"), depending on which suite ran first.
    server = await createServer({
      logLevel: 'warn',
      cacheDir,
      optimizeDeps: { include: ['onnxruntime-web', '@mlc-ai/web-xgrammar'] },
      server: { port: 0, host: '127.0.0.1' },
    });
    await server.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    async open(path) {
      if (!server || !browser) throw new Error('the suite has not started');
      const page = await browser.newPage();
      await page.goto(`${server.resolvedUrls?.local[0]}${path}`);
      return page;
    },
  };
}

/** Console errors and uncaught page errors, as they happen, for a test that asserts there were none. */
export function recordProblems(page: Page, problems: string[] = []): string[] {
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  return problems;
}

/**
 * For the enclosing suite: the built app (`buildAndPreview`) open in headless Chromium at `viewport`, with
 * every console error and page error collected in `problems`. `page()` is the open page.
 */
export function suiteBuiltApp(
  viewport: { width: number; height: number },
  setupTimeoutMs = 400_000,
): { page: () => Page; problems: string[] } {
  let app: BuiltApp | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const problems: string[] = [];
  beforeAll(async () => {
    app = await buildAndPreview();
    browser = await launchChromium();
    page = await browser.newPage({ viewport });
    recordProblems(page, problems);
    await page.goto(app.url);
  }, setupTimeoutMs);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  return {
    page() {
      if (!page) throw new Error('the suite has not started');
      return page;
    },
    problems,
  };
}
