/**
 * The exact rules that replace xgrammar's numeric bounds and numeric enums (exactRules.ts), checked
 * exhaustively: every output of up to a few characters the mask lets end is valid, and every valid one
 * (in the canonical form: no exponent, no leading zero, no "-0") is reachable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTokenAllowed } from '../../src/core/sampling';
import { GrammarEngine, type SchemaMatcher } from '../../src/grammar/engine';
import { patternMatches, planGrammar } from '../../src/grammar/exactRules';
import { SchemaError, checkSchema, hasNestedRepetition, measureSchema } from '../../src/grammar/schema';

const CHARS = [...'0123456789-.e+"ab\\'];
/** Single characters and pieces that cross a boundary: one enum literal being a prefix of another made xgrammar's matcher let "-21" through -20..10. */
const TOKENS = [...CHARS, '12', '-2', '20', '10', '00', '.5', '日本', 'true', 'null', '<stop>'];
const STOP = TOKENS.length - 1;

/** Every output of at most `limit` characters that the masks allow to end. */
async function reachable(
  matcher: SchemaMatcher,
  limit: number,
  prefix = '',
  found = new Set<string>(),
): Promise<Set<string>> {
  const mask = await matcher.mask();
  for (let token = 0; token < TOKENS.length; token++) {
    if (!isTokenAllowed(mask, token)) continue;
    if (token === STOP) {
      found.add(prefix);
      continue;
    }
    const text = prefix + (TOKENS[token] as string);
    if ([...text].length > limit) continue;
    expect(matcher.accept(token)).toBe(true);
    await reachable(matcher, limit, text, found);
    matcher.rollBack(1);
  }
  return found;
}

/** Every string over `alphabet` of 1..limit characters. */
function strings(alphabet: readonly string[], limit: number): string[] {
  const all: string[] = [];
  let level = [''];
  for (let length = 1; length <= limit; length++) {
    level = level.flatMap((prefix) => alphabet.map((char) => prefix + char));
    all.push(...level);
  }
  return all;
}

const canonical = (k: number) => new RegExp(`^-?(0|[1-9][0-9]*)${k > 0 ? `(\\.[0-9]{1,${k}})?` : ''}$`);
const within = (schema: Record<string, number>, value: number) =>
  !(
    value < (schema.minimum ?? -Infinity) ||
    value > (schema.maximum ?? Infinity) ||
    value <= (schema.exclusiveMinimum ?? -Infinity) ||
    value >= (schema.exclusiveMaximum ?? Infinity)
  );

describe('exact rules for what xgrammar gets wrong', () => {
  let engine: GrammarEngine;
  beforeAll(async () => {
    engine = await GrammarEngine.create({ tokens: TOKENS, vocabType: 'raw', stopTokenIds: [STOP] });
  });
  afterAll(() => engine.dispose());

  const languageOf = async (schema: object, limit: number) => {
    const compiled = await engine.compile(JSON.stringify(schema));
    const matcher = await compiled.matcher();
    try {
      return [...(await reachable(matcher, limit))].sort();
    } finally {
      matcher.dispose();
      compiled.dispose();
    }
  };

  it.each([
    { minimum: -20, maximum: 120 },
    { minimum: -1 },
    { exclusiveMinimum: -13, exclusiveMaximum: 7 },
    { maximum: -95 },
    { minimum: 990, maximum: 1005 },
    { minimum: 0, maximum: 0 },
  ])('bounded integers: exactly the integers in range, %j', async (bounds) => {
    const limit = 4;
    const expected = strings([...'0123456789-'], limit).filter(
      (text) => canonical(0).test(text) && text !== '-0' && within(bounds, Number(text)),
    );
    expect(await languageOf({ type: 'integer', ...bounds }, limit)).toEqual(expected.sort());
  });

  it.each([
    [{ minimum: 0.5, maximum: 3 }, 6],
    [{ exclusiveMinimum: -1.5, exclusiveMaximum: 0.25 }, 6],
    [{ minimum: 2.125, maximum: 2.5 }, 6],
    [{ minimum: -0.001 }, 6],
  ])('bounded numbers: exactly the decimals in range, without exponent, %j', async (bounds, k) => {
    const limit = 4;
    const expected = strings([...'0123456789-.'], limit).filter(
      (text) => canonical(k).test(text) && !/^-0(\.0*)?$/.test(text) && within(bounds, Number(text)),
    );
    expect(await languageOf({ type: 'number', ...bounds }, limit)).toEqual(expected.sort());
  });

  it('enums of integers: exactly the values listed (xgrammar let "-21", "11" and "12" through -20..10)', async () => {
    const values = Array.from({ length: 31 }, (_, i) => i - 20);
    expect(await languageOf({ enum: values }, 4)).toEqual(values.map(String).sort());
  });

  it('enums of strings and mixed scalars: exactly the JSON texts listed, values the rest of the schema refuses dropped', async () => {
    expect(await languageOf({ enum: ['a', 'ab', '日本', 'ab"'] }, 6)).toEqual(
      ['"a"', '"ab"', '"ab\\""', '"日本"'].sort(),
    );
    expect(await languageOf({ enum: [1, 10, 1.5, '1', true, null] }, 4)).toEqual(
      ['"1"', '1', '1.5', '10', 'null', 'true'].sort(),
    );
    expect(await languageOf({ type: 'integer', enum: [1, 10, 1.5, 100, 'x'], maximum: 50 }, 4)).toEqual(['1', '10']);
    expect(await languageOf({ type: 'string', enum: ['a', 'ab', 'abab'], maxLength: 2 }, 6)).toEqual(['"a"', '"ab"']);
  });

  it('refuses bounds no value fits, and an enum whose values the rest of the schema all refuse', () => {
    expect(() => planGrammar({ type: 'integer', minimum: 1.5, maximum: 1.9 })).toThrow(
      new SchemaError('$: no integer lies within its bounds'),
    );
    expect(() => planGrammar({ type: 'object', properties: { a: { enum: ['abc'], maxLength: 2 } } })).toThrow(
      '$.properties.a: no value of its enum passes the rest of its schema',
    );
  });

  it('lists bounds as not enforced only where no exact rule replaces them', () => {
    expect(checkSchema({ type: 'integer', minimum: -1, maximum: 9 })).toEqual([]);
    expect(checkSchema({ type: 'number', exclusiveMinimum: 0 })).toEqual([]);
    expect(checkSchema({ type: ['integer', 'null'], minimum: 3 })).toEqual(['$: minimum (not enforced by the mask)']);
    const plan = planGrammar({
      type: 'object',
      properties: { a: { type: ['integer', 'null'], minimum: 3 }, b: { type: 'integer', maximum: 3 } },
    });
    expect(plan.schema).toEqual({
      type: 'object',
      properties: { a: { type: ['integer', 'null'] }, b: { const: 'speclab_0_placeholder' } },
    });
  });
});

describe("an enum value tested against its sub-schema's pattern", () => {
  const evil = `${'a'.repeat(36)}!`;

  it('is matched by RE2 in linear time: ^(a+)+$ against 36 a\'s and a "!" answers, and the enum keeps only the values that match', () => {
    expect(patternMatches('^(a+)+$', evil)).toBe(false);
    expect(patternMatches('^(a+)+$', 'aaa')).toBe(true);
    expect(patternMatches('\\u00e9$', 'caf\u00e9')).toBe(true);
    const plan = planGrammar({ type: 'string', pattern: '^(a+)+$', enum: [evil, 'aaa'] });
    expect(plan.lines.join('\n')).toContain('aaa');
    expect(plan.lines.join('\n')).not.toContain('!');
    expect(() =>
      planGrammar({ type: 'object', properties: { x: { type: 'string', pattern: '^(a+)+$', enum: [evil] } } }),
    ).toThrow('$.properties.x: no value of its enum passes the rest of its schema');
  });

  it('names a pattern RE2 cannot read', () => {
    expect(() => patternMatches('^(?=a)a$', 'a')).toThrow(SchemaError);
    expect(() => patternMatches('^(?=a)a$', 'a')).toThrow(
      /^the pattern "\^\(\?=a\)a\$" cannot be matched in linear time \(/,
    );
  });

  it('finds the nested repetition that a compile past its budget is blamed on', () => {
    expect(['^(a+)+$', '(\\w*x)*', '(a{2,})+'].map(hasNestedRepetition)).toEqual([true, true, true]);
    expect(['^[a-z]+$', '(ab){2}', '\\(a+\\)+', '^(foo|bar)+$'].map(hasNestedRepetition)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(
      measureSchema({ type: 'object', properties: { x: { type: 'string', pattern: '^(a+)+$' } } }).nestedRepetition,
    ).toBe('^(a+)+$');
  });
});
