/**
 * CachedPairModels' bookkeeping, apart from any ONNX graph: a stand-in model whose "KV cache" holds the
 * token ids it has seen and whose logits are a function of exactly the tokens a position may attend to
 * (and which refuses a position id that disagrees). Tree rows, the kept path and the batched fallback are
 * then checked against the prefix-keyed reference, step after step.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { syntheticLogits, type LogitPair } from '../../src/core/modelPair';
import { createRng } from '../../src/core/rng';
import type { StepRecord } from '../../src/contract/stepRecord';
import { decode } from '../../src/engine/decode';
import type { DecodeOptions } from '../../src/engine/decodeOptions';
import { CachedPairModels, PrefixPairModels, TREE_SCORING_OFF, type DraftFork } from '../../src/engine/pairModels';
import { syntheticHead } from '../../src/core/draftHead';
import type { DraftHead } from '../../src/models/headSession';
import { KvCache } from '../../src/models/kvCache';
import type { ForwardOptions, ModelSession, ModelShape } from '../../src/models/session';

const V = 12;
const STOP = 0;

/** A causal model over `next(prefix)`: its cache stores token ids (heads = headDim = 1). */
function standIn(
  name: string,
  next: (prefix: readonly number[]) => ArrayLike<number>,
  hasTreeMask: boolean,
  feature?: (prefix: readonly number[]) => Float32Array,
): ModelSession {
  const shape: ModelShape = {
    layers: 1,
    heads: 1,
    headDim: 1,
    vocab: V,
    hasPositionIds: true,
    hasCacheBranch: false,
    hasTreeMask,
  };
  const session = {
    name,
    shape,
    provider: 'wasm',
    gpuDevice: null,
    hasFeatures: feature !== undefined,
    emptyCache: (batch: number) => KvCache.empty(ort, shape, batch, null),
    forward(inputIds: ArrayLike<number>, batch: number, seq: number, past: KvCache, options: ForwardOptions = {}) {
      if (options.treeMask && !hasTreeMask) throw new RangeError(`${name} has no tree_attention_mask input`);
      const seen = past.tensors[0]?.data as Float32Array;
      const total = past.length + seq;
      const tokens = new Float32Array(batch * total);
      const logits = new Float32Array(batch * seq * V);
      const width = feature?.([]).length ?? 0;
      const features = options.features && feature ? new Float32Array(batch * seq * width) : null;
      for (let b = 0; b < batch; b++) {
        const before = Array.from(seen.subarray(b * past.length, (b + 1) * past.length));
        tokens.set(before, b * total);
        for (let i = 0; i < seq; i++) {
          tokens[b * total + past.length + i] = inputIds[b * seq + i] as number;
          const visible = [...before];
          for (let j = 0; j <= i; j++)
            if ((options.treeMask?.[(b * seq + i) * seq + j] ?? 1) === 1) visible.push(inputIds[b * seq + j] as number);
          const position = options.positionIds?.[b * seq + i] ?? past.length + i;
          if (position !== visible.length - 1)
            throw new Error(`${name}: position id ${position} for a token that sees ${visible.length} tokens`);
          logits.set(next(visible), (b * seq + i) * V);
          features?.set((feature as (prefix: readonly number[]) => Float32Array)(visible), (b * seq + i) * width);
        }
      }
      const cache = new KvCache(
        [
          new ort.Tensor('float32', tokens, [batch, 1, total, 1]),
          new ort.Tensor('float32', tokens.slice(), [batch, 1, total, 1]),
        ],
        shape,
        batch,
        total,
        ort,
        null,
      );
      return Promise.resolve({ logits, gpuLogits: null, cache, features });
    },
  };
  return session as unknown as ModelSession;
}

const logits: LogitPair = syntheticLogits({ V, seed: 11, closeness: 0.8, logitScale: 2.5 });
const pair = (targetHasTreeMask = true) =>
  [
    standIn('draft', (p) => logits.draft(p), false),
    standIn('target', (p) => logits.target(p), targetHasTreeMask),
  ] as const;

const options = (method: DecodeOptions['method'], seed: number): DecodeOptions => ({
  method,
  K: 3,
  L: 4,
  sampling: { temperature: 1 },
  drafting: 'validate',
  seed,
  maxTokens: 40,
  prompt: [3, 5, 7],
  structure: null,
  detokenize: (tokens) => tokens.join(' '),
  stopTokenId: STOP,
});

/** The pair's forks, with the drafter's first row of each early block skewed towards token 1. */
function skewedFork(models: CachedPairModels): () => DraftFork | null {
  const fork = models.forkDraft.bind(models);
  return () => {
    const real = fork();
    if (!real) return null;
    const draftFirst = real.draftFirst.bind(real);
    real.draftFirst = async (context) => {
      const row = (await draftFirst(context)).slice();
      row[1] = (row[1] as number) + 3;
      return row;
    };
    return real;
  };
}

describe('CachedPairModels', () => {
  it('tree rows equal the prefix-keyed reference for every (k, j), step after step, whatever path was kept', async () => {
    const [draft, target] = pair();
    const models = new CachedPairModels(draft, target, 1000);
    expect(models.scoring).toEqual({ path: 'tree', reason: null });
    const rng = createRng(5, 0);
    const context = [3, 5, 7];
    const K = 3;
    const L = 4;
    for (let step = 0; step < 12; step++) {
      await models.draftFirst(context);
      const drafts = new Int32Array(K * L);
      for (let k = 0; k < K; k++) {
        const split = rng.nextUint32() % (L + 1);
        for (let j = 0; j < L; j++)
          drafts[k * L + j] = k > 0 && j < split ? (drafts[j] as number) : rng.nextUint32() % 3;
      }
      const { logits: rows, scoring } = await models.score(context, drafts, K, L);
      for (let k = 0; k < K; k++) {
        for (let j = 0; j <= L; j++) {
          const expected = Float32Array.from(logits.target([...context, ...drafts.subarray(k * L, k * L + j)]));
          expect(
            rows.subarray((k * (L + 1) + j) * V, (k * (L + 1) + j + 1) * V),
            `step ${step}, row (${k}, ${j})`,
          ).toEqual(expected);
        }
      }
      expect(scoring.path).toBe('tree');
      expect(scoring.batchedPositions).toBe(K * ((step === 0 ? 3 : 1) + L));
      const chosen = rng.nextUint32() % K;
      const accepted = rng.nextUint32() % (L + 1);
      models.commit(chosen, accepted);
      context.push(...drafts.subarray(chosen * L, chosen * L + accepted), rng.nextUint32() % V);
    }
    models.dispose();
  });

  it('decodes the same tokens on the tree path, the batched path and the prefix-keyed pair, at T = 1', async () => {
    for (const [method, seed] of [
      ['spectr-gbv', 1],
      ['gbv', 2],
      ['spectr', 3],
      ['optimal-tree', 4],
      ['tokenwise', 5],
    ] as const) {
      const [draft, target] = pair();
      const treeSteps: StepRecord[] = [];
      const batchedSteps: StepRecord[] = [];
      const tree = await decode(
        new CachedPairModels(draft, target, 1000),
        options(method, seed),
        (record) => void treeSteps.push(record),
      );
      const batched = await decode(
        new CachedPairModels(draft, target, 1000, { treeScoring: false }),
        options(method, seed),
        (record) => void batchedSteps.push(record),
      );
      const reference = await decode(new PrefixPairModels(logits), options(method, seed));
      expect(tree.tokens, method).toEqual(reference.tokens);
      expect(batched.tokens, method).toEqual(reference.tokens);
      expect(treeSteps.map((record) => record.scoring?.path)).toEqual(treeSteps.map(() => 'tree'));
      expect(batchedSteps.map((record) => record.scoring?.reason)).toEqual(batchedSteps.map(() => TREE_SCORING_OFF));
      expect(tree.scoring.batchedPositions).toBe(batched.scoring.positions);
    }
  });

  it('a target without the tree input scores K batched rows, and every step says why', async () => {
    const [draft, target] = pair(false);
    const models = new CachedPairModels(draft, target, 1000);
    expect(models.scoring).toEqual({ path: 'batched', reason: 'the target (target) has no tree_attention_mask input' });
    const steps: StepRecord[] = [];
    const result = await decode(models, options('spectr-gbv', 9), (record) => void steps.push(record));
    expect(result.tokens).toEqual((await decode(new PrefixPairModels(logits), options('spectr-gbv', 9))).tokens);
    for (const record of steps)
      expect(record.scoring).toMatchObject({
        path: 'batched',
        reason: 'the target (target) has no tree_attention_mask input',
      });
    expect(result.scoring).toMatchObject({ treeSteps: 0, batchedSteps: result.steps });
  });

  it('drafting ahead emits the same tokens, blocks and decisions as drafting after, taking the early block only where it assumed right', async () => {
    // A close pair, so that whole blocks are accepted often enough for the guess to be tried.
    const close = syntheticLogits({ V, seed: 11, closeness: 0.97, logitScale: 4 });
    let taken = 0;
    let thrownAway = 0;
    let caught = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const run = async (draftAhead: boolean, skewed = false) => {
        const draft = standIn('draft', (p) => close.draft(p), false);
        const target = standIn('target', (p) => close.target(p), true);
        const models = new CachedPairModels(draft, target, 1000);
        const fork = skewed ? skewedFork(models) : models.forkDraft.bind(models);
        const adopt = models.adoptDraft.bind(models);
        let forks = 0;
        let adopted = 0;
        models.forkDraft = () => (forks++, fork());
        models.adoptDraft = (drafted) => (adopted++, adopt(drafted));
        const steps: StepRecord[] = [];
        const result = await decode(models, { ...options('tokenwise', seed), K: 1, draftAhead }, (record) => {
          steps.push(record);
        });
        return { result, steps, forks, adopted };
      };
      const after = await run(false);
      const ahead = await run(true);
      expect(ahead.result.tokens, `seed ${seed}`).toEqual(after.result.tokens);
      expect(ahead.result.counters, `seed ${seed}`).toEqual(after.result.counters);
      const decisions = (steps: StepRecord[]) =>
        steps.map(({ drafts, draftProbs, targetProbs, accepted, emitted }) => ({
          drafts,
          draftProbs,
          targetProbs,
          accepted,
          emitted,
        }));
      expect(decisions(ahead.steps), `seed ${seed}`).toEqual(decisions(after.steps));
      expect(after.forks).toBe(0);
      // Negative control: a fork whose drafter reads a skewed first row drafts other blocks, and the
      // comparison sees it wherever such a block was taken.
      const skewed = await run(true, true);
      if (skewed.adopted > 0) {
        expect(decisions(skewed.steps), `seed ${seed}`).not.toEqual(decisions(after.steps));
        caught++;
      }
      taken += ahead.adopted;
      thrownAway += ahead.forks - ahead.adopted;
    }
    console.log(`drafting ahead, 12 seeds: ${taken} blocks taken, ${thrownAway} thrown away`);
    // Both ways out of a step were taken: a block used as drafted, and one thrown away.
    expect(taken).toBeGreaterThan(5);
    expect(thrownAway).toBeGreaterThan(5);
    expect(caught).toBeGreaterThan(2);
  });

  it('drafting ahead is refused, before any step, where it cannot hold: several drafts, a drafter that samples nothing, a baseline', async () => {
    const [draft, target] = pair();
    const models = () => new CachedPairModels(draft, target, 1000);
    await expect(decode(models(), { ...options('spectr-gbv', 1), draftAhead: true })).rejects.toThrow(
      'drafting ahead takes one draft; this method reads 3',
    );
    await expect(
      decode(models(), { ...options('tokenwise', 1), K: 1, drafter: 'copy', draftAhead: true }),
    ).rejects.toThrow('drafting ahead needs a drafter that samples its tokens; drafter copy samples none');
    await expect(decode(models(), { ...options('ar', 1), draftAhead: true })).rejects.toThrow(
      'drafting ahead needs a drafter that samples its tokens; method ar drafts nothing',
    );
  });

  describe('head mode (drafters head, head+grammar): the target keeps its features, the head drafts', () => {
    const head = syntheticHead({ V, width: 6, seed: 21 });
    const headLogits: LogitPair = {
      V,
      target: (prefix) => Float64Array.from(head.targetLogits(prefix)),
      draft: () => new Float64Array(V),
    };
    const draftHead: DraftHead = {
      name: 'head',
      width: head.width,
      run(features, ids, batch) {
        const logitsOut = new Float32Array(batch * V);
        const featuresOut = new Float32Array(batch * head.width);
        for (let b = 0; b < batch; b++) {
          const out = head.run(features.subarray(b * head.width, (b + 1) * head.width), ids[b] as number);
          logitsOut.set(out.logits, b * V);
          featuresOut.set(out.feature, b * head.width);
        }
        return Promise.resolve({ logits: logitsOut, features: featuresOut });
      },
    };
    const headTarget = (hasTreeMask: boolean) =>
      standIn(
        'target',
        (p) => head.targetLogits(p),
        hasTreeMask,
        (p) => head.targetFeature(p),
      );
    const headOptions = (method: DecodeOptions['method'], seed: number): DecodeOptions => ({
      ...options(method, seed),
      drafter: 'head',
    });

    it('decodes the same tokens as the prefix-keyed head chain, on the tree and the batched path, step after step', async () => {
      for (const [method, seed] of [
        ['spectr-gbv', 1],
        ['tokenwise', 2],
        ['spectr', 3],
      ] as const) {
        const reference = await decode(new PrefixPairModels(headLogits, { head }), headOptions(method, seed));
        const draft = standIn('draft', () => new Float32Array(V), false);
        const tree = await decode(
          new CachedPairModels(draft, headTarget(true), 1000, { head: draftHead }),
          headOptions(method, seed),
        );
        const batched = await decode(
          new CachedPairModels(draft, headTarget(false), 1000, { head: draftHead }),
          headOptions(method, seed),
        );
        expect(reference.steps, method).toBeGreaterThan(3);
        expect(reference.counters.bySource.head.drafted, method).toBe(reference.counters.raw);
        expect(tree.tokens, method).toEqual(reference.tokens);
        expect(batched.tokens, method).toEqual(reference.tokens);
      }
    });

    it('is refused for a target without a features output, with the reason', () => {
      const [draft, target] = pair();
      expect(() => new CachedPairModels(draft, target, 1000, { head: draftHead })).toThrow(
        'the target (target) has no features output, so no draft head can read its hidden state',
      );
    });
  });
});
