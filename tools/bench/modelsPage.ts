import { runtimeFor } from '../../src/models/browserRuntime';
import { BUNDLED_PAIR, targetUrlFor } from '../../src/contract/modelPairs';
import type { ExecutionProvider } from '../../src/contract/protocol';
import { httpReader } from '../../src/models/httpReader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: Promise<ModelsBenchReport[] | { error: string }>;
  }
}

/** The bundled pair as the app loads it on `provider` (the float32 target on WebGPU, the int8 one on wasm). */
const readers = (provider: ExecutionProvider) => ({ draft: httpReader(BUNDLED_PAIR.draftUrl, false), target: httpReader(targetUrlFor(BUNDLED_PAIR, provider), false) });
window.speclabModelsBench = (async () => [await runModelsBench(await runtimeFor('webgpu'), readers('webgpu'), 'webgpu'), await runModelsBench(await runtimeFor('wasm'), readers('wasm'), 'wasm')])().catch((error: unknown) => ({
  error: String(error),
}));
