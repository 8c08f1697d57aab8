import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countDraftTokens } from '../../src/core/metrics';
import { isTokenAllowed, maskWordCount } from '../../src/core/sampling';
import { advanceOverEmitted, checkDrafts, GrammarDeadEndError } from '../../src/grammar/draftMasks';
import { GrammarEngine, type CompiledSchema, type SchemaMatcher } from '../../src/grammar/engine';
import { SMALL_VOCAB, STOP } from '../support/smallVocab';

const V = SMALL_VOCAB.length;
const W = maskWordCount(V);
const ids = (...pieces: string[]) => pieces.map((piece) => SMALL_VOCAB.indexOf(piece));

describe('checkDrafts: masks at every position, the invalid tail, and a matcher left where it was', () => {
  let engine: GrammarEngine;
  let compiled: CompiledSchema;
  let matcher: SchemaMatcher;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: SMALL_VOCAB, vocabType: 'raw', stopTokenIds: [STOP] });
    compiled = await engine.compile('{"enum": ["positive", "negative", "neutral"]}');
  });
  // checkDrafts leaves the last draft walked, so every test starts from a fresh matcher.
  beforeEach(async () => {
    matcher = await compiled.matcher();
  });
  afterEach(() => matcher.dispose());
  afterAll(() => {
    compiled.dispose();
    engine.dispose();
  });

  /** The mask after `tokens`, from a matcher of its own. */
  const maskAfter = async (tokens: number[]) => {
    const fresh = await compiled.matcher();
    for (const token of tokens) expect(fresh.accept(token)).toBe(true);
    const mask = await fresh.mask();
    fresh.dispose();
    return mask;
  };

  // Draft 0 is valid throughout; draft 1 turns invalid at position 2; draft 2 at position 0.
  const drafts = Int32Array.from([
    ...ids('"', 'pos', 'itive', '"'),
    ...ids('"', 'neg', 'x', 'ative'),
    ...ids('{', '"', 'pos', 'itive'),
  ]);

  it('finds each draft’s first invalid token, and counts the tail in I exactly', async () => {
    const { validLengths } = await checkDrafts(matcher, drafts, 3, 4, V);
    expect(validLengths).toEqual([4, 2, 0]);
    expect(countDraftTokens(drafts, 3, 4, validLengths, 4)).toMatchObject({ proposed: 12, invalidated: 6 });
  });

  it('records the mask after every valid prefix, the bonus position included', async () => {
    const { masks } = await checkDrafts(matcher, drafts, 3, 4, V);
    const row = (k: number, j: number) => masks.subarray((k * 5 + j) * W, (k * 5 + j + 1) * W);
    const allowed = (k: number, j: number) => SMALL_VOCAB.filter((_, t) => isTokenAllowed(row(k, j), t));
    expect(allowed(0, 0)).toEqual(['"', '"positive"']);
    expect(allowed(0, 2)).toEqual(['i', 'itive']);
    expect(allowed(0, 4)).toEqual(['</s>']);
    expect(allowed(1, 2)).toEqual(['a', 'ative']);
    // Past the invalid token the rows are unreachable, and repeat the last reachable mask.
    expect(row(1, 3)).toEqual(row(1, 2));
    expect(row(2, 4)).toEqual(row(2, 0));
  });

  it.each([
    ['the last draft, fully', 2, ids('"', 'neg', 'ative', '"', '</s>')],
    ['the last draft, in part', 2, ids('"', 'neg', 'ative')],
    ['the last draft, none of it', 2, ids('"')],
    ['an earlier draft', 0, ids('"', 'pos', 'itive')],
  ])('advanceOverEmitted leaves the matcher after exactly the emitted tokens: %s', async (_case, draft, emitted) => {
    // Draft 2, the last, is valid throughout, so checkDrafts leaves all four of its tokens walked.
    const valid = Int32Array.from([
      ...ids('"', 'pos', 'itive', '"'),
      ...ids('"', 'neg', 'x', 'ative'),
      ...ids('"', 'neg', 'ative', '"'),
    ]);
    const check = await checkDrafts(matcher, valid, 3, 4, V);
    expect(check.lastDraftWalked).toBe(4);
    advanceOverEmitted(matcher, check, [0, 0, 0], { draft, tokens: emitted });
    const terminated = emitted.at(-1) === STOP;
    expect(matcher.isTerminated()).toBe(terminated);
    if (!terminated) expect(await matcher.mask()).toEqual(await maskAfter(emitted));
  });

  it('advanceOverEmitted refuses a token the grammar forbids', async () => {
    const check = await checkDrafts(matcher, drafts, 3, 4, V);
    expect(() => advanceOverEmitted(matcher, check, [0, 0, 0], { draft: 0, tokens: ids('"', 'x') })).toThrow(
      /target was not masked/,
    );
  });

  it.each([
    ['before the window', 0, [4, 2, 0]],
    ['inside the window', 2, [4, 4, 2]],
    ['after the window', 5, [4, 4, 4]],
  ])('a constraint that begins %s applies from that position on', async (_where, start, expected) => {
    // Drafts whose free-text part is arbitrary and whose constrained part is '"pos…' (valid) or junk.
    const window = Int32Array.from([
      ...ids('x', '{', '"', 'pos'),
      ...ids('x', 'x', '"', 'neg'),
      ...ids('{', 'x', 'x', '"'),
    ]);
    const { masks, validLengths } = await checkDrafts(matcher, start === 0 ? drafts : window, 3, 4, V, [
      start,
      start,
      start,
    ]);
    expect(validLengths).toEqual(expected);
    const row = (k: number, j: number) => masks.subarray((k * 5 + j) * W, (k * 5 + j + 1) * W);
    // Free-text positions allow every token; the first constrained one allows what the grammar allows.
    for (let j = 0; j < Math.min(start, 5); j++)
      expect(SMALL_VOCAB.every((_, t) => isTokenAllowed(row(0, j), t))).toBe(true);
    if (start <= 4) expect(SMALL_VOCAB.filter((_, t) => isTokenAllowed(row(0, start), t))).toEqual(['"', '"positive"']);
  });

  it('explains a grammar dead end instead of masking every token', async () => {
    const deadEnd = {
      mask: () => Promise.resolve(new Int32Array(W)),
      accept: () => false,
      rollBack: () => undefined,
    } as unknown as SchemaMatcher;
    await expect(checkDrafts(deadEnd, drafts, 3, 4, V)).rejects.toBeInstanceOf(GrammarDeadEndError);
  });

  it('rejects drafts of the wrong shape', async () => {
    await expect(checkDrafts(matcher, new Int32Array(5), 3, 4, V)).rejects.toThrow(/expected K×L = 12/);
  });
});
