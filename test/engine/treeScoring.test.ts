/**
 * Tree scoring on the bundled pair (wasm EP): one batch-1 forward over the drafts' prefix tree gives the
 * verifier the same K×(L+1) rows as K batched rows, step after step (so the cache kept the emitted path),
 * and decodes the same tokens; each step records the path it ran and the positions it scored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import { presetParams } from '../../src/contract/runParams';
import type { StepRecord } from '../../src/contract/stepRecord';
import { SpecEngine } from '../../src/engine/engine';
import { CachedPairModels, TREE_SCORING_OFF } from '../../src/engine/pairModels';
import { ajvValidator } from '../support/ajvValidator';
import { SCHEMA_PRESETS, type SchemaPreset } from '../../src/contract/presets';
import type { ModelPairHandle } from '../../src/models/loader';
import { bundledPair } from '../support/models';

/** Largest |a - b| over two equally long arrays. */
function maxDifference(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs((a[i] as number) - (b[i] as number)));
  return most;
}

describe('tree scoring on the bundled pair', () => {
  let pair: ModelPairHandle;
  beforeAll(async () => {
    pair = await bundledPair();
  });

  it('the bundled target has the tree input, so the engine scores on the tree path', () => {
    expect(pair.target.session.shape.hasTreeMask).toBe(true);
    expect(new CachedPairModels(pair.draft.session, pair.target.session, 128).scoring).toEqual({
      path: 'tree',
      reason: null,
    });
  });

  it('gives every verifier row the batched path’s logits to 1e-5, over steps that commit different paths', async () => {
    const { draft, target } = pair;
    const V = target.session.shape.vocab;
    const rng = createRng(7, 0);
    const tree = new CachedPairModels(draft.session, target.session, 128);
    const batched = new CachedPairModels(draft.session, target.session, 128, { treeScoring: false });
    const context = pair.tokenizer.encode('{"name": "Ada", "age": ');
    const K = 3;
    const L = 4;
    let sharedSteps = 0;
    try {
      for (let step = 0; step < 6; step++) {
        await tree.draftFirst(context);
        await batched.draftFirst(context);
        // Drafts that share prefixes: draft k copies draft 0 up to a random point, then goes its own way.
        const drafts = new Int32Array(K * L);
        for (let k = 0; k < K; k++) {
          const split = createRng(step * K + k, 1).nextUint32() % (L + 1);
          for (let j = 0; j < L; j++)
            drafts[k * L + j] = k > 0 && j < split ? (drafts[j] as number) : rng.nextUint32() % V;
        }
        const fromTree = await tree.score(context, drafts, K, L);
        const fromBatches = await batched.score(context, drafts, K, L);
        expect(maxDifference(fromTree.logits, fromBatches.logits)).toBeLessThan(1e-5);
        expect(fromTree.scoring.path).toBe('tree');
        expect(fromBatches.scoring).toMatchObject({ path: 'batched', reason: TREE_SCORING_OFF });
        expect(fromTree.scoring.batchedPositions).toBe(fromBatches.scoring.positions);
        expect(fromTree.scoring.positions).toBeLessThanOrEqual(fromBatches.scoring.positions);
        if (fromTree.scoring.positions < fromBatches.scoring.positions) sharedSteps++;
        // Keep a different draft and length each step; the next step's context is what that emits.
        const chosen = step % K;
        const accepted = step % (L + 1);
        tree.commit(chosen, accepted);
        batched.commit(chosen, accepted);
        context.push(...drafts.subarray(chosen * L, chosen * L + accepted), rng.nextUint32() % V);
      }
      expect(sharedSteps).toBeGreaterThan(0);
    } finally {
      tree.dispose();
      batched.dispose();
    }
  });

  it('at T = 1 the tree and the batched path decode the same tokens for the same seed, and each step says which ran', async () => {
    const onTree = SpecEngine.create(pair, ajvValidator);
    const onBatches = SpecEngine.create(pair, ajvValidator, undefined, { treeScoring: false });
    try {
      expect(onBatches.scoring).toEqual({ path: 'batched', reason: TREE_SCORING_OFF });
      for (const [preset, method, seed] of [
        [SCHEMA_PRESETS[1], 'spectr-gbv', 3],
        [SCHEMA_PRESETS[3], 'gbv', 4],
        [SCHEMA_PRESETS[0], 'tokenwise', 5],
      ] as const) {
        const params = presetParams(preset as SchemaPreset, { method, temperature: 1, seed, K: 3, L: 4 });
        const treeSteps: StepRecord[] = [];
        const batchedSteps: StepRecord[] = [];
        const tree = await onTree.run(params, (record) => void treeSteps.push(record));
        const batched = await onBatches.run(params, (record) => void batchedSteps.push(record));
        expect(tree.tokens, method).toEqual(batched.tokens);
        expect(treeSteps.every((record) => record.scoring?.path === 'tree' && record.scoring.reason === null)).toBe(
          true,
        );
        expect(
          batchedSteps.every(
            (record) => record.scoring?.path === 'batched' && record.scoring.reason === TREE_SCORING_OFF,
          ),
        ).toBe(true);
        // The same steps: the tree scored no more positions than the batched path did, step for step.
        treeSteps.forEach((record, i) => {
          expect(record.scoring?.batchedPositions).toBe(batchedSteps[i]?.scoring?.positions);
          expect(record.scoring?.positions).toBeLessThanOrEqual(record.scoring?.batchedPositions as number);
        });
        expect(tree.scoring.treeSteps).toBe(tree.steps);
        expect(batched.scoring.batchedSteps).toBe(batched.steps);
      }
    } finally {
      onTree.dispose();
      onBatches.dispose();
    }
  });
});
