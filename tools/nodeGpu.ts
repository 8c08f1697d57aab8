/**
 * Dawn's GPU for Node (the `webgpu` package). On a machine without a GPU, Vulkan must use Chromium's
 * SwiftShader; the default below is where Debian puts it. One instance per process, held for its whole
 * life: a Dawn instance collected while its devices live crashes the process.
 */
import { create } from 'webgpu';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
let instance: GPU | undefined;

export function nodeGpu(): GPU {
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  instance ??= create([]);
  return instance;
}
