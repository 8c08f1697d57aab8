/**
 * The GPU verifier against the CPU reference, step by step, on one machine in one run. Loaded by
 * tools/cli/benchVerify.ts in Node (through Vite, for the ?raw shader imports) and by bench.html in Chromium.
 * A CPU step is what the CPU path must do per step: logits → probabilities for every row, then verify. A
 * GPU step starts from logits already on the GPU (as onnxruntime-web leaves them) and ends with the
 * outcome on the CPU.
 */
import { createRng } from '../../src/core/rng';
import { sampleCategorical, logitsToProbs } from '../../src/core/sampling';
import { verify, type MethodId, type VerifyProblem } from '../../src/core/verify';
import type { GpuDeviceManager } from '../../src/gpu/device';
import { USAGE } from '../../src/gpu/kernel';
import { GpuVerifier, outcomeWords } from '../../src/gpu/verifier';
import { KERNEL_METHODS, formatRow, type BenchConfig, type BenchRow } from './verifyFormat';

export type { BenchConfig, BenchRow } from './verifyFormat';

export const FULL_GRID: BenchConfig[] = [512, 50_257, 151_936].flatMap((V) =>
  [1, 4, 8].flatMap((K) => [1, 4, 8].map((L) => ({ V, K, L }))),
);

function fastLogits(length: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const logits = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    logits[i] = (state / 4294967296 - 0.5) * 8;
  }
  return logits;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Times `run` once to warm up, then until `minRuns` runs or `budgetMs` have passed. */
async function time(run: () => Promise<unknown> | unknown, minRuns: number, budgetMs: number): Promise<number> {
  await run();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < minRuns || (times.length < 20 && performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
    if (performance.now() - start > budgetMs && times.length >= 1) break;
  }
  return median(times);
}

export async function runVerifyBench(
  devices: GpuDeviceManager,
  grid: readonly BenchConfig[],
  log: (line: string) => void = () => undefined,
  methods: readonly MethodId[] = KERNEL_METHODS,
): Promise<BenchRow[]> {
  const context = await devices.context();
  const verifier = new GpuVerifier(devices);
  const rows: BenchRow[] = [];
  for (const { V, K, L } of grid) {
    const targetLogits = fastLogits(K * (L + 1) * V, 1);
    const draftLogits = fastLogits(K * L * V, 2).map((x, i) => 0.5 * x + 0.5 * (targetLogits[i] as number));
    const sampling = { temperature: 1 };
    const toProbs = (logits: Float32Array, rowCount: number) => {
      const probs = new Float64Array(rowCount * V);
      for (let r = 0; r < rowCount; r++) probs.set(logitsToProbs(logits.subarray(r * V, (r + 1) * V), sampling), r * V);
      return probs;
    };
    // Drafts sampled from the draft rows, outside any timing.
    const draftProbs = toProbs(draftLogits, K * L);
    const rng = createRng(7);
    const drafts = Int32Array.from({ length: K * L }, (_, row) =>
      sampleCategorical(draftProbs.subarray(row * V, (row + 1) * V), rng),
    );
    const buffer = (data: Float32Array) => {
      const gpuBuffer = context.device.createBuffer({
        size: data.byteLength,
        usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST,
      });
      context.device.queue.writeBuffer(gpuBuffer, 0, data);
      return gpuBuffer;
    };
    const targetBuffer = buffer(targetLogits);
    const draftBuffer = buffer(draftLogits);
    for (const method of methods) {
      const step = {
        method,
        K,
        L,
        V,
        drafts,
        targetLogits: { buffer: targetBuffer, offset: 0 },
        draftLogits: { buffer: draftBuffer, offset: 0 },
        targetMasks: null,
        draftMasks: null,
        targetSampling: sampling,
        draftSampling: sampling,
        seed: 1,
        stream: 0,
        firstWord: 0,
      };
      const gpuMs = await time(() => verifier.verify(step), 3, 1500);
      const cpuMs = await time(
        () => {
          const problem: VerifyProblem = {
            K,
            L,
            V,
            drafts,
            draftProbs: toProbs(draftLogits, K * L),
            targetProbs: toProbs(targetLogits, K * (L + 1)),
          };
          return verify(method, problem, createRng(1));
        },
        3,
        1500,
      );
      const row: BenchRow = {
        V,
        K,
        L,
        method,
        gpuMs,
        cpuMs,
        gpuOverCpu: gpuMs / cpuMs,
        gpuBytesReadBack: outcomeWords(L) * 4,
        logitBytes: K * (2 * L + 1) * V * 4,
      };
      rows.push(row);
      log(formatRow(row));
    }
    targetBuffer.destroy();
    draftBuffer.destroy();
  }
  return rows;
}
