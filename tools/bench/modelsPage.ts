import { runtimeFor } from '../../src/models/browserRuntime';
import { BUNDLED_PAIR, targetUrlFor } from '../../src/contract/modelPairs';
import type { ExecutionProvider } from '../../src/contract/protocol';
import { httpReader } from '../../src/models/httpReader';
import { loadPair } from '../../src/models/loader';
import { ProviderUnsupportedError } from '../../src/models/manifest';
import type { PagePair } from '../cli/pairServer';
import { runModelsBench, type ModelsBenchReport } from './modelsBench';

/** The reports, and a line for each provider whose run the pair's manifest rules out. */
export interface ModelsPageResult {
  reports: ModelsBenchReport[];
  skipped: string[];
}

declare global {
  interface Window {
    speclabModelsBench: (repeats: number, pair: PagePair | null) => Promise<ModelsPageResult | { error: string }>;
  }
}

/**
 * The pair as the app loads it on `provider` (the bundled one: the float32 target on WebGPU, the int8 one on wasm); the
 * runtime is imported before the load is timed.
 */
async function loader(provider: ExecutionProvider, pair: PagePair | null) {
  const runtime = await runtimeFor(provider);
  const draftUrl = pair?.draftUrl ?? BUNDLED_PAIR.draftUrl;
  const targetUrl = pair?.targetUrl ?? targetUrlFor(BUNDLED_PAIR, provider);
  return () =>
    loadPair(runtime, { draft: httpReader(draftUrl, false), target: httpReader(targetUrl, false) }, provider);
}

window.speclabModelsBench = (repeats, pair) =>
  (async () => {
    const result: ModelsPageResult = { reports: [], skipped: [] };
    try {
      result.reports.push(
        await runModelsBench(
          await loader('webgpu', pair),
          'webgpu',
          repeats,
          pair?.label ?? 'bundled float32 target (the int8 one runs on wasm only)',
        ),
      );
    } catch (error) {
      // A pair of the engineer's may be int8, as the bundled target is: its wasm figures still count.
      if (!(pair && error instanceof ProviderUnsupportedError)) throw error;
      result.skipped.push(`webgpu skipped: ${error.message}`);
    }
    result.reports.push(await runModelsBench(await loader('wasm', pair), 'wasm', repeats, pair?.label));
    return result;
  })().catch((error: unknown) => ({ error: String(error) }));
