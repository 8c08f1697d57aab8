/** Bench rows and their table format, free of GPU imports so that the Node runner can load it directly. */
import { METHOD_IDS, wgslMethodCode, type MethodId } from '../../src/core/verify';

/** The methods with a WGSL kernel: the only ones the GPU verifier can time. */
export const KERNEL_METHODS: readonly MethodId[] = METHOD_IDS.filter((method) => wgslMethodCode(method) !== null);
/** The methods left out, and why. */
export const SKIPPED_METHODS: readonly string[] = METHOD_IDS.filter((method) => wgslMethodCode(method) === null).map(
  (method) => `${method} (no WGSL kernel; it verifies on the CPU twin only)`,
);

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

const WIDTHS = [7, 2, 2, 11, 8, 9, 8, 11, 9];

function line(cells: string[]): string {
  return cells
    .map((cell, i) => (i === 0 || i === 3 ? cell.padEnd(WIDTHS[i] as number) : cell.padStart(WIDTHS[i] as number)))
    .join('  ');
}

export const TABLE_HEADER = line(['V', 'K', 'L', 'method', 'GPU ms', 'CPU ms', 'GPU/CPU', 'readback B', 'logits B']);

export function formatRow(row: BenchRow): string {
  return line([
    String(row.V),
    String(row.K),
    String(row.L),
    row.method,
    row.gpuMs.toFixed(2),
    row.cpuMs.toFixed(2),
    row.gpuOverCpu.toFixed(3),
    String(row.gpuBytesReadBack),
    String(row.logitBytes),
  ]);
}
