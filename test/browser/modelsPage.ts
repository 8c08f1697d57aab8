import { runtimeFor } from '../../src/models/browserRuntime';
import { httpReader } from '../../src/models/httpReader';
import { loadModel } from '../../src/models/loader';
import { ProviderUnsupportedError } from '../../src/models/manifest';
import { batchedAndTrimmedError, goldenError, incrementalError, treeScoringError } from '../support/modelChecks';

/** A token tree scored in one run against the batched path, and the kept path against a fresh prefill. */
export interface TreeChecks {
  tree: number;
  kept: number;
  scale: number;
  cacheOnGpu: boolean;
}

/** Per model: the checks on the EP it runs on (WebGPU unless its manifest rules it out), then the tree checks on each EP. */
export interface BrowserModelsReport {
  [name: string]: {
    /** The loader's refusal of WebGPU, where the manifest rules it out; the checks then ran on wasm. */
    webgpuRefusal: string | null;
    provider: string;
    golden: number;
    incremental: number;
    batched: number;
    trimmed: number;
    cacheOnGpu: boolean;
    tree: { wasm: TreeChecks; webgpu: TreeChecks | { refusal: string } };
  };
}

declare global {
  interface Window {
    speclabModels: Promise<BrowserModelsReport | { error: string }>;
  }
}

const NAMES = ['speclab-draft', 'speclab-target-int8', 'speclab-target'];
/** Golden prompts checked on WebGPU: the first two of the manifest's five (the wasm suite checks all five). */
const WEBGPU_GOLDEN_PROMPTS = 2;

const load = async (name: string, provider: 'wasm' | 'webgpu') => loadModel(await runtimeFor(provider), httpReader(`/models/${name}/`, false), provider, name);

async function cacheIsOnGpu(model: Awaited<ReturnType<typeof load>>): Promise<boolean> {
  const probe = await model.session.forward([1, 2, 3], 1, 3, model.session.emptyCache(1));
  const onGpu = probe.cache.tensors.every((tensor) => tensor.location === 'gpu-buffer');
  probe.cache.dispose();
  return onGpu;
}

/** The model on WebGPU, or on wasm with the loader's refusal where its manifest rules WebGPU out. */
async function loadOnGpu(name: string): Promise<{ model: Awaited<ReturnType<typeof load>>; webgpuRefusal: string | null }> {
  try {
    return { model: await load(name, 'webgpu'), webgpuRefusal: null };
  } catch (error) {
    if (!(error instanceof ProviderUnsupportedError)) throw error;
    return { model: await load(name, 'wasm'), webgpuRefusal: error.message };
  }
}

type Model = Awaited<ReturnType<typeof load>>;

async function treeChecks(model: Model): Promise<TreeChecks> {
  const { tree, kept, scale } = await treeScoringError(model);
  return { tree, kept, scale, cacheOnGpu: await cacheIsOnGpu(model) };
}

/**
 * One page for every check: a second page would lose the WebGPU EP's compiled kernels, which SwiftShader
 * takes most of a minute to build again. Each model's WebGPU session serves its logit checks and its tree
 * checks; a fresh wasm session its wasm tree checks.
 */
async function run(): Promise<BrowserModelsReport> {
  const report: BrowserModelsReport = {};
  for (const name of NAMES) {
    const { model, webgpuRefusal } = await loadOnGpu(name);
    const prompts = model.manifest?.golden.prompts ?? [];
    const cacheOnGpu = await cacheIsOnGpu(model);
    // On WebGPU (SwiftShader: a float32 target forward of a few dozen tokens takes a second or more) the checks
    // run on shorter inputs than the wasm suite's (test/models/session.test.ts), which covers every golden prompt
    // and the longer sequences: each kind of check still runs here, on the EP's own kernels and GPU-resident cache.
    const onWebgpu = webgpuRefusal === null;
    const checks = {
      webgpuRefusal,
      provider: model.session.provider,
      golden: await goldenError(model, onWebgpu ? WEBGPU_GOLDEN_PROMPTS : Infinity),
      // On WebGPU: a 5-token prefix, then 4 tokens one at a time through the cache; the batched check after the 18-token prompt.
      incremental: await incrementalError(model, (prompts[1]?.input_ids ?? []).slice(0, onWebgpu ? 9 : undefined)),
      ...(await batchedAndTrimmedError(model, (onWebgpu ? prompts[0] : prompts[2])?.input_ids ?? [])),
      cacheOnGpu,
    };
    const onGpu = webgpuRefusal === null ? await treeChecks(model) : { refusal: webgpuRefusal };
    const onWasm = webgpuRefusal === null ? await load(name, 'wasm') : model;
    report[name] = { ...checks, tree: { wasm: await treeChecks(onWasm), webgpu: onGpu } };
    await model.session.release();
    if (onWasm !== model) await onWasm.session.release();
  }
  return report;
}

window.speclabModels = run().catch((error: unknown) => ({ error: String(error) }));
