/** The engine on the bundled pair in Node (wasm EP), for the CLI tools: the shared setup with Node's choices. */
import type { ModelPairHandle } from '../src/models/loader';
import { setupEngine, type EngineSetup } from '../src/engine/setup';
import { interpretedValidator } from '../src/grammar/interpretedValidator';
import { loadBundledPair } from './bundled';
import { nodeGpu } from './nodeGpu';
import type { TargetThreadClient } from '../src/engine/targetThread';

/**
 * Steps verified on the CPU twin, or on Dawn's WebGPU; `pair` when the caller has loaded it already;
 * `treeScoring: false` forces the batched scoring path; `targetThread`: the target on a thread of its own
 * (tools/targetThread.ts), for drafting ahead.
 */
export function setupNodeEngine(
  verifier: 'cpu' | 'gpu' = 'cpu',
  pair?: ModelPairHandle,
  treeScoring?: boolean,
  targetThread?: TargetThreadClient,
): Promise<EngineSetup> {
  return setupEngine({
    provider: 'wasm',
    verifier,
    gpu: verifier === 'gpu' ? nodeGpu() : null,
    loadPair: pair ? () => Promise.resolve(pair) : loadBundledPair,
    validate: interpretedValidator,
    ...(treeScoring === undefined ? {} : { treeScoring }),
    ...(targetThread ? { targetThread } : {}),
  });
}
