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
  };
}

/** models.html?tree: the tree checks alone, per model and EP. */
export interface BrowserTreeReport {
  [name: string]: { wasm: TreeChecks; webgpu: TreeChecks | { refusal: string } };
}

declare global {
  interface Window {
    speclabModels: Promise<BrowserModelsReport | BrowserTreeReport | { error: string }>;
  }
}

const NAMES = ['speclab-draft', 'speclab-target-int8', 'speclab-target'];

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

async function treeChecks(name: string, provider: 'wasm' | 'webgpu'): Promise<TreeChecks> {
  const model = await load(name, provider);
  const { tree, kept, scale } = await treeScoringError(model);
  const cacheOnGpu = await cacheIsOnGpu(model);
  await model.session.release();
  return { tree, kept, scale, cacheOnGpu };
}

/** The tree checks on WebGPU, or the loader's refusal where the model's manifest rules WebGPU out. */
async function treeChecksOnGpu(name: string): Promise<TreeChecks | { refusal: string }> {
  try {
    return await treeChecks(name, 'webgpu');
  } catch (error) {
    if (!(error instanceof ProviderUnsupportedError)) throw error;
    return { refusal: error.message };
  }
}

async function run(): Promise<BrowserModelsReport> {
  const report: BrowserModelsReport = {};
  for (const name of NAMES) {
    const { model, webgpuRefusal } = await loadOnGpu(name);
    const prompts = model.manifest?.golden.prompts ?? [];
    const cacheOnGpu = await cacheIsOnGpu(model);
    report[name] = {
      webgpuRefusal,
      provider: model.session.provider,
      golden: await goldenError(model),
      incremental: await incrementalError(model, prompts[1]?.input_ids ?? []),
      ...(await batchedAndTrimmedError(model, prompts[2]?.input_ids ?? [])),
      cacheOnGpu,
    };
    await model.session.release();
  }
  return report;
}

async function runTree(): Promise<BrowserTreeReport> {
  const report: BrowserTreeReport = {};
  for (const name of NAMES) report[name] = { wasm: await treeChecks(name, 'wasm'), webgpu: await treeChecksOnGpu(name) };
  return report;
}

const checks = new URLSearchParams(location.search).has('tree') ? runTree() : run();
window.speclabModels = checks.catch((error: unknown) => ({ error: String(error) }));
