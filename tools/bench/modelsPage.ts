import { runtimeFor } from '../../src/models/browserRuntime';
import { BUNDLED_PAIR } from '../../src/contract/modelPairs';
import { httpReader } from '../../src/models/httpReader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: Promise<ModelsBenchReport[] | { error: string }>;
  }
}

const readers = { draft: httpReader(BUNDLED_PAIR.draftUrl, false), target: httpReader(BUNDLED_PAIR.targetUrl, false) };
window.speclabModelsBench = (async () => [await runModelsBench(await runtimeFor('webgpu'), readers, 'webgpu'), await runModelsBench(await runtimeFor('wasm'), readers, 'wasm')])().catch((error: unknown) => ({
  error: String(error),
}));
