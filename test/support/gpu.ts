import { afterAll, beforeAll } from 'vitest';
import { create } from 'webgpu';
import { GpuDeviceManager, type GpuContext } from '../../src/gpu/device';

let instance: GPU | undefined;

/**
 * Dawn's GPU for Node; the test config points Vulkan at Chromium's SwiftShader (VK_ICD_FILENAMES). One
 * instance per process, held for its whole life: a Dawn instance collected while its devices live crashes
 * the process.
 */
export function nodeGpu(): GPU {
  if (!process.env.VK_ICD_FILENAMES) throw new Error('VK_ICD_FILENAMES is not set: the test config must point it at SwiftShader');
  instance ??= create([]);
  return instance;
}

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
