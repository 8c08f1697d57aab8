/**
 * The one setup the worker, the CLI and the benches share: where it puts the models and the verifier for
 * each request, and that the engine it builds runs, on the bundled pair (wasm EP) and Dawn's WebGPU in Node.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionProvider } from '../../src/contract/protocol';
import { presetParams } from '../../src/contract/runParams';
import type { StepRecord } from '../../src/contract/stepRecord';
import { setupEngine, type SetupRequest } from '../../src/engine/setup';
import { GpuDeviceManager } from '../../src/gpu/device';
import { ajvValidator } from '../support/ajvValidator';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { loadPair } from '../../src/models/loader';
import { BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, directoryReader, loadBundledPair, ort } from '../../tools/bundled';
import { nodeGpu } from '../support/gpu';

/** Sets up with the bundled pair, recording the provider the setup asked the loader for. */
async function setUp(request: Pick<SetupRequest, 'provider' | 'verifier' | 'gpu' | 'assumeHardwareAdapter'>) {
  const asked: ExecutionProvider[] = [];
  const setup = await setupEngine({
    ...request,
    loadPair: (provider) => {
      asked.push(provider);
      return loadBundledPair();
    },
    validate: ajvValidator,
  });
  return { setup, asked };
}

/** A short run; the paths its steps were verified on. */
async function verifiedOn(setup: Awaited<ReturnType<typeof setupEngine>>): Promise<Set<StepRecord['verifiedOn']>> {
  const records: StepRecord[] = [];
  const report = await setup.engine.run(
    presetParams(SCHEMA_PRESETS[0] as (typeof SCHEMA_PRESETS)[number], { method: 'spectr', maxTokens: 6 }),
    (record) => {
      records.push(record);
    },
  );
  expect(report.tokens.length).toBeGreaterThan(0);
  return new Set(records.map((record) => record.verifiedOn));
}

describe('setupEngine', () => {
  it('wasm and the CPU twin, asked for, are what it builds; the engine runs', async () => {
    const { setup, asked } = await setUp({ provider: 'wasm', verifier: 'cpu', gpu: nodeGpu() });
    expect(asked).toEqual(['wasm']);
    expect([setup.provider, setup.fallbackReason, setup.verifier, setup.verifierReason, setup.logitsInPlace]).toEqual([
      'wasm',
      null,
      'cpu',
      null,
      false,
    ]);
    expect(await verifiedOn(setup)).toEqual(new Set(['cpu']));
    await setup.dispose();
  });

  it('the WGSL verifier, asked for, runs on the adapter it names', async () => {
    const { setup } = await setUp({ provider: 'wasm', verifier: 'gpu', gpu: nodeGpu() });
    expect(setup.verifier).toBe('gpu');
    expect(setup.verifierAdapter).toEqual(expect.any(String));
    expect(setup.verifierReason).toBeNull();
    expect(await verifiedOn(setup)).toEqual(new Set(['gpu-upload']));
    await setup.dispose();
  });

  it("'auto' keeps the CPU twin on a software adapter and the kernels on a hardware one, saying why", async () => {
    const probe = new GpuDeviceManager({ gpu: nodeGpu() });
    const { software } = await probe.context();
    await probe.dispose();
    const { setup } = await setUp({ provider: 'wasm', verifier: 'auto', gpu: nodeGpu() });
    expect(setup.verifier).toBe(software ? 'cpu' : 'gpu');
    expect(setup.verifierReason).toEqual(software ? expect.stringMatching(/software WebGPU adapter/) : null);
    await setup.dispose();
  });

  it("'auto' on a hardware adapter (the test hook's claim) asks for the models on WebGPU and says why", async () => {
    const { setup, asked } = await setUp({
      provider: 'auto',
      verifier: 'cpu',
      gpu: nodeGpu(),
      assumeHardwareAdapter: true,
    });
    expect(asked).toEqual(['webgpu']);
    expect([setup.provider, setup.fallbackReason]).toEqual(['webgpu', null]);
    expect(setup.webgpuReason).toMatch(/^hardware adapter: .+/);
    await setup.dispose();
  });

  it('moves the models to wasm, saying why, when the int8 target refuses WebGPU before its bytes are read', async () => {
    const asked: ExecutionProvider[] = [];
    const read: string[] = [];
    const reader = (dir: string) => {
      const inner = directoryReader(dir);
      return (path: string) => {
        read.push(`${dir}/${path}`);
        return inner(path);
      };
    };
    const setup = await setupEngine({
      provider: 'webgpu',
      verifier: 'cpu',
      gpu: nodeGpu(),
      loadPair: (provider) => {
        asked.push(provider);
        return loadPair(ort, { draft: reader(BUNDLED_DRAFT_DIR), target: reader(BUNDLED_TARGET_DIR) }, provider);
      },
      validate: ajvValidator,
    });
    expect(asked).toEqual(['webgpu', 'wasm']);
    expect(setup.provider).toBe('wasm');
    expect(setup.fallbackReason).toMatch(
      /^speclab-target-int8 runs on wasm only: onnxruntime-web's WebGPU EP gives wrong logits/,
    );
    // The target's model file was read once, by the wasm load: the refused attempt stopped at its manifest.
    expect(read.filter((path) => path === `${BUNDLED_TARGET_DIR}/onnx/model.onnx`)).toHaveLength(1);
    expect(setup.engine.pair.target.name).toBe('speclab-target-int8');
    expect(await verifiedOn(setup)).toEqual(new Set(['cpu']));
    await setup.dispose();
  });

  it('without WebGPU it loads on wasm and verifies on the CPU twin, and says why', async () => {
    const { setup, asked } = await setUp({ provider: 'auto', verifier: 'gpu', gpu: null });
    expect(asked).toEqual(['wasm']);
    expect([setup.provider, setup.fallbackReason, setup.verifier, setup.verifierReason]).toEqual([
      'wasm',
      'no WebGPU adapter was granted',
      'cpu',
      'no WebGPU',
    ]);
    await setup.dispose();
  });
});
