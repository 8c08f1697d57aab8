import { GpuDeviceManager } from '../../src/gpu/device';
import { KERNEL_METHODS } from './verifyFormat';
import { FULL_GRID, runVerifyBench, type BenchConfig, type BenchRow } from './verifyBench';

declare global {
  interface Window {
    speclabBench: Promise<{ adapter: string; rows: BenchRow[] } | { error: string }>;
    speclabBenchLog: string[];
  }
}

async function run(): Promise<{ adapter: string; rows: BenchRow[] }> {
  const gridParam = new URLSearchParams(location.search).get('grid');
  const grid = gridParam ? (JSON.parse(gridParam) as BenchConfig[]) : FULL_GRID;
  const methodsParam = new URLSearchParams(location.search).get('methods');
  const methods = methodsParam ? (methodsParam.split(',') as typeof KERNEL_METHODS) : KERNEL_METHODS;
  const devices = new GpuDeviceManager({ gpu: navigator.gpu });
  const { adapterName } = await devices.context();
  const rows = await runVerifyBench(devices, grid, (line) => window.speclabBenchLog.push(line), methods);
  await devices.dispose();
  return { adapter: adapterName, rows };
}

window.speclabBenchLog = [];
window.speclabBench = run().catch((error: unknown) => ({ error: String(error) }));
