import { ort } from '../../src/models/browserRuntime';
import { httpReader } from '../../src/models/httpReader';
import { loadModel } from '../../src/models/loader';
import { batchedAndTrimmedError, goldenError, incrementalError } from '../support/modelChecks';

export interface BrowserModelsReport {
  [name: string]: { provider: string; golden: number; incremental: number; batched: number; trimmed: number; cacheOnGpu: boolean };
}

declare global {
  interface Window {
    speclabModels: Promise<BrowserModelsReport | { error: string }>;
  }
}

async function run(): Promise<BrowserModelsReport> {
  const report: BrowserModelsReport = {};
  for (const name of ['speclab-draft', 'speclab-target']) {
    const model = await loadModel(ort, httpReader(`/models/${name}/`, false), 'webgpu', name);
    const prompts = model.manifest?.golden.prompts ?? [];
    const probe = await model.session.forward([1, 2, 3], 1, 3, model.session.emptyCache(1));
    const cacheOnGpu = probe.cache.tensors.every((tensor) => tensor.location === 'gpu-buffer');
    probe.cache.dispose();
    report[name] = {
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

window.speclabModels = run().catch((error: unknown) => ({ error: String(error) }));
