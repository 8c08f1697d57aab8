import { runtimeFor } from '../../src/models/browserRuntime';
import { httpReader } from '../../src/models/httpReader';
import { loadHead, loadModel, type HeadManifest } from '../../src/models/loader';
import { ProviderUnsupportedError } from '../../src/models/manifest';
import {
  batchedAndTrimmedError,
  goldenError,
  incrementalError,
  maxAbsDifference,
  treeScoringError,
} from '../support/modelChecks';

/** A token tree scored in one run against the batched path, and the kept path against a fresh prefill. */
export interface TreeChecks {
  tree: number;
  kept: number;
  scale: number;
  cacheOnGpu: boolean;
}

/** The draft head on the WebGPU EP beside the float32 target: largest absolute differences from its manifest's golden (torch) rows. */
export interface HeadChecks {
  logits: number;
  featuresOut: number;
  /** Negative control: each row's feature fed with the next row's token, logits against the golden rows. */
  shiftedLogits: number;
  /** The target's `features` output on WebGPU at the first golden row's second-to-last position, against that row's features_in. */
  targetFeatures: number;
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
    /** Only on the head's target (HEAD_TARGET), run on WebGPU. */
    head?: HeadChecks;
  };
}

declare global {
  interface Window {
    speclabModels: Promise<BrowserModelsReport | { error: string }>;
  }
}

const NAMES = ['speclab-draft', 'speclab-target-int8', 'speclab-target'];
/** The target public/models/speclab-head reads features from. */
const HEAD_TARGET = 'speclab-target';
/** Golden prompts checked on WebGPU: the first two of the manifest's five (the wasm suite checks all five). */
const WEBGPU_GOLDEN_PROMPTS = 2;

const load = async (name: string, provider: 'wasm' | 'webgpu') =>
  loadModel(await runtimeFor(provider), httpReader(`/models/${name}/`, false), provider, name);

async function cacheIsOnGpu(model: Awaited<ReturnType<typeof load>>): Promise<boolean> {
  const probe = await model.session.forward([1, 2, 3], 1, 3, model.session.emptyCache(1));
  const onGpu = probe.cache.tensors.every((tensor) => tensor.location === 'gpu-buffer');
  probe.cache.dispose();
  return onGpu;
}

/** The model on WebGPU, or on wasm with the loader's refusal where its manifest rules WebGPU out. */
async function loadOnGpu(
  name: string,
): Promise<{ model: Awaited<ReturnType<typeof load>>; webgpuRefusal: string | null }> {
  try {
    return { model: await load(name, 'webgpu'), webgpuRefusal: null };
  } catch (error) {
    if (!(error instanceof ProviderUnsupportedError)) throw error;
    return { model: await load(name, 'wasm'), webgpuRefusal: error.message };
  }
}

type Model = Awaited<ReturnType<typeof load>>;

interface HeadGoldenRow {
  input_ids: number[];
  features_in: number[];
  input_id: number;
  logits: number[];
  features_out: number[];
}

/** The head loaded on WebGPU beside its target (already on WebGPU), run on every golden row as one batch. */
async function headChecks(target: Model): Promise<HeadChecks> {
  const head = await loadHead(await runtimeFor('webgpu'), httpReader('/models/speclab-head/', false), 'webgpu', target);
  const rows = (head.manifest as HeadManifest & { golden: { rows: HeadGoldenRow[] } }).golden.rows;
  const first = rows[0];
  if (first === undefined) throw new Error('the head manifest has no golden rows');
  const features = Float32Array.from(rows.flatMap((row) => row.features_in));
  const ids = rows.map((row) => row.input_id);
  const golden = rows.flatMap((row) => row.logits);
  const out = await head.session.run(features, ids, rows.length);
  const shifted = await head.session.run(features, [...ids.slice(1), first.input_id], rows.length);
  await head.session.release();
  // One target prefill (the first row's 18 tokens): the feature the head reads is the target's own on this EP.
  const n = first.input_ids.length;
  const prefill = await target.session.forward(first.input_ids, 1, n, target.session.emptyCache(1), { features: true });
  prefill.cache.dispose();
  const width = head.session.width;
  return {
    logits: maxAbsDifference(out.logits, golden),
    featuresOut: maxAbsDifference(
      out.features,
      rows.flatMap((row) => row.features_out),
    ),
    shiftedLogits: maxAbsDifference(shifted.logits, golden),
    targetFeatures: maxAbsDifference(
      prefill.features?.subarray((n - 2) * width, (n - 1) * width) ?? [],
      first.features_in,
    ),
  };
}

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
    const head = name === HEAD_TARGET && onWebgpu ? { head: await headChecks(model) } : {};
    report[name] = { ...checks, tree: { wasm: await treeChecks(onWasm), webgpu: onGpu }, ...head };
    await model.session.release();
    if (onWasm !== model) await onWasm.session.release();
  }
  return report;
}

window.speclabModels = run().catch((error: unknown) => ({ error: String(error) }));
