/**
 * The whole decode loop is lossless: over many seeds, the first three emitted tokens of every method
 * follow the target's own sequence law. A χ² goodness-of-fit test against the exact law, with its
 * threshold set from the degrees of freedom at α = 1e-6, and shown to catch a broken verifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrafterId } from '../../src/core/draftLaw';
import { syntheticLogits, type LogitPair } from '../../src/core/modelPair';
import { logitsToProbs } from '../../src/core/sampling';
import { decode } from '../../src/engine/decode';
import { DECODE_METHODS, isBaseline, type DecodeMethod } from '../../src/contract/runParams';
import { CachedPairModels, PrefixPairModels } from '../../src/engine/pairModels';
import { bundledPair } from '../support/models';
import type { ModelPairHandle } from '../../src/models/loader';
import type { StepVerifier } from '../../src/contract/stepVerifier';
import type { Counters } from '../../src/core/metrics';
import { METHOD_IDS } from '../../src/core/verify/registry';
import { ajvValidator } from '../support/ajvValidator';
import { GrammarEngine, type CompiledSchema, type SchemaMatcher } from '../../src/grammar/engine';
import { JSON_STOP, JSON_VOCAB, decodeJson, tokenizeJson } from '../support/jsonVocab';
import { chiSquare, chiSquareThreshold } from '../support/chiSquare';

const V = 5;
const STOP = V - 1;
const PROMPT = [0];
const TOKENS = 3;
/**
 * A lossless method's χ² sits near its df (about 55; threshold about 120) at any seed count; the verifier that
 * accepts every draft token grows with the count: 85,000 at 4,000 seeds, 288,000 at 12,000.
 */
const SAMPLES = 6_000;
const base = syntheticLogits({ V, seed: 11, closeness: 0.4, logitScale: 1.2 });
/** The stop token never appears, so every run emits exactly three tokens. */
const logits: LogitPair = {
  V,
  target: (prefix) => base.target(prefix).map((x, token) => (token === STOP ? -Infinity : x)),
  draft: (prefix) => base.draft(prefix).map((x, token) => (token === STOP ? -Infinity : x)),
};

/** The target's exact probability of every three-token continuation, indexed x0·V² + x1·V + x2. */
function exactLaw(): Float64Array {
  const law = new Float64Array(V ** TOKENS);
  const walk = (prefix: number[], probability: number) => {
    if (prefix.length === PROMPT.length + TOKENS) {
      const index = prefix.slice(PROMPT.length).reduce((acc, token) => acc * V + token, 0);
      law[index] = probability;
      return;
    }
    const row = logitsToProbs(logits.target(prefix), { temperature: 1 });
    row.forEach((p, token) => {
      if (p > 0) walk([...prefix, token], probability * p);
    });
  };
  walk([...PROMPT], 1);
  return law;
}

async function sampleCounts(
  method: DecodeMethod,
  verifier?: StepVerifier,
  drafter?: DrafterId,
  samples = SAMPLES,
): Promise<Float64Array> {
  const counts = new Float64Array(V ** TOKENS);
  for (let seed = 1; seed <= samples; seed++) {
    const { tokens } = await decode(new PrefixPairModels(logits), {
      method,
      K: 2,
      L: 2,
      sampling: { temperature: 1 },
      drafting: 'validate',
      seed,
      maxTokens: TOKENS,
      prompt: PROMPT,
      structure: null,
      detokenize: (ids) => ids.join(' '),
      stopTokenId: STOP,
      ...(verifier ? { verifier } : {}),
      ...(drafter ? { drafter } : {}),
    });
    expect(tokens).toHaveLength(TOKENS);
    const cell = tokens.reduce((acc, token) => acc * V + token, 0);
    counts[cell] = (counts[cell] as number) + 1;
  }
  return counts;
}

/** Accepts every draft token, then samples the bonus from the target: the draft's law, not the target's. */
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

/** Every output the masked target can write after `prompt`, to its stop token, with its probability. */
async function maskedTargetLaw(
  pair: LogitPair,
  grammar: CompiledSchema,
  prompt: readonly number[],
): Promise<Map<string, number>> {
  const law = new Map<string, number>();
  const matcher: SchemaMatcher = await grammar.matcher();
  const walk = async (output: number[], probability: number): Promise<void> => {
    if (output.at(-1) === JSON_STOP) {
      law.set(output.join(','), probability);
      return;
    }
    const row = logitsToProbs(pair.target([...prompt, ...output]), { temperature: 1 }, await matcher.mask());
    for (let token = 0; token < row.length; token++) {
      if ((row[token] as number) === 0) continue;
      expect(matcher.accept(token)).toBe(true);
      await walk([...output, token], probability * (row[token] as number));
      matcher.rollBack(1);
    }
  };
  await walk([], 1);
  matcher.dispose();
  return law;
}

/** The schema compiled over the raw vocabulary before a block's tests, and the masked target's law after `prompt`. */
function schemaFixture(schema: object, pair: LogitPair, prompt: readonly number[]) {
  const fixture = {} as { grammar: CompiledSchema; law: Map<string, number> };
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: JSON_VOCAB, vocabType: 'raw', stopTokenIds: [JSON_STOP] });
    fixture.grammar = await engine.compile(JSON.stringify(schema));
    fixture.law = await maskedTargetLaw(pair, fixture.grammar, prompt);
  });
  afterAll(() => {
    fixture.grammar.dispose();
    engine.dispose();
  });
  return fixture;
}

/** Whole outputs of the real decode() under a schema, over seeds 1..samples, and the tokens each source drafted. */
async function schemaOutputCounts(run: {
  pair: LogitPair;
  grammar: CompiledSchema;
  schema: object;
  prompt: readonly number[];
  method: DecodeMethod;
  drafter: DrafterId;
  samples: number;
  verifier?: StepVerifier;
}): Promise<Map<string, number> & { bySource?: Counters['bySource'][] }> {
  const counts: Map<string, number> & { bySource?: Counters['bySource'][] } = new Map<string, number>();
  counts.bySource = [];
  for (let seed = 1; seed <= run.samples; seed++) {
    const { tokens, ending, counters } = await decode(new PrefixPairModels(run.pair), {
      method: run.method,
      K: 3,
      L: 4,
      sampling: { temperature: 1 },
      drafting: 'validate',
      seed,
      maxTokens: 64,
      prompt: run.prompt,
      structure: { grammar: run.grammar, schema: run.schema, validate: ajvValidator },
      detokenize: decodeJson,
      tokenize: tokenizeJson,
      drafter: run.drafter,
      stopTokenId: JSON_STOP,
      ...(run.verifier ? { verifier: run.verifier } : {}),
    });
    expect(ending).toBe('stopped');
    counts.bySource.push(counters.bySource);
    const key = tokens.join(',');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** χ² of decode()'s outputs against the law, every output it wrote being one the law holds. */
function outputChiSquare(law: Map<string, number>, counts: Map<string, number>, samples: number) {
  for (const key of counts.keys()) expect(law.has(key), key).toBe(true);
  const outputs = [...law.keys()];
  return chiSquare(
    Float64Array.from(outputs, (key) => counts.get(key) ?? 0),
    Float64Array.from(outputs, (key) => law.get(key) as number),
    samples,
  );
}

describe(`the decode loop is lossless (first ${TOKENS} tokens, ${SAMPLES} seeds, χ² at α = 1e-6)`, () => {
  const law = exactLaw();

  // Without a schema ar+jump-forward has no forced text: it is ar (its test is the schema's, below).
  it.each(DECODE_METHODS.filter((method) => method !== 'ar+jump-forward'))(
    '%s follows the target’s sequence law',
    async (method) => {
      const { statistic, df } = chiSquare(await sampleCounts(method), law, SAMPLES);
      expect(df).toBeGreaterThan(10);
      expect(statistic).toBeLessThan(chiSquareThreshold(df));
    },
  );

  // Prompt lookup drafts with q = 1 wherever the last 1–3 tokens recur (often, with V = 5): fewer seeds per
  // method keep the test short; the exact proof is test/core/draftLaw.test.ts.
  it.each(DECODE_METHODS.filter((method) => !isBaseline(method)))(
    '%s with prompt lookup follows the target’s sequence law',
    async (method) => {
      const samples = SAMPLES / 4;
      const { statistic, df } = chiSquare(await sampleCounts(method, undefined, 'model+lookup', samples), law, samples);
      expect(df).toBeGreaterThan(10);
      expect(statistic).toBeLessThan(chiSquareThreshold(df));
    },
  );

  it('the same test rejects a verifier that accepts every draft token', async () => {
    const { statistic, df } = chiSquare(await sampleCounts('tokenwise', acceptEverything), law, SAMPLES);
    console.info(
      `a verifier that accepts every draft token: χ² ${statistic.toFixed(0)} on ${df} df, threshold ${chiSquareThreshold(df).toFixed(1)}`,
    );
    expect(statistic).toBeGreaterThan(chiSquareThreshold(df));
  });
});

// The schema's forced text, through the real decode(): whole outputs under a schema whose forced text a raw
// vocabulary spells two ways ("sentiment" or s·e·n·t·i·m·e·n·t; "true" or t·r·u·e), so the masked target
// weighs tokenizations of certain text. The law is the masked target's, enumerated with the grammar's own
// masks; the grammar drafter drafts the canonical (longest-token) spelling with q = 1, and ar+jump-forward
// scores it in one forward.
describe('the schema’s forced text keeps the decode loop lossless (whole outputs, χ² at α = 1e-6)', () => {
  const SCHEMA = {
    type: 'object',
    properties: { sentiment: { enum: ['positive', 'negative', 'neutral'] }, ok: { type: 'boolean' } },
    required: ['sentiment', 'ok'],
    additionalProperties: false,
  };
  const SCHEMA_SAMPLES = 500;
  const pair = syntheticLogits({ V: JSON_VOCAB.length, seed: 5, closeness: 0.5, logitScale: 1.5 });
  const fixture = schemaFixture(SCHEMA, pair, [JSON_STOP]);

  const schemaCounts = (method: DecodeMethod, drafter: DrafterId) =>
    schemaOutputCounts({
      pair,
      grammar: fixture.grammar,
      schema: SCHEMA,
      prompt: [JSON_STOP],
      method,
      drafter,
      samples: SCHEMA_SAMPLES,
    });

  it('the masked target spells the forced text more than one way, so appending its tokens outright would not be lossless', () => {
    let spelledOtherwise = 0;
    for (const [key, probability] of fixture.law) {
      const tokens = key
        .split(',')
        .map(Number)
        .filter((token) => token !== JSON_STOP);
      if (tokenizeJson(decodeJson(tokens)).join(',') !== tokens.join(',')) spelledOtherwise += probability;
    }
    expect(Math.abs([...fixture.law.values()].reduce((sum, p) => sum + p, 0) - 1)).toBeLessThan(1e-12);
    expect(spelledOtherwise).toBeGreaterThan(0.2);
  });

  it.each([
    // ar+jump-forward verifies its forced spans token-wise; SpecTr-GBV shares them among K drafts.
    ['ar+jump-forward', 'model'],
    ['spectr-gbv', 'model+grammar'],
  ] as const)('%s (%s) writes each output with the masked target’s probability', async (method, drafter) => {
    expect(fixture.law.size).toBeGreaterThanOrEqual(24);
    const { statistic, df } = outputChiSquare(fixture.law, await schemaCounts(method, drafter), SCHEMA_SAMPLES);
    expect(df).toBeGreaterThan(10);
    expect(statistic).toBeLessThan(chiSquareThreshold(df));
  });
});

// Values copied from the prompt (src/core/copyDraft.ts), through the real decode(): the prompt says "id: abb, ba"
// and the schema asks for an id of one to three a's and b's (and a boolean the raw vocabulary spells two ways).
// The copy drafter proposes "abb" at the id's first character, and after "b" the "a" of "ba", re-tokenized
// in place with q = 1; the law is the masked target's, enumerated with the grammar's own masks.
describe('copying from the prompt keeps the decode loop lossless (whole outputs, χ² at α = 1e-6)', () => {
  const SCHEMA = {
    type: 'object',
    properties: { id: { type: 'string', pattern: '^[ab]{1,3}$' }, ok: { type: 'boolean' } },
    required: ['id', 'ok'],
    additionalProperties: false,
  };
  const PROMPT_TEXT = 'id: abb, ba\n';
  const COPY_SAMPLES = 500;
  const pair = syntheticLogits({ V: JSON_VOCAB.length, seed: 8, closeness: 0.5, logitScale: 1.5 });
  const prompt = tokenizeJson(PROMPT_TEXT);
  const fixture = schemaFixture(SCHEMA, pair, prompt);

  const counts = (method: DecodeMethod, drafter: DrafterId, verifier?: StepVerifier) =>
    schemaOutputCounts({
      pair,
      grammar: fixture.grammar,
      schema: SCHEMA,
      prompt,
      method,
      drafter,
      samples: COPY_SAMPLES,
      ...(verifier ? { verifier } : {}),
    });

  describe.each(['copy', 'model+grammar+copy'] as const)('%s', (drafter) => {
    it.each(METHOD_IDS)('%s writes each output with the masked target’s probability', async (method) => {
      const observed = await counts(method, drafter);
      const copied = (observed.bySource ?? []).reduce(
        (sum, each) => ({ drafted: sum.drafted + each.copy.drafted, accepted: sum.accepted + each.copy.accepted }),
        { drafted: 0, accepted: 0 },
      );
      // Not vacuous: copies were drafted, and some kept, some not.
      expect(copied.accepted).toBeGreaterThan(COPY_SAMPLES / 4);
      expect(copied.drafted).toBeGreaterThan(copied.accepted);
      const { statistic, df } = outputChiSquare(fixture.law, observed, COPY_SAMPLES);
      expect(df).toBeGreaterThan(10);
      expect(statistic).toBeLessThan(chiSquareThreshold(df));
    });
  });

  it('the same test rejects copies appended without verification (a verifier that accepts every draft token)', async () => {
    const { statistic, df } = outputChiSquare(
      fixture.law,
      await counts('tokenwise', 'copy', acceptEverything),
      COPY_SAMPLES,
    );
    expect(statistic).toBeGreaterThan(chiSquareThreshold(df));
  });
});

// The draft head on the bundled pair (the int8 target's features, the trained head): the first two tokens
// through the real decode(), CachedPairModels and onnxruntime, against the target's own law of them. L = 1,
// so the second token is often drafted from the feature the first step's verification kept.
describe('the draft head keeps the decode loop lossless on the bundled pair (first 2 tokens, χ² at α = 1e-6)', () => {
  const HEAD_SAMPLES = 600;
  let pair: ModelPairHandle;
  let prompt: number[];
  beforeAll(async () => {
    pair = await bundledPair();
    prompt = pair.tokenizer.encode('Name: Ada\nAge:');
  });

  async function targetRow(prefix: readonly number[]): Promise<Float64Array> {
    const target = pair.target.session;
    const { logits } = await target.forward(prefix, 1, prefix.length, target.emptyCache(1));
    return logitsToProbs(logits.subarray((prefix.length - 1) * pair.target.session.shape.vocab), { temperature: 1 });
  }

  it.each(['tokenwise', 'spectr-gbv'] as const)('%s with the head follows the target’s law', async (method) => {
    const head = pair.head?.session;
    expect(head).toBeDefined();
    const counts = new Map<string, number>();
    let headTokens = 0;
    for (let seed = 1; seed <= HEAD_SAMPLES; seed++) {
      const models = new CachedPairModels(pair.draft.session, pair.target.session, pair.target.contextLength, {
        head: head as NonNullable<typeof head>,
      });
      const { tokens, counters } = await decode(models, {
        method,
        K: 2,
        L: 1,
        sampling: { temperature: 1 },
        drafting: 'validate',
        seed,
        maxTokens: 2,
        prompt,
        structure: null,
        detokenize: (ids) => ids.join(' '),
        drafter: 'head',
        stopTokenId: pair.tokenizer.stopTokenId,
      });
      headTokens += counters.bySource.head.drafted;
      const key = tokens.slice(0, 2).join(',');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(headTokens).toBeGreaterThan(HEAD_SAMPLES / 2);
    // Cells expected 5 times or more are exact; the rest are pooled (their probability is 1 minus the others').
    const first = await targetRow(prompt);
    const law: number[] = [];
    const observed: number[] = [];
    for (let x = 0; x < first.length; x++) {
      if ((first[x] as number) * HEAD_SAMPLES < 5 || x === pair.tokenizer.stopTokenId) continue;
      const second = await targetRow([...prompt, x]);
      second.forEach((p, y) => {
        if ((first[x] as number) * p * HEAD_SAMPLES < 5) return;
        law.push((first[x] as number) * p);
        observed.push(counts.get(`${x},${y}`) ?? 0);
      });
    }
    const explicit = law.reduce((sum, p) => sum + p, 0);
    law.push(1 - explicit);
    observed.push(HEAD_SAMPLES - observed.reduce((sum, n) => sum + n, 0));
    const { statistic, df } = chiSquare(Float64Array.from(observed), Float64Array.from(law), HEAD_SAMPLES);
    expect(df).toBeGreaterThan(10);
    expect(statistic).toBeLessThan(chiSquareThreshold(df));
  });
});
