/**
 * Dawn's GPU for Node (the `webgpu` package). On a machine without a GPU, Vulkan must use Chromium's
 * SwiftShader; the default below is where Debian puts it. One instance per process, held for its whole
 * life: a Dawn instance collected while its devices live crashes the process.
 */
import { create, globals } from 'webgpu';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
let instance: GPU | undefined;

export function nodeGpu(): GPU {
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  if (!instance) {
    throttleDawnPolling();
    instance = create([]);
  }
  return instance;
}

/** A wait shorter than this is polled back to back, as Dawn does; a longer one is polled every POLL_MS. */
const SPIN_MS = 2;
const POLL_MS = 1;

/**
 * While one of its promises is pending, dawn.node polls for it with back-to-back `setImmediate`s, which holds
 * a whole core that SwiftShader's threads need for the work being waited on. Dawn schedules its polls from
 * inside a call into the binding (a new wait) or from inside its previous poll, so a counter held around
 * both tells its `setImmediate`s from everyone else's, and only Dawn's are slowed down.
 */
function throttleDawnPolling(): void {
  const immediate = globalThis.setImmediate;
  const timeout = globalThis.setTimeout;
  let callsIntoDawn = 0;
  let polling = false;
  let waitingSince = 0;

  for (const binding of Object.values(globals)) {
    if (typeof binding !== 'function') continue;
    const prototype = binding.prototype as Record<string, unknown> | undefined;
    if (!prototype) continue;
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(prototype))) {
      const method: unknown = descriptor.value;
      if (name === 'constructor' || typeof method !== 'function' || !descriptor.writable) continue;
      prototype[name] = function (this: unknown, ...args: unknown[]): unknown {
        callsIntoDawn++;
        try {
          return (method as (...args: unknown[]) => unknown).apply(this, args);
        } finally {
          callsIntoDawn--;
        }
      };
    }
  }

  const poll = (callback: (...args: unknown[]) => void, args: unknown[]) => () => {
    polling = true;
    try {
      callback(...args);
    } finally {
      polling = false;
    }
  };
  function dawnAwareImmediate(callback: (...args: unknown[]) => void, ...args: unknown[]): NodeJS.Immediate {
    if (!polling && callsIntoDawn === 0) return immediate(callback, ...args);
    if (!polling) waitingSince = performance.now();
    if (performance.now() - waitingSince < SPIN_MS) return immediate(poll(callback, args));
    // Dawn ignores the handle, and no one else ever sees this one.
    return timeout(poll(callback, args), POLL_MS) as unknown as NodeJS.Immediate;
  }
  // Keeps util.promisify's custom form and the rest of what the original carries.
  Object.defineProperties(dawnAwareImmediate, Object.getOwnPropertyDescriptors(immediate));
  globalThis.setImmediate = dawnAwareImmediate as typeof setImmediate;
}
