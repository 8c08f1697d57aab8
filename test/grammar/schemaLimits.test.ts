/** Schemas the grammar compiler or the validators cannot digest get a message naming the problem and the limit. */
import { describe, expect, it } from 'vitest';
import { SCHEMA_LIMITS } from '../../src/contract/limits';
import { ajvValidator } from '../support/ajvValidator';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import {
  SchemaError,
  checkSchema,
  groupDepth,
  measureSchema,
  parseSchemaText,
  shortestOutputBytes,
} from '../../src/grammar/schema';
import { scoreOutput } from '../../src/grammar/score';

const nested = (levels: number) => {
  let schema: object = { type: 'string' };
  for (let i = 1; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
};
const wide = (properties: number) => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`p${i}`, { type: 'integer' }])),
});

describe('schema limits', () => {
  it('refuses `true` and `false` by name, instead of a weak-map error from the compiler', () => {
    expect(() => checkSchema(parseSchemaText('true'))).toThrow(
      new SchemaError(
        'the schema is `true`, which allows any JSON value: give an object schema such as {"type": "object"}, or choose "No schema (free text)"',
      ),
    );
    expect(() => checkSchema(false)).toThrow(/allows no value at all/);
  });

  it('refuses 1000-level nesting with the depth limit, measured without recursion', () => {
    expect(measureSchema(nested(SCHEMA_LIMITS.nestingDepth)).depth).toBe(SCHEMA_LIMITS.nestingDepth);
    expect(checkSchema(nested(SCHEMA_LIMITS.nestingDepth))).toEqual([]);
    expect(() => checkSchema(nested(SCHEMA_LIMITS.nestingDepth + 1))).toThrow(
      `the schema nests more than ${SCHEMA_LIMITS.nestingDepth} levels deep; the limit is ${SCHEMA_LIMITS.nestingDepth} levels of nesting`,
    );
    const text = `${'{"type":"object","properties":{"a":'.repeat(1000)}{"type":"string"}${'}}'.repeat(1000)}`;
    expect(() => checkSchema(parseSchemaText(text))).toThrow(/nests more than 32 levels deep/);
  });

  it('counts properties over the whole schema and refuses past the limit', () => {
    expect(measureSchema(wide(10_000)).properties).toBe(10_000);
    expect(() => checkSchema(wide(10_000))).not.toThrow();
    expect(() => checkSchema(wide(SCHEMA_LIMITS.properties + 1))).toThrow(
      'the schema has 20,001 properties; the limit is 20,000',
    );
  });

  it('refuses a huge enum with the enum limit', () => {
    const values = Array.from({ length: SCHEMA_LIMITS.enumValues + 1 }, (_, i) => `v${i}`);
    expect(() => checkSchema({ type: 'object', properties: { x: { enum: values } } })).toThrow(
      'an enum in the schema lists 10,001 values; the limit is 10,000',
    );
  });
});

describe('endings named precisely', () => {
  it('an output cut by a full context says so, not "max tokens"', () => {
    const schema = { type: 'object', properties: { s: { type: 'string', minLength: 500 } } };
    const verdict = scoreOutput(ajvValidator, schema, '{"s": "aaaa', 'context-full');
    expect(verdict).toMatchObject({
      kind: 'truncated',
      reason: expect.stringMatching(/^the models' context filled up mid-JSON: /),
    });
    expect(scoreOutput(ajvValidator, schema, '{"s": "aaaa', 'max-tokens')).toMatchObject({
      reason: expect.stringMatching(/^max tokens reached mid-JSON/),
    });
    expect(scoreOutput(ajvValidator, schema, '{"s": "aaaa', 'cancelled')).toMatchObject({
      reason: expect.stringMatching(/^the run was cancelled mid-JSON/),
    });
  });
});

describe('hostile schemas within the plain limits', () => {
  const chain = (levels: number, combinator: 'anyOf' | 'allOf' | 'oneOf', refsEach: number) => ({
    type: 'object',
    properties: { v: { $ref: '#/$defs/a0' } },
    $defs: Object.fromEntries(
      Array.from({ length: levels }, (_, i) => [
        `a${i}`,
        i === levels - 1
          ? { type: 'integer' }
          : { [combinator]: Array.from({ length: refsEach }, () => ({ $ref: `#/$defs/a${i + 1}` })) },
      ]),
    ),
  });

  it('refuses $defs that each reference the next twice (2 KB expanding to 2^31 sub-schemas) before any validator walks them', () => {
    const schema = chain(31, 'anyOf', 2);
    expect(JSON.stringify(schema).length).toBeLessThan(3000);
    expect(() => checkSchema(schema)).toThrow(
      'the schema, with its $refs written out, has more than 100,000 sub-schemas; the limit is 100,000',
    );
  });

  it("bounds the worker's output check: the 2^31 chain, and 200 items against a 2^13 expansion within the limits (~10 s before), are abandoned with a message", () => {
    const abandoned = {
      kind: 'invalid',
      reason: expect.stringMatching(
        /^output check abandoned after \d+ ms: checking this output against the schema took more than 5,000,000 steps/,
      ),
    };
    // Refused by checkSchema, but the check itself must not hang the worker if such a schema reaches it.
    expect(scoreOutput(interpretedValidator, chain(31, 'anyOf', 2), '{"v": 1}', 'stopped')).toEqual(abandoned);
    const items = { ...chain(14, 'anyOf', 2), properties: { v: { type: 'array', items: { $ref: '#/$defs/a0' } } } };
    expect(() => checkSchema(items)).not.toThrow();
    expect(
      scoreOutput(interpretedValidator, items, JSON.stringify({ v: Array.from({ length: 200 }, () => 1) }), 'stopped'),
    ).toEqual(abandoned);
    // The validator still works for the next output, on the same schema.
    expect(scoreOutput(interpretedValidator, chain(6, 'anyOf', 2), '{"v": 1}', 'stopped')).toEqual({ kind: 'valid' });
    expect(scoreOutput(interpretedValidator, chain(6, 'anyOf', 2), '{"v": "x"}', 'stopped')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/Instance type "string" is invalid/),
    });
  });

  it('refuses a long allOf/oneOf $ref chain with the expanded depth limit, not a stack overflow', () => {
    expect(() => checkSchema(chain(2000, 'allOf', 1))).toThrow(
      `nests more than ${SCHEMA_LIMITS.expandedDepth} levels deep`,
    );
    expect(() => checkSchema(chain(2000, 'oneOf', 1))).toThrow(/with its \$refs written out, nests more than 128/);
  });

  it('keeps small shared $defs and recursive schemas', () => {
    expect(() => checkSchema(chain(6, 'anyOf', 2))).not.toThrow();
    const tree = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
    };
    expect(() => checkSchema(tree)).not.toThrow();
  });

  it('counts `not` and `if` in the nesting depth (5,000 nested `not`s are refused before xgrammar)', () => {
    let schema: object = { type: 'string' };
    for (let i = 0; i < 5000; i++) schema = { not: schema };
    expect(() => checkSchema({ type: 'object', properties: { x: schema } })).toThrow(/nests more than 32 levels deep/);
    let conditional: object = { type: 'string' };
    for (let i = 0; i < 100; i++) conditional = { if: conditional };
    expect(() => checkSchema(conditional)).toThrow(/nests more than 32 levels deep/);
  });

  it('refuses a pattern whose groups nest past the limit (a 10 KB regex of 5,000 nested groups overflowed xgrammar), wherever it is', () => {
    const groups = (levels: number) => `${'('.repeat(levels)}a${')'.repeat(levels)}`;
    const withPattern = (pattern: string) => ({ type: 'object', properties: { x: { type: 'string', pattern } } });
    expect(() => checkSchema(withPattern(groups(5000)))).toThrow(
      new SchemaError('a pattern in the schema nests its groups 5,000 levels deep; the limit is 32'),
    );
    expect(() =>
      checkSchema({
        type: 'object',
        $defs: { d: { type: 'object', patternProperties: { [groups(33)]: { type: 'string' } } } },
      }),
    ).toThrow(/nests its groups 33 levels deep/);
    expect(() =>
      checkSchema({ type: 'array', items: { type: 'object', propertyNames: { pattern: groups(40) } } }),
    ).toThrow(/nests its groups 40 levels deep/);
    expect(checkSchema(withPattern(groups(SCHEMA_LIMITS.patternGroupDepth)))).toEqual([]);
  });

  it.each([
    ['^[a-z]+(-[a-z]+)*$', 1],
    ['((a)(b))|(c)', 2],
    ['\\((\\()\\)', 1],
    ['[(((]((a))', 2],
    ['[\\](((]x', 0],
    ['(?:(?=a)b)', 2],
  ])('reads the group depth of %s as %i (escapes and character classes are not groups)', (pattern, depth) => {
    expect(groupDepth(pattern)).toBe(depth);
  });

  const withName = (name: string) =>
    JSON.parse(`{"type":"object","properties":{${JSON.stringify(name)}:{"type":"string"}}}`) as unknown;

  it.each(['a"b', 'a\\b', 'a\u0000b', 'x\ny'])(
    'carries the property name %j (renamed for xgrammar: test/grammar/propertyNames.test.ts)',
    (name) => {
      expect(checkSchema(withName(name))).toEqual([]);
    },
  );

  it('refuses __proto__ and a name with a lone surrogate half, which no output can write', () => {
    expect(() => checkSchema(withName('__proto__'))).toThrow(
      new SchemaError(
        '$.properties: the property name "__proto__" is not allowed: an object built from the schema would take it as its prototype',
      ),
    );
    expect(() => checkSchema(withName('a\ud800'))).toThrow(
      '$.properties: the property name "a\\ud800" holds a lone surrogate half, which no output can write',
    );
  });
});

/** Dead-end schemas (hostile round four): the 90-byte anyOf loop overflowed the output check's stack. */
const DEAD_ENDS: [string, string, RegExp][] = [
  [
    'the 90-byte anyOf loop',
    '{"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/x"},{"type":"object"}]}},"$ref":"#/$defs/x"}',
    /refers back to itself without reading into the value \(\$\.\$defs\.x → \$\.\$defs\.x\.anyOf\[0\] → \$\.\$defs\.x\)/,
  ],
  ['{"$ref":"#"}', '{"$ref":"#"}', /refers back to itself without reading into the value \(\$ → \$\)/],
  [
    'a → b → a',
    '{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}',
    /\(\$\.\$defs\.a → \$\.\$defs\.b → \$\.\$defs\.b\.allOf\[0\] → \$\.\$defs\.a\)/,
  ],
  [
    'a required property that requires itself',
    '{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"]}',
    /^\$ allows no value an output could finish/,
  ],
  [
    'an optional property whose $defs entry requires itself',
    '{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"},"minItems":1}}}',
    /^\$\.properties\.a allows no value an output could finish/,
  ],
  [
    'a missing $ref',
    '{"type":"object","properties":{"a":{"$ref":"#/$defs/y"}}}',
    /^\$\.properties\.a: \$ref "#\/\$defs\/y" points at nothing in the schema$/,
  ],
  ['a malformed %-escape in a $ref', '{"type":"object","properties":{"a":{"$ref":"#/%E0"}}}', /points at nothing/],
  [
    'a $ref outside the schema',
    '{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}',
    /is not a reference inside this schema/,
  ],
];

describe('dead-end schemas, refused before decoding', () => {
  it.each(DEAD_ENDS)('refuses %s in one line, naming where', (_, text, message) => {
    let refusal: unknown;
    try {
      checkSchema(parseSchemaText(text));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SchemaError);
    expect((refusal as Error).message).toMatch(message);
    expect((refusal as Error).message).not.toContain('\n');
  });

  it('keeps recursion that reads into the value, and a way out of it', () => {
    const tree =
      '{"$defs":{"n":{"anyOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/n"},"minItems":1}]}},"$ref":"#/$defs/n"}';
    expect(checkSchema(parseSchemaText(tree))).toEqual([]);
    expect(checkSchema({ type: 'object', properties: { a: { $ref: '#' } } })).toEqual([]);
    expect(checkSchema({ type: 'array', items: { $ref: '#' } })).toEqual([]);
  });

  it("abandons the output check on an output nested past the validator's stack, saying so (a hostile server's [[[…]]])", () => {
    const schema = {
      $defs: { n: { anyOf: [{ type: 'null' }, { type: 'array', items: { $ref: '#/$defs/n' } }] } },
      $ref: '#/$defs/n',
    };
    expect(checkSchema(schema)).toEqual([]);
    expect(interpretedValidator(schema, JSON.parse('[[[null]]]'))).toBeNull();
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(interpretedValidator(schema, deep)).toBe(
      'output check abandoned: the output nests 100000 levels deep, deeper than the check can follow, so the output is unchecked',
    );
    expect(interpretedValidator(schema, JSON.parse('[[[null]]]'))).toBeNull();
  });
});

describe('the shortest output a schema allows, a lower bound in bytes', () => {
  it.each([
    [
      {
        type: 'object',
        properties: { name: { type: 'string', minLength: 3 }, age: { type: 'integer' } },
        required: ['name', 'age'],
      },
      '{"name": "abc", "age": 0}'.length,
    ],
    [
      {
        type: 'object',
        properties: { tags: { type: 'array', items: { enum: ['ab', 'a'] }, minItems: 2 } },
        required: ['tags'],
      },
      '{"tags": ["a", "a"]}'.length,
    ],
    [{ type: 'object', properties: { a: { type: 'string', minLength: 9 } } }, '{}'.length],
    [{ anyOf: [{ type: 'null' }, { type: 'boolean' }, { const: 7 }] }, 1],
    [{ type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] }, '{"child": 0}'.length],
  ])('%j: %i bytes', (schema, bytes) => {
    expect(shortestOutputBytes(schema)).toBe(bytes);
  });
});
