/** Schemas the grammar compiler or the validators cannot digest get a message naming the problem and the limit. */
import { describe, expect, it } from 'vitest';
import { SCHEMA_LIMITS } from '../../src/contract/limits';
import { ajvValidator } from '../../src/grammar/ajvValidator';
import { SchemaError, checkSchema, measureSchema, parseSchemaText } from '../../src/grammar/schema';
import { scoreOutput } from '../../src/grammar/score';

const nested = (levels: number) => {
  let schema: object = { type: 'string' };
  for (let i = 1; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
};
const wide = (properties: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`p${i}`, { type: 'integer' }])) });

describe('schema limits', () => {
  it('refuses `true` and `false` by name, instead of a weak-map error from the compiler', () => {
    expect(() => checkSchema(parseSchemaText('true'))).toThrow(new SchemaError('the schema is `true`, which allows any JSON value: give an object schema such as {"type": "object"}, or choose "No schema (free text)"'));
    expect(() => checkSchema(false)).toThrow(/allows no value at all/);
  });

  it('refuses 1000-level nesting with the depth limit, measured without recursion', () => {
    expect(measureSchema(nested(SCHEMA_LIMITS.nestingDepth)).depth).toBe(SCHEMA_LIMITS.nestingDepth);
    expect(checkSchema(nested(SCHEMA_LIMITS.nestingDepth))).toEqual([]);
    expect(() => checkSchema(nested(SCHEMA_LIMITS.nestingDepth + 1))).toThrow(`the schema nests more than ${SCHEMA_LIMITS.nestingDepth} levels deep; the limit is ${SCHEMA_LIMITS.nestingDepth} levels of nesting`);
    const text = `${'{"type":"object","properties":{"a":'.repeat(1000)}{"type":"string"}${'}}'.repeat(1000)}`;
    expect(() => checkSchema(parseSchemaText(text))).toThrow(/nests more than 32 levels deep/);
  });

  it('counts properties over the whole schema and refuses past the limit', () => {
    expect(measureSchema(wide(10_000)).properties).toBe(10_000);
    expect(() => checkSchema(wide(10_000))).not.toThrow();
    expect(() => checkSchema(wide(SCHEMA_LIMITS.properties + 1))).toThrow('the schema has 20,001 properties; the limit is 20,000');
  });

  it('refuses a huge enum with the enum limit', () => {
    const values = Array.from({ length: SCHEMA_LIMITS.enumValues + 1 }, (_, i) => `v${i}`);
    expect(() => checkSchema({ type: 'object', properties: { x: { enum: values } } })).toThrow('an enum in the schema lists 10,001 values; the limit is 10,000');
  });
});

describe('endings named precisely', () => {
  it('an output cut by a full context says so, not "max tokens"', () => {
    const schema = { type: 'object', properties: { s: { type: 'string', minLength: 500 } } };
    const verdict = scoreOutput(ajvValidator, schema, '{"s": "aaaa', 'context-full');
    expect(verdict).toMatchObject({ kind: 'truncated', reason: expect.stringMatching(/^the models' context filled up mid-JSON: /) });
    expect(scoreOutput(ajvValidator, schema, '{"s": "aaaa', 'max-tokens')).toMatchObject({ reason: expect.stringMatching(/^max tokens reached mid-JSON/) });
    expect(scoreOutput(ajvValidator, schema, '{"s": "aaaa', 'cancelled')).toMatchObject({ reason: expect.stringMatching(/^the run was cancelled mid-JSON/) });
  });
});
