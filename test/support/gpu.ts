import { afterAll, beforeAll } from 'vitest';
import { GpuDeviceManager, type GpuContext } from '../../src/gpu/device';
import { nodeGpu } from '../../tools/nodeGpu';

export { nodeGpu };

export function nodeDeviceManager(): GpuDeviceManager {
  return new GpuDeviceManager({ gpu: nodeGpu() });
}

/** A device manager for the enclosing suite, opened before its tests and disposed after them. */
export function suiteDevices(): { manager: () => GpuDeviceManager; context: () => Promise<GpuContext> } {
  let manager: GpuDeviceManager | undefined;
  beforeAll(() => {
    manager = nodeDeviceManager();
  });
  afterAll(() => manager?.dispose());
  const current = () => {
    if (!manager) throw new Error('the suite has not started');
    return manager;
  };
  return { manager: current, context: () => current().context() };
}
