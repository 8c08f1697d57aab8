/**
 * Drafting ahead on the bundled pair (wasm EP), the target on a worker thread of its own: every preset and
 * seed emits the same tokens, counters and verdict as the same run drafting after each verification, with the
 * drafter alone, with the schema's and the prompt's free tokens, and sampling under the mask; some early blocks
 * are taken and some thrown away, so both ways on from a step ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetParams, type RunParams } from '../../src/contract/runParams';
import { SCHEMA_PRESETS, type SchemaPreset } from '../../src/contract/presets';
import { SpecEngine } from '../../src/engine/engine';
import type { ModelPairHandle } from '../../src/models/loader';
import { BUNDLED_TARGET_DIR } from '../../tools/bundled';
import { startTargetThread, type NodeTargetThread } from '../../tools/targetThread';
import { ajvValidator } from '../support/ajvValidator';
import { bundledPair } from '../support/models';

describe('drafting ahead, the target on its own thread', () => {
  let pair: ModelPairHandle;
  let thread: NodeTargetThread;
  beforeAll(async () => {
    pair = await bundledPair();
    thread = await startTargetThread(BUNDLED_TARGET_DIR, 1);
  }, 60_000);
  afterAll(async () => {
    await thread?.terminate();
  });

  it('emits what drafting after emits, preset by preset and seed by seed', async () => {
    const here = SpecEngine.create(pair, ajvValidator);
    const apart = SpecEngine.create(pair, ajvValidator, undefined, { targetThread: thread.client });
    const ways: Partial<RunParams>[] = [
      { drafter: 'model' },
      { drafter: 'model+grammar+copy' },
      { drafter: 'model+grammar', drafting: 'constrained' },
    ];
    let drafted = 0;
    let taken = 0;
    for (const preset of SCHEMA_PRESETS)
      for (const way of ways)
        for (const seed of [1, 2]) {
          const params = presetParams(preset, { method: 'tokenwise', K: 1, L: 4, seed, temperature: 1, ...way });
          const label = `${preset.id}, ${JSON.stringify(way)}, seed ${seed}`;
          const after = await here.run(params);
          const ahead = await apart.run(params, undefined, undefined, { draftAhead: true });
          expect(ahead.tokens, label).toEqual(after.tokens);
          expect(ahead.counters, label).toEqual(after.counters);
          expect(ahead.verdict, label).toEqual(after.verdict);
          expect(after.draftedAhead, label).toBeUndefined();
          drafted += ahead.draftedAhead?.drafted ?? 0;
          taken += ahead.draftedAhead?.taken ?? 0;
        }
    console.log(`drafting ahead on the bundled pair: ${taken} of ${drafted} early blocks taken`);
    expect(taken).toBeGreaterThan(10);
    expect(drafted - taken).toBeGreaterThan(10);
  }, 120_000);

  it('only a run that drafts ahead uses the thread: the others emit what they emit without one; drafting ahead is refused without a thread and for a head drafter', async () => {
    const here = SpecEngine.create(pair, ajvValidator);
    const apart = SpecEngine.create(pair, ajvValidator, undefined, { targetThread: thread.client });
    const person = SCHEMA_PRESETS[1] as SchemaPreset;
    for (const method of ['ar', 'ar+jump-forward', 'spectr-gbv'] as const) {
      const params = presetParams(person, { method, seed: 3, temperature: 1 });
      expect((await apart.run(params)).tokens, method).toEqual((await here.run(params)).tokens);
    }
    const tokenwise = presetParams(person, { method: 'tokenwise', K: 1, seed: 3 });
    await expect(here.run(tokenwise, undefined, undefined, { draftAhead: true })).rejects.toThrow(
      'drafting ahead needs the target on a thread of its own (the engine has none)',
    );
    const head = { ...tokenwise, drafter: 'head+grammar' as const };
    await expect(apart.run(head, undefined, undefined, { draftAhead: true })).rejects.toThrow(
      "drafter head+grammar: the head reads the target's features",
    );
  }, 60_000);
});
