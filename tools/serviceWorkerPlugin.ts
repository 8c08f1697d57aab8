/**
 * Vite plugin: writes `sw.js`, the offline service worker (src/serviceWorker.ts transpiled alone), with the
 * build's precache list in front of it: every file of the bundle but source maps, and every file of
 * public/ but those of `RUNTIME_ONLY` (the float32 target, 21 MB, which the worker caches the first time it
 * is loaded instead), and the sha256 every model manifest lists for its files, which the worker checks a model
 * file against before it keeps it. The version is a hash of every listed file's content and of those sha256
 * (so the float32 target counts too), so any change to the app or the models makes a new `sw.js`, which the
 * browser installs beside the old one (docs/presenting.md#offline).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import type { Plugin } from 'vite';

/** public/ folders left out of the precache (cached at run time when first used). */
export const RUNTIME_ONLY = ['models/speclab-target/'];

export const SERVICE_WORKER_FILE = 'sw.js';

function filesUnder(root: string, folder = root): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(root, path) : [relative(root, path).split(sep).join('/')];
  });
}

/** The sha256 each model manifest under public/ lists, by file path from public/ (`models/<name>/<file>`). */
export function listedSha256(publicDir: string): Record<string, string> {
  const listed: Record<string, string> = {};
  for (const manifest of filesUnder(publicDir).filter((file) => /^models\/[^/]+\/manifest\.json$/.test(file))) {
    const folder = manifest.slice(0, -'manifest.json'.length);
    const { files } = JSON.parse(readFileSync(join(publicDir, manifest), 'utf8')) as {
      files: { path: string; sha256: string }[];
    };
    for (const file of files) listed[`${folder}${file.path}`] = file.sha256;
  }
  return listed;
}

/** The precache list: bundle files and public files, sorted, the manifests' sha256, and a version hash over them all. */
export function precacheList(
  bundle: Record<string, string | Uint8Array>,
  publicDir: string,
): { version: string; files: string[]; sha256: Record<string, string> } {
  const hash = createHash('sha256');
  const sha256 = listedSha256(publicDir);
  hash.update(JSON.stringify(sha256));
  const publicFiles = filesUnder(publicDir).filter((file) => !RUNTIME_ONLY.some((folder) => file.startsWith(folder)));
  const entries: [string, string | Uint8Array][] = [
    ...Object.entries(bundle).filter(([file]) => !file.endsWith('.map')),
    ...publicFiles.map((file): [string, Uint8Array] => [file, readFileSync(join(publicDir, file))]),
  ].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [file, content] of entries) hash.update(file).update(content);
  return { version: hash.digest('hex').slice(0, 16), files: entries.map(([file]) => file), sha256 };
}

export function serviceWorker(): Plugin {
  let publicDir = '';
  return {
    name: 'speclab-service-worker',
    apply: 'build',
    configResolved(config) {
      publicDir = config.publicDir;
    },
    // After every other plugin's files (index.html, the worker's chunks) are in the bundle.
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const contents = Object.fromEntries(
          Object.values(bundle).map((file) => [file.fileName, file.type === 'chunk' ? file.code : file.source]),
        );
        const list = precacheList(contents, publicDir);
        const source = readFileSync(new URL('../src/serviceWorker.ts', import.meta.url), 'utf8');
        const code = ts.transpileModule(source, {
          compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
        }).outputText;
        this.emitFile({
          type: 'asset',
          fileName: SERVICE_WORKER_FILE,
          source: `const SPECLAB_PRECACHE = ${JSON.stringify(list)};\n${code}`,
        });
      },
    },
  };
}
