import { describe, expect, it } from 'vitest';
import { GrammarEngine } from '../../src/grammar/engine';
import { SCHEMA_PRESETS } from '../../src/grammar/presets';
import { ajvValidator } from '../../src/grammar/ajvValidator';
import { scoreOutput } from '../../src/grammar/score';
import { generateCorpus, oneLineJson } from '../../tools/train/corpus';

const records = generateCorpus(7, 2000);

describe('the training corpus', () => {
  it('is deterministic in its seed', () => {
    expect(generateCorpus(7, 50)).toEqual(records.slice(0, 50));
    expect(generateCorpus(8, 50)).not.toEqual(records.slice(0, 50));
  });

  it('covers every preset evenly, and every JSON passes ajv against its preset schema', () => {
    for (const preset of SCHEMA_PRESETS) {
      const own = records.filter((record) => record.preset === preset.id);
      expect(own.length).toBe(records.length / SCHEMA_PRESETS.length);
      for (const record of own) expect(scoreOutput(ajvValidator, preset.schema, record.json, 'stopped'), record.json).toEqual({ kind: 'valid' });
    }
  });

  it('writes JSON in the layout the grammar enforces, character by character', async () => {
    // A character-level vocabulary: the grammar must accept each record's JSON exactly as written.
    const characters = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    const engine = await GrammarEngine.create({ tokens: [...characters, '</s>'], vocabType: 'raw', stopTokenIds: [95] });
    for (const preset of SCHEMA_PRESETS) {
      const compiled = await engine.compile(JSON.stringify(preset.schema));
      for (const record of records.filter((r) => r.preset === preset.id).slice(0, 20)) {
        const matcher = await compiled.matcher();
        for (const character of record.json) expect(matcher.accept(characters.indexOf(character)), `${record.json} at ${character}`).toBe(true);
        expect(matcher.accept(95)).toBe(true);
        expect(matcher.isTerminated()).toBe(true);
        matcher.dispose();
      }
      compiled.dispose();
    }
    engine.dispose();
  });

  it('puts the reasoning trigger right before the JSON, as the preset expects', () => {
    const trigger = SCHEMA_PRESETS.find((p) => p.id === 'reasoning')?.trigger as string;
    for (const record of records.filter((r) => r.preset === 'reasoning')) expect(record.completion.endsWith(`${trigger}${record.json}`)).toBe(true);
  });

  it('varies: no single completion makes up more than 2% of its preset (sentiment aside)', () => {
    for (const preset of ['person', 'order', 'event', 'reasoning'] as const) {
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
