/** Bench rows and their table format, free of GPU imports so that the Node runner can load it directly. */
import type { MethodId } from '../../src/core/verify';

export interface BenchConfig {
  V: number;
  K: number;
  L: number;
}

export interface BenchRow extends BenchConfig {
  method: MethodId;
  gpuMs: number;
  cpuMs: number;
  /** gpuMs / cpuMs: below 1 the GPU step is faster. */
  gpuOverCpu: number;
  gpuBytesReadBack: number;
  /** What a CPU verifier would have to read back instead: every logits row. */
  logitBytes: number;
}

export const TABLE_HEADER = 'V       K  L  method       GPU ms    CPU ms  GPU/CPU  readback B  logits B';

export function formatRow(row: BenchRow): string {
  return [
    String(row.V).padEnd(7),
    String(row.K).padStart(2),
    String(row.L).padStart(2),
    row.method.padEnd(11),
    row.gpuMs.toFixed(2).padStart(8),
    row.cpuMs.toFixed(2).padStart(9),
    row.gpuOverCpu.toFixed(3).padStart(8),
    String(row.gpuBytesReadBack).padStart(11),
    String(row.logitBytes).padStart(9),
  ].join('  ');
}
