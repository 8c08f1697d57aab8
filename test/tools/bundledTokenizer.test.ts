import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { GrammarEngine } from '../../src/grammar/engine';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { tokenizerJson, trainByteLevelBpe } from '../../tools/train/bpe';
import { generateCorpus, generateTokenizerCorpus } from '../../tools/train/corpus';

const bundled = JSON.parse(readFileSync('public/models/speclab-tokenizer/tokenizer.json', 'utf8')) as {
  model: { vocab: Record<string, number> };
  added_tokens: { id: number; content: string }[];
};
const tokenizer = new Tokenizer(bundled, {});
const samples = generateCorpus(99, 500);

describe('the bundled tokenizer (public/models/speclab-tokenizer)', () => {
  it('is exactly what `npm run models:tokenizer` rebuilds from the seeded closed-list corpus', () => {
    const rebuilt = tokenizerJson(
      trainByteLevelBpe(
        generateTokenizerCorpus(1, 50_000).map((r) => r.prompt + r.completion),
        768,
        ['<|endoftext|>'],
      ),
    );
    expect(JSON.parse(JSON.stringify(rebuilt))).toEqual(bundled);
  });

  it('round-trips training samples, open-ended values included', () => {
    for (const { prompt, completion } of samples) {
      const text = prompt + completion;
      expect(tokenizer.decode(tokenizer.encode(text).ids)).toBe(text);
    }
  });

  it('encodes closed-list samples it was not trained on in about a third as many tokens as bytes', () => {
    let tokens = 0;
    let bytes = 0;
    for (const { prompt, completion } of generateTokenizerCorpus(99, 500)) {
      const text = prompt + completion;
      const { ids } = tokenizer.encode(text);
      expect(tokenizer.decode(ids)).toBe(text);
      tokens += ids.length;
      bytes += new TextEncoder().encode(text).length;
    }
    expect(tokens / bytes).toBeLessThan(0.4);
  });

  it('gives the grammar engine a vocabulary whose masks accept every preset’s and custom schema’s tokenized JSON', async () => {
    const tokens: string[] = [];
    for (const [token, id] of Object.entries(bundled.model.vocab)) tokens[id] = token;
    const stop = bundled.added_tokens.find((t) => t.content === '<|endoftext|>')?.id as number;
    const engine = await GrammarEngine.create({ tokens, vocabType: 'byte_level', stopTokenIds: [stop] });
    for (const kind of [...SCHEMA_PRESETS.map((preset) => preset.id), 'custom']) {
      for (const record of samples.filter((r) => r.preset === kind).slice(0, 10)) {
        const compiled = await engine.compile(JSON.stringify(record.schema));
        const matcher = await compiled.matcher();
        for (const id of tokenizer.encode(record.json).ids)
          expect(matcher.accept(id), `${record.json}: ${tokens[id]}`).toBe(true);
        expect(matcher.accept(stop)).toBe(true);
        matcher.dispose();
        compiled.dispose();
      }
    }
    engine.dispose();
  });
});
