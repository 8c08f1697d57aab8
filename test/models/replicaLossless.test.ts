/**
 * The decode loop is lossless on a replica of a real family at its full vocabulary: a Llama-2-tokenizer pair
 * (32,000 tokens, a 1-layer draft and a 2-layer target with random weights) loaded as a user's pair is, run
 * through the real decode(), CachedPairModels and onnxruntime. Over many seeds the first two emitted tokens
 * follow the target's own law of them (at T = 0.3, so that few cells hold most of the law), by a χ² test at
 * α = 1e-6.
 *
 * Its power sets the sample size: 250 seeds a method give 6–9 degrees of freedom (the cells expected 5 times
 * or more), where a departure of χ² divergence Σ (q − p)² / p ≥ 0.22 from the target's law on those cells is
 * caught with probability 0.9 (noncentrality 250 × 0.22 = 55 against the threshold of 36–45), for example
 * 0.1 of the mass moved between two cells of mass 0.1. The verifier that accepts every draft token departs by
 * about 6.6 (χ² 2,646 at 400 seeds), and the test shows that it is rejected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from '../../src/engine/decode';
import { CachedPairModels } from '../../src/engine/pairModels';
import { logitsToProbs, type SamplingParams } from '../../src/core/sampling';
import type { DecodeMethod } from '../../src/contract/runParams';
import type { StepVerifier } from '../../src/contract/stepVerifier';
import type { ModelPairHandle } from '../../src/models/loader';
import { loadPairAt } from '../../tools/bundled';
import { pairDirs } from '../support/replicas';
import { chiSquare, chiSquareThreshold } from '../support/chiSquare';

const SAMPLES = 250;
const TOKENS = 2;
/** T = 0.3 gathers the random weights' law on a few dozen two-token cells (the rest pooled); rows stay 32,000 wide. */
const sampling: SamplingParams = { temperature: 0.3 };

let pair: ModelPairHandle;
let prompt: number[];
beforeAll(async () => {
  pair = await loadPairAt(pairDirs('llama2'));
  prompt = pair.tokenizer.encode('Mood?');
});
afterAll(async () => {
  await pair.draft.session.release();
  await pair.target.session.release();
});

async function targetRow(prefix: readonly number[]): Promise<Float64Array> {
  const target = pair.target.session;
  const { logits } = await target.forward(prefix, 1, prefix.length, target.emptyCache(1));
  return logitsToProbs(logits.subarray((prefix.length - 1) * target.shape.vocab), sampling);
}

/** The target's law of its first two tokens for `samples` draws: cells expected 5 times or more exactly, the rest as one pooled cell. */
async function exactLaw(samples: number): Promise<{ keys: string[]; law: Float64Array }> {
  const keys: string[] = [];
  const law: number[] = [];
  const first = await targetRow(prompt);
  for (let x = 0; x < first.length; x++) {
    const px = first[x] as number;
    if (px * samples < 5) continue;
    if (x === pair.tokenizer.stopTokenId) {
      keys.push(`${x}`);
      law.push(px);
      continue;
    }
    const second = await targetRow([...prompt, x]);
    second.forEach((py, y) => {
      if (px * py * samples < 5) return;
      keys.push(`${x},${y}`);
      law.push(px * py);
    });
  }
  law.push(1 - law.reduce((sum, p) => sum + p, 0));
  return { keys, law: Float64Array.from(law) };
}

async function sampleCounts(
  method: DecodeMethod,
  samples: number,
  verifier?: StepVerifier,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let seed = 1; seed <= samples; seed++) {
    const models = new CachedPairModels(pair.draft.session, pair.target.session, pair.target.contextLength);
    const { tokens } = await decode(models, {
      method,
      K: 2,
      L: 2,
      sampling,
      drafting: 'validate',
      seed,
      maxTokens: TOKENS,
      prompt,
      structure: null,
      detokenize: (ids) => ids.join(' '),
      stopTokenId: pair.tokenizer.stopTokenId,
      ...(verifier ? { verifier } : {}),
    });
    const key = tokens.slice(0, TOKENS).join(',');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Accepts every draft token, then takes the target's most likely bonus token: the draft's law, not the target's. */
const acceptEverything: StepVerifier = {
  kind: 'cpu',
  verify({ problem }) {
    const { L, V: vocab, drafts, targetProbs } = problem;
    let best = 0;
    for (let x = 1; x < vocab; x++)
      if ((targetProbs[L * vocab + x] as number) > (targetProbs[L * vocab + best] as number)) best = x;
    return Promise.resolve({
      outcome: { draft: 0, accepted: L, tokens: Int32Array.from([...drafts.subarray(0, L), best]) },
      wordsUsed: 0,
      path: 'cpu' as const,
      finalLaw: null,
    });
  },
};

async function chiSquareOf(method: DecodeMethod, samples: number, verifier?: StepVerifier) {
  const { keys, law } = await exactLaw(samples);
  const counts = await sampleCounts(method, samples, verifier);
  const explicit = keys.map((key) => counts.get(key) ?? 0);
  const observed = Float64Array.from([...explicit, samples - explicit.reduce((sum, n) => sum + n, 0)]);
  return chiSquare(observed, law, samples);
}

describe(`the decode loop is lossless on the Llama 2 replica pair at V = 32,000 (first ${TOKENS} tokens, ${SAMPLES} seeds, χ² at α = 1e-6)`, () => {
  it.each(['tokenwise', 'spectr-gbv'] as const)('%s follows the target’s law', async (method) => {
    const { statistic, df } = await chiSquareOf(method, SAMPLES);
    console.info(`${method}: χ² ${statistic.toFixed(1)} on ${df} df, threshold ${chiSquareThreshold(df).toFixed(1)}`);
    expect(df).toBeGreaterThan(5);
    expect(statistic).toBeLessThan(chiSquareThreshold(df));
  });

  it('the same test rejects a verifier that accepts every draft token', async () => {
    const { statistic, df } = await chiSquareOf('tokenwise', SAMPLES, acceptEverything);
    console.info(
      `accept everything: χ² ${statistic.toFixed(0)} on ${df} df, threshold ${chiSquareThreshold(df).toFixed(1)}`,
    );
    expect(statistic).toBeGreaterThan(chiSquareThreshold(df));
  });
});
