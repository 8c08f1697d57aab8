import { describe, expect, it } from 'vitest';
import { schemaForGrammar } from '../../src/grammar/schema';

describe('schemaForGrammar: the schema as xgrammar is given it', () => {
  it('an integer with a negative bound loses its bounds (xgrammar’s range grammar admits a lone "-"), nested or not; the input is untouched', () => {
    const schema = { type: 'object', properties: { a: { type: 'array', items: { type: 'integer', minimum: -1 } } } };
    expect(schemaForGrammar(schema)).toEqual({ type: 'object', properties: { a: { type: 'array', items: { type: 'integer' } } } });
    expect(schema.properties.a.items).toEqual({ type: 'integer', minimum: -1 });
  });

  it('non-negative integer bounds and number bounds stay xgrammar’s', () => {
    const schema = { anyOf: [{ type: 'integer', minimum: 0, maximum: 50 }, { type: 'number', minimum: -8.5 }] };
    expect(schemaForGrammar(schema)).toEqual(schema);
  });
});
