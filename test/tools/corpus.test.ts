import { describe, expect, it } from 'vitest';
import { GrammarEngine } from '../../src/grammar/engine';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { ajvValidator } from '../support/ajvValidator';
import { scoreOutput } from '../../src/grammar/score';
import {
  CYCLE_LENGTH,
  generateCorpus,
  generateTokenizerCorpus,
  oneLineJson,
  type CorpusKind,
} from '../../tools/train/corpus';

const records = generateCorpus(7, 2700);
const KINDS: readonly CorpusKind[] = [...SCHEMA_PRESETS.map((preset) => preset.id), 'custom'];

/** Every string inside a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('the training corpus', () => {
  it('is deterministic in its seed', () => {
    expect(generateCorpus(7, 50)).toEqual(records.slice(0, 50));
    expect(generateCorpus(8, 50)).not.toEqual(records.slice(0, 50));
    expect(generateTokenizerCorpus(7, 50)).toEqual(generateTokenizerCorpus(7, 50));
  });

  it('covers every preset once a cycle and custom schemas four times, and every JSON passes ajv against its schema', () => {
    for (const kind of KINDS) {
      const own = records.filter((record) => record.preset === kind);
      expect(own.length).toBe(((kind === 'custom' ? 4 : 1) * records.length) / CYCLE_LENGTH);
      for (const record of own)
        expect(scoreOutput(ajvValidator, record.schema, record.json, 'stopped'), record.json).toEqual({
          kind: 'valid',
        });
    }
    for (const preset of SCHEMA_PRESETS)
      expect(records.find((record) => record.preset === preset.id)?.schema).toBe(preset.schema);
  });

  it('states every string value of the JSON in the prompt, so that copying can get it right', () => {
    for (const record of records) {
      // Sentiment's label is the one value the model must judge rather than copy.
      const copied = JSON.parse(record.json) as Record<string, unknown>;
      delete copied.sentiment;
      for (const value of strings(copied)) expect(record.prompt, value).toContain(value);
    }
  });

  it('draws open-ended values: few person names repeat, and custom schemas vary in keys, types and size', () => {
    const names = records
      .filter((r) => r.preset === 'person')
      .map((r) => (JSON.parse(r.json) as { name: string }).name);
    expect(new Set(names).size / names.length).toBeGreaterThan(0.95);
    const custom = records
      .filter((r) => r.preset === 'custom')
      .map((r) => r.schema as { properties: Record<string, { type?: string; enum?: string[] }> });
    const sizes = new Set(custom.map((schema) => Object.keys(schema.properties).length));
    expect([...sizes].sort()).toEqual([1, 2, 3, 4, 5]);
    const types = new Set(
      custom.flatMap((schema) => Object.values(schema.properties).map((property) => property.type ?? 'enum')),
    );
    expect([...types].sort()).toEqual(['boolean', 'enum', 'integer', 'number', 'string']);
    expect(new Set(custom.flatMap((schema) => Object.keys(schema.properties))).size).toBeGreaterThan(80);
  });

  it('writes JSON in the layout the grammar enforces, character by character', async () => {
    // A character-level vocabulary: the grammar must accept each record's JSON exactly as written.
    const characters = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    const engine = await GrammarEngine.create({
      tokens: [...characters, '</s>'],
      vocabType: 'raw',
      stopTokenIds: [95],
    });
    for (const kind of KINDS) {
      for (const record of records.filter((r) => r.preset === kind).slice(0, 20)) {
        const compiled = await engine.compile(JSON.stringify(record.schema));
        const matcher = await compiled.matcher();
        for (const character of record.json)
          expect(matcher.accept(characters.indexOf(character)), `${record.json} at ${character}`).toBe(true);
        expect(matcher.accept(95)).toBe(true);
        expect(matcher.isTerminated()).toBe(true);
        matcher.dispose();
        compiled.dispose();
      }
    }
    engine.dispose();
  });

  it('puts the reasoning trigger right before the JSON, as the preset expects', () => {
    const trigger = SCHEMA_PRESETS.find((p) => p.id === 'reasoning')?.trigger as string;
    for (const record of records.filter((r) => r.preset === 'reasoning'))
      expect(record.completion.endsWith(`${trigger}${record.json}`)).toBe(true);
  });

  it('varies: no single completion makes up more than 2% of its preset (sentiment aside)', () => {
    for (const preset of ['person', 'order', 'event', 'reasoning', 'custom'] as const) {
      const counts = new Map<string, number>();
      const own = records.filter((r) => r.preset === preset);
      for (const record of own) counts.set(record.completion, (counts.get(record.completion) ?? 0) + 1);
      expect(Math.max(...counts.values()) / own.length).toBeLessThanOrEqual(0.02);
    }
  });

  it('oneLineJson matches the grammar layout', () => {
    expect(oneLineJson({ a: [1, { b: true }], c: 'x' })).toBe('{"a": [1, {"b": true}], "c": "x"}');
  });
});

describe('preset prompts are corpus prompts', () => {
  it('each preset prompt opens and ends as its preset’s corpus prompts do', () => {
    for (const preset of SCHEMA_PRESETS) {
      const sample = records.find((r) => r.preset === preset.id)?.prompt as string;
      expect(preset.prompt.split(':')[0], preset.id).toBe(sample.split(':')[0]);
      const ending = preset.prompt.endsWith('JSON: ') ? 'JSON: ' : '\n';
      expect(preset.prompt.endsWith(ending) && sample.endsWith(ending), preset.id).toBe(true);
    }
  });
});
