import { runtimeFor } from '../../src/models/browserRuntime';
import { httpReader } from '../../src/models/httpReader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: Promise<ModelsBenchReport[] | { error: string }>;
  }
}

const readers = { draft: httpReader('/models/speclab-draft/', false), target: httpReader('/models/speclab-target/', false) };
window.speclabModelsBench = (async () => [await runModelsBench(await runtimeFor('webgpu'), readers, 'webgpu'), await runModelsBench(await runtimeFor('wasm'), readers, 'wasm')])().catch((error: unknown) => ({
  error: String(error),
}));
