/**
 * Property names of any text: a quote, a backslash or a control character would break xgrammar's grammar
 * text, so such a name reaches it as a placeholder, and the grammar spells the name JSON-escaped
 * (exactRules.ts). Every mask (target, drafts, jump-forward string, byte guard) lets exactly that key through,
 * and the output passes the output check against the schema as written.
 */
import { getEncoding } from 'js-tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokenAllowed } from '../../src/core/sampling';
import { checkDrafts } from '../../src/grammar/draftMasks';
import { GrammarEngine } from '../../src/grammar/engine';
import { planGrammar } from '../../src/grammar/exactRules';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import { scoreOutput } from '../../src/grammar/score';
import { ajvValidator } from '../support/ajvValidator';
import { gpt2Vocabulary } from '../support/gpt2Vocab';

const NAMES = ['a"b', 'c\\d', 'x\u0000y', 'tab\there', 'del\u007f', '日本\u2028'];
/** One token per character: printable ASCII, DEL, the characters above, and a stop token. */
const CHARS = [...Array.from({ length: 0x60 }, (_, i) => String.fromCharCode(0x20 + i)), '日', '本', '\u2028'];
const STOP = CHARS.length;

const oneKey = (name: string) => ({ type: 'object', properties: { [name]: { const: 1 } }, required: [name] });
/** The one output the schema allows, in the grammar's layout. */
const only = (name: string) => `{${JSON.stringify(name)}: 1}`;

describe('property names of any text', () => {
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: [...CHARS, '<stop>'], vocabType: 'raw', stopTokenIds: [STOP] });
  });
  afterAll(() => engine.dispose());

  /** Walks `output` character by character, expecting each to be the only token the mask allows, then the stop token. */
  const walkOnly = async (schema: object, output: string) => {
    const compiled = await engine.compile(JSON.stringify(schema));
    const matcher = await compiled.matcher();
    try {
      const chars = [...output];
      for (const [i, char] of chars.entries()) {
        const mask = await matcher.mask();
        const allowed = CHARS.filter((_, token) => isTokenAllowed(mask, token));
        expect(allowed, `after ${JSON.stringify(chars.slice(0, i).join(''))}`).toEqual([char]);
        expect(matcher.accept(CHARS.indexOf(char))).toBe(true);
      }
      expect(isTokenAllowed(await matcher.mask(), STOP)).toBe(true);
    } finally {
      matcher.dispose();
      compiled.dispose();
    }
  };

  it.each(NAMES)('%j: the grammar allows exactly the JSON-escaped key, and the output checks valid', async (name) => {
    await walkOnly(oneKey(name), only(name));
    for (const validate of [interpretedValidator, ajvValidator])
      expect(scoreOutput(validate, oneKey(name), only(name), 'stopped')).toEqual({ kind: 'valid' });
    expect(Object.keys(JSON.parse(only(name)) as object)).toEqual([name]);
  });

  it('jump-forward decoding spells the escaped key', async () => {
    const compiled = await engine.compile(JSON.stringify(oneKey('a"b\\c\u0001')));
    const matcher = await compiled.matcher();
    expect(matcher.forcedString()).toBe(only('a"b\\c\u0001'));
    matcher.dispose();
    compiled.dispose();
  });

  it('renames them in properties, required and $refs, beside exact rules, and restores them in the grammar', async () => {
    const schema = {
      type: 'object',
      properties: { 'q"': { enum: [1, 10] }, plain: { type: 'boolean' }, 'r\\': { $ref: '#/properties/q%22' } },
      required: ['q"', 'plain', 'r\\'],
      not: { properties: { 'n"': { enum: [2] } }, required: ['n"'] },
    };
    const plan = planGrammar(schema);
    expect(plan.schema).toEqual({
      type: 'object',
      properties: {
        speclab_key0: { const: 'speclab_0_placeholder' },
        plain: { type: 'boolean' },
        speclab_key1: { $ref: '#/properties/speclab_key0' },
      },
      required: ['speclab_key0', 'plain', 'speclab_key1'],
      // xgrammar ignores `not`: its names are renamed, but no exact rule is written there.
      not: { properties: { speclab_key2: { enum: [2] } }, required: ['speclab_key2'] },
    });
    expect(plan.keys.map(({ escaped }) => escaped)).toEqual([
      '"\\"q\\\\\\"\\""',
      '"\\"r\\\\\\\\\\""',
      '"\\"n\\\\\\"\\""',
    ]);
    const output = '{"q\\"": 10, "plain": true, "r\\\\": 1}';
    expect(scoreOutput(interpretedValidator, schema, output, 'stopped')).toEqual({ kind: 'valid' });
    const compiled = await engine.compile(JSON.stringify(schema));
    const matcher = await compiled.matcher();
    for (const char of output) expect(matcher.accept(CHARS.indexOf(char)), `at ${char}`).toBe(true);
    expect(isTokenAllowed(await matcher.mask(), STOP)).toBe(true);
    // The key unescaped is refused at its quote.
    matcher.rollBack(output.length);
    for (const char of '{"q') expect(matcher.accept(CHARS.indexOf(char))).toBe(true);
    expect(isTokenAllowed(await matcher.mask(), CHARS.indexOf('"'))).toBe(false);
    matcher.dispose();
    compiled.dispose();
  });

  it('keeps patternProperties and propertyNames as they were', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^"': { type: 'string' } },
      propertyNames: { pattern: '^[a"]+$' },
    };
    expect(planGrammar(schema)).toMatchObject({ schema, keys: [] });
  });

  it("lets GPT-2's byte-level drafts through the escaped keys (draft masks and byte guard)", async () => {
    const { tokens, stopTokenIds } = gpt2Vocabulary();
    const gpt2 = await GrammarEngine.create({ tokens, vocabType: 'byte_level', stopTokenIds });
    const encoding = getEncoding('gpt2');
    try {
      for (const name of NAMES) {
        const compiled = await gpt2.compile(JSON.stringify(oneKey(name)));
        const matcher = await compiled.matcher();
        const draft = [...encoding.encode(only(name)), stopTokenIds[0] as number];
        const { validLengths } = await checkDrafts(matcher, Int32Array.from(draft), 1, draft.length, tokens.length);
        expect(validLengths, JSON.stringify(name)).toEqual([draft.length]);
        matcher.dispose();
        compiled.dispose();
      }
    } finally {
      gpt2.dispose();
    }
  });
});
