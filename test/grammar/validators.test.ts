import { describe, expect, it } from 'vitest';
import { ajvValidator } from '../support/ajvValidator';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import { generateCorpus } from '../../tools/train/corpus';

describe('the browser validator (interpreting, no eval) agrees with ajv', () => {
  const records = generateCorpus(5, 100);

  it('on every corpus record (presets and custom schemas), and on broken versions of them', () => {
    for (const record of records) {
      const { schema } = record;
      const value = JSON.parse(record.json) as Record<string, unknown>;
      expect(interpretedValidator(schema, value)).toBeNull();
      expect(ajvValidator(schema, value)).toBeNull();
      const [firstKey] = Object.keys(value);
      const broken: [string, unknown][] = [
        ['a missing required property', Object.fromEntries(Object.entries(value).slice(1))],
        ['a property of the wrong type', { ...value, [firstKey as string]: [] }],
        ['an array instead of an object', [value]],
      ];
      for (const [what, candidate] of broken) {
        expect(interpretedValidator(schema, candidate), what).not.toBeNull();
        expect(ajvValidator(schema, candidate), what).not.toBeNull();
      }
    }
  });

  it('on bounds and patterns', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 0, maximum: 120 },
        d: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
      },
      required: ['n', 'd'],
    };
    for (const [value, valid] of [
      [{ n: 120, d: '2026-03-14' }, true],
      [{ n: 121, d: '2026-03-14' }, false],
      [{ n: 1.5, d: '2026-03-14' }, false],
      [{ n: 3, d: '14 March' }, false],
    ] as const) {
      expect(interpretedValidator(schema, value) === null).toBe(valid);
      expect(ajvValidator(schema, value) === null).toBe(valid);
    }
  });
});
