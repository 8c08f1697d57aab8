import { GPU_VERIFIER_IDS, type VerifierId } from '../../src/core/verify';
import { GpuDeviceManager } from '../../src/gpu/device';
import { GpuVerifier } from '../../src/gpu/verifier';
import { compareWithCpu } from '../gpu/twinHarness';

export interface BrowserTwinReport {
  adapter: string;
  software: boolean;
  results: Partial<Record<VerifierId, { ties: number; unexplained: string[] }>>;
}

async function run(): Promise<BrowserTwinReport> {
  const problems = Number(new URLSearchParams(location.search).get('problems') ?? 100);
  const manager = new GpuDeviceManager({ gpu: navigator.gpu });
  const context = await manager.context();
  const verifier = new GpuVerifier(manager);
  const report: BrowserTwinReport = { adapter: context.adapterName, software: context.software, results: {} };
  for (const [index, method] of GPU_VERIFIER_IDS.entries()) {
    report.results[method] = await compareWithCpu(context, verifier, method, problems, 500 + index);
  }
  await manager.dispose();
  return report;
}

declare global {
  interface Window {
    speclabTwin: Promise<BrowserTwinReport | { error: string }>;
  }
}

window.speclabTwin = run().catch((error: unknown) => ({ error: String(error) }));
