/** Where a step's time is booked: the KV-cache gathers as kv, apart from the drafter's and the target's forwards. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StepRecord, StepTimings } from '../../src/contract/stepRecord';
import { SpecEngine } from '../../src/engine/engine';
import { presetParams } from '../../src/contract/runParams';
import { ajvValidator } from '../support/ajvValidator';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { bundledPair } from '../support/models';

describe('step timings on the bundled models', () => {
  let engine: SpecEngine;
  beforeAll(async () => {
    engine = await SpecEngine.create(await bundledPair(), ajvValidator);
  });
  afterAll(() => engine.dispose());

  const timingsOf = async (K: number) => {
    const steps: StepTimings[] = [];
    await engine.run(
      presetParams(SCHEMA_PRESETS[1] as (typeof SCHEMA_PRESETS)[number], {
        method: 'spectr-gbv',
        K,
        L: 4,
        seed: 1,
        temperature: 1,
        maxTokens: 24,
      }),
      (record: StepRecord) => {
        steps.push({ ...record.timings });
      },
    );
    return steps;
  };

  it('books the gathers of K = 3 drafts (a broadcast, then the chosen row) as kv, and no phase below zero', async () => {
    const steps = await timingsOf(3);
    expect(steps.length).toBeGreaterThan(1);
    for (const timings of steps) {
      expect(timings.kv).toBeGreaterThan(0);
      for (const phase of Object.keys(timings) as (keyof StepTimings)[])
        expect(timings[phase], phase).toBeGreaterThanOrEqual(0);
    }
  });

  it('leaves the time a run waits on its onStep (a presenter’s pauses) out of generationMs and tokens/s', async () => {
    // Each onStep "pauses" 4 s on a shifted clock, so the test waits for nothing and reads no wall time.
    const PAUSE_MS = 4000;
    let offset = 0;
    const real = performance.now.bind(performance);
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => real() + offset);
    let steps = 0;
    try {
      const report = await engine.run(
        presetParams(SCHEMA_PRESETS[1] as (typeof SCHEMA_PRESETS)[number], {
          method: 'gbv',
          K: 1,
          L: 4,
          seed: 1,
          temperature: 1,
          maxTokens: 12,
        }),
        () => {
          steps++;
          offset += PAUSE_MS;
        },
      );
      expect(steps).toBeGreaterThan(1);
      expect(report.wallMs).toBeGreaterThanOrEqual(steps * PAUSE_MS);
      expect(report.generationMs).toBeGreaterThan(0);
      expect(report.generationMs).toBeLessThanOrEqual(report.wallMs - steps * PAUSE_MS);
    } finally {
      clock.mockRestore();
    }
  });
});
