import { runtimeFor } from '../../src/models/browserRuntime';
import { BUNDLED_PAIR, targetUrlFor } from '../../src/contract/modelPairs';
import type { ExecutionProvider } from '../../src/contract/protocol';
import { httpReader } from '../../src/models/httpReader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: (repeats: number) => Promise<ModelsBenchReport[] | { error: string }>;
  }
}

/** The bundled pair as the app loads it on `provider` (the float32 target on WebGPU, the int8 one on wasm). */
const readers = (provider: ExecutionProvider) => ({ draft: httpReader(BUNDLED_PAIR.draftUrl, false), target: httpReader(targetUrlFor(BUNDLED_PAIR, provider), false) });
window.speclabModelsBench = (repeats) =>
  (async () => [
    await runModelsBench(await runtimeFor('webgpu'), readers('webgpu'), 'webgpu', repeats, 'bundled float32 target (the int8 one runs on wasm only)'),
    await runModelsBench(await runtimeFor('wasm'), readers('wasm'), 'wasm', repeats),
  ])().catch((error: unknown) => ({ error: String(error) }));
