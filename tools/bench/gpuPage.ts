/**
 * bench:gpu (Chromium): the bundled pair as a GPU machine gets it by default, the models on onnxruntime's
 * WebGPU EP (the float32 target) and the WGSL verifier reading their logits in place; per-forward times, a
 * readback's round trip, then the decode table.
 */
import { runtimeFor } from '../../src/models/browserRuntime';
import { setupEngine } from '../../src/engine/setup';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import { BUNDLED_PAIR, targetUrlFor } from '../../src/contract/modelPairs';
import { httpReader } from '../../src/models/httpReader';
import { loadPair } from '../../src/models/loader';
import { runDecodeBench, type BenchSelection } from './decodeBench';
import { COST_RATIO_WARM_UP, costRatio as measureCostRatio, timeForward } from './modelsBench';
import { GPU_POSITIONS, type GpuBenchReport } from './gpuBench';

declare global {
  interface Window {
    /**
     * `repeats`: timed forwards per per-forward figure; `forwardTable`: false skips the per-forward table and the
     * readback; `costRatio`: false leaves c unmeasured.
     */
    speclabGpuBench: (
      seeds: number,
      selection: Omit<BenchSelection, 'cpuClock'>,
      repeats: number,
      forwardTable: boolean,
      costRatio: boolean,
    ) => Promise<GpuBenchReport | { error: string }>;
    speclabGpuLog: string[];
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The adapter as Chromium describes it, and whether it is a software one (SwiftShader, or a fallback adapter). */
async function describeAdapter(): Promise<{ description: string; software: boolean } | null> {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) return null;
  const { vendor, architecture, device, description, isFallbackAdapter } = adapter.info;
  return {
    description: [vendor, architecture, device, description].filter(Boolean).join(' / ') || 'unnamed adapter',
    software: isFallbackAdapter || architecture === 'swiftshader',
  };
}

/** One step's readback alone: copy 256 bytes into a mappable buffer, submit, map, read (median of `repeats`). */
async function readbackMs(device: GPUDevice, repeats: number): Promise<number> {
  const source = device.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const times: number[] = [];
  for (let i = 0; i < repeats + 2; i++) {
    const target = device.createBuffer({ size: 256, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const started = performance.now();
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(source, 0, target, 0, 256);
    device.queue.submit([encoder.finish()]);
    await target.mapAsync(GPUMapMode.READ);
    target.getMappedRange().slice(0);
    target.unmap();
    if (i >= 2) times.push(performance.now() - started);
    target.destroy();
  }
  source.destroy();
  return median(times);
}

window.speclabGpuLog = [];
window.speclabGpuBench = async (seeds, selection, repeats, forwardTable, measureC) => {
  try {
    const adapter = await describeAdapter();
    if (!adapter) throw new Error('no WebGPU adapter was granted');
    const setup = await setupEngine({
      provider: 'webgpu',
      verifier: 'gpu',
      gpu: navigator.gpu,
      loadPair: async (chosen) =>
        loadPair(
          await runtimeFor(chosen),
          {
            draft: httpReader(BUNDLED_PAIR.draftUrl, false),
            target: httpReader(targetUrlFor(BUNDLED_PAIR, chosen), false),
          },
          chosen,
        ),
      validate: interpretedValidator,
    });
    try {
      if (setup.provider !== 'webgpu') throw new Error(`the models could not run on WebGPU: ${setup.fallbackReason}`);
      if (setup.verifier !== 'gpu' || !setup.verifierDevices)
        throw new Error(`steps could not be verified on WebGPU: ${setup.verifierReason}`);
      const { pair } = setup.engine;
      let forwards: GpuBenchReport['forwards'] = null;
      let readback: number | null = null;
      if (forwardTable) {
        const draftMs = await timeForward(pair.draft.session, 1, 1, repeats);
        const target = [];
        for (const positions of GPU_POSITIONS)
          target.push({ positions, ms: await timeForward(pair.target.session, 1, positions, repeats) });
        forwards = { draftMs, target };
        readback = await readbackMs((await setup.verifierDevices.context()).device, repeats * 2);
      }
      const costRatioSpread = measureC
        ? await measureCostRatio(
            pair.draft.session,
            pair.target.session,
            Math.max(5, repeats),
            Math.min(COST_RATIO_WARM_UP, 2 * repeats),
          )
        : null;
      const costRatio = costRatioSpread?.median ?? null;
      const rows = await runDecodeBench(
        setup.engine,
        seeds,
        costRatio,
        (line) => window.speclabGpuLog.push(line),
        selection,
      );
      return {
        adapter: adapter.description,
        software: adapter.software,
        targetName: pair.target.name,
        logitsInPlace: setup.logitsInPlace,
        forwards,
        readbackMs: readback,
        costRatio,
        costRatioSpread,
        scoring: setup.engine.scoring,
        rows,
      };
    } finally {
      await setup.dispose();
    }
  } catch (error) {
    return { error: String(error) };
  }
};
