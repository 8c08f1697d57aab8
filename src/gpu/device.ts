/**
 * WebGPU device acquisition. A context can own its device or share one (onnxruntime-web's, so that logits
 * it leaves on the GPU feed our kernels without a copy). A lost device, or an error no error scope caught,
 * is reported as an 'error' event (a GpuDeviceLostError or a GpuUncapturedError); the GPU step verifier
 * listens, fails the step in flight with it, and the engine falls back to the CPU twin. The next
 * `context()` call would create a fresh device.
 */

/** Thrown where WebGPU cannot be had at all; the app catches it and runs the CPU verifier, visibly. */
export class WebGpuUnavailableError extends Error {
  override readonly name = 'WebGpuUnavailableError';
}

/** The device was lost (destroyed, or the driver gave up on it). */
export class GpuDeviceLostError extends Error {
  override readonly name = 'GpuDeviceLostError';
}

/** A WebGPU error outside any error scope: the device's state can no longer be trusted. */
export class GpuUncapturedError extends Error {
  override readonly name = 'GpuUncapturedError';
}

/** The message a lost device is reported with. */
export function describeDeviceLoss(info: GPUDeviceLostInfo): string {
  return `the GPU device was lost: ${info.message || 'no message'} (${info.reason === 'destroyed' ? 'destroyed' : 'lost'})`;
}

const OPTIONAL_FEATURES: GPUFeatureName[] = ['timestamp-query', 'subgroups'];
/** The limits our kernels size themselves by; we ask for the adapter's maximum of each. */
const REQUESTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupsPerDimension',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupStorageSize',
] as const;
type LimitName = (typeof REQUESTED_LIMITS)[number];

export interface GpuContext {
  readonly device: GPUDevice;
  readonly adapterName: string;
  /** A CPU implementation of WebGPU (SwiftShader, or any fallback adapter). */
  readonly software: boolean;
  /** The limits kernels size themselves by: the device's, lowered by any caps given to the manager. */
  readonly limits: Readonly<Record<LimitName, number>>;
  /** Compiled pipelines by kernel name, so each is built once per device. */
  readonly pipelines: Map<string, GPUComputePipeline>;
}

function describeAdapter(info: GPUAdapterInfo | undefined): { adapterName: string; software: boolean } {
  if (!info) return { adapterName: 'unknown adapter', software: false };
  const { vendor, architecture, device } = info;
  return {
    adapterName: [vendor, architecture, device].filter(Boolean).join(' / ') || 'unnamed adapter',
    software: info.isFallbackAdapter || architecture === 'swiftshader',
  };
}

async function requestOwnDevice(
  gpu: GPU | undefined,
): Promise<{ device: GPUDevice; adapterName: string; software: boolean }> {
  if (!gpu) throw new WebGpuUnavailableError('WebGPU is unavailable: this environment has no navigator.gpu');
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new WebGpuUnavailableError('WebGPU is unavailable: no adapter was granted');
  const requiredLimits: Record<string, number> = {};
  for (const name of REQUESTED_LIMITS) requiredLimits[name] = adapter.limits[name];
  const requiredFeatures = OPTIONAL_FEATURES.filter((feature) => adapter.features.has(feature));
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures });
  return { device, ...describeAdapter(adapter.info) };
}

export interface GpuDeviceManagerOptions {
  /** Where adapters come from: navigator.gpu in a browser, the `webgpu` package's GPU in Node. */
  gpu?: GPU;
  /** A device to share instead of creating one (for example onnxruntime-web's `env.webgpu.device`). */
  sharedDevice?: GPUDevice;
  /**
   * Caps below the device's limits (WebGPU raises requests below its defaults back up to them): to leave
   * room for other work, or to rehearse a smaller device.
   */
  limits?: Partial<Record<LimitName, number>>;
}

export class GpuDeviceManager extends EventTarget {
  private current: Promise<GpuContext> | null = null;

  constructor(private readonly options: GpuDeviceManagerOptions) {
    super();
  }

  /** The live context, creating the device on first use and again after a loss. */
  context(): Promise<GpuContext> {
    this.current ??= this.create().catch((error: unknown) => {
      this.current = null;
      throw error;
    });
    return this.current;
  }

  private async create(): Promise<GpuContext> {
    const shared = this.options.sharedDevice;
    const { device, adapterName, software } = shared
      ? { device: shared, ...describeAdapter(shared.adapterInfo) }
      : await requestOwnDevice(this.options.gpu);
    const caps = this.options.limits ?? {};
    const limits = Object.fromEntries(
      REQUESTED_LIMITS.map((name) => [name, Math.min(device.limits[name], caps[name] ?? Infinity)]),
    ) as Record<LimitName, number>;
    const context: GpuContext = { device, adapterName, software, limits, pipelines: new Map() };
    void device.lost.then((info) => {
      // dispose() clears `current` first: a device we destroyed ourselves is not news.
      if (this.current === null) return;
      this.current = null;
      this.dispatchEvent(new CustomEvent<Error>('error', { detail: new GpuDeviceLostError(describeDeviceLoss(info)) }));
    });
    device.addEventListener('uncapturederror', (event) => {
      const error = new GpuUncapturedError(
        `the GPU reported an error: ${(event as GPUUncapturedErrorEvent).error.message}`,
      );
      this.dispatchEvent(new CustomEvent<Error>('error', { detail: error }));
    });
    return context;
  }

  /** Drops the device (a shared one is left to its owner). */
  async dispose(): Promise<void> {
    const current = this.current;
    this.current = null;
    if (current && !this.options.sharedDevice) (await current).device.destroy();
  }
}
