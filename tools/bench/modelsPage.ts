import { runtimeFor } from '../../src/models/browserRuntime';
import { BUNDLED_PAIR, targetUrlFor } from '../../src/contract/modelPairs';
import type { ExecutionProvider } from '../../src/contract/protocol';
import { httpReader } from '../../src/models/httpReader';
import { loadPair } from '../../src/models/loader';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

declare global {
  interface Window {
    speclabModelsBench: (repeats: number) => Promise<ModelsBenchReport[] | { error: string }>;
  }
}

/** The bundled pair as the app loads it on `provider` (the float32 target on WebGPU, the int8 one on wasm); the runtime is imported before the load is timed. */
async function bundled(provider: ExecutionProvider) {
  const runtime = await runtimeFor(provider);
  return () => loadPair(runtime, { draft: httpReader(BUNDLED_PAIR.draftUrl, false), target: httpReader(targetUrlFor(BUNDLED_PAIR, provider), false) }, provider);
}
window.speclabModelsBench = (repeats) =>
  (async () => [
    await runModelsBench(await bundled('webgpu'), 'webgpu', repeats, 'bundled float32 target (the int8 one runs on wasm only)'),
    await runModelsBench(await bundled('wasm'), 'wasm', repeats),
  ])().catch((error: unknown) => ({ error: String(error) }));
