import { create } from 'webgpu';
import { GpuDeviceManager } from '../../src/gpu/device';

/** Dawn's GPU for Node; the test config points Vulkan at Chromium's SwiftShader (VK_ICD_FILENAMES). */
export function nodeGpu(): GPU {
  if (!process.env.VK_ICD_FILENAMES) throw new Error('VK_ICD_FILENAMES is not set: the test config must point it at SwiftShader');
  return create([]);
}

export function nodeDeviceManager(): GpuDeviceManager {
  return new GpuDeviceManager({ gpu: nodeGpu() });
}
