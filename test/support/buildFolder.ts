/**
 * vitest globalSetup: one folder for the whole run's production build, which the first browser suite that
 * needs it fills (`buildAndPreview` in ./browser.ts) and the others reuse; removed when the run ends.
 * Creating it costs nothing, so a run without browser suites builds nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    buildFolder: string;
  }
}

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'speclab-build-'));
  project.provide('buildFolder', folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
