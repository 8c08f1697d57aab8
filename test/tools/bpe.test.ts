import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { GrammarEngine } from '../../src/grammar/engine';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { tokenizerJson, trainByteLevelBpe } from '../../tools/train/bpe';
import { generateCorpus } from '../../tools/train/corpus';

const records = generateCorpus(3, 1500);
const texts = records.map((r) => r.prompt + r.completion);
const EOS = '<|endoftext|>';
const bpe = trainByteLevelBpe(texts, 300, [EOS]);
const tokenizer = new Tokenizer(tokenizerJson(bpe), {});

describe('the byte-level BPE trainer and its tokenizer.json', () => {
  it('learns the merges asked for, then the special tokens', () => {
    expect(bpe.merges).toHaveLength(300);
    expect(bpe.vocab.size).toBe(256 + 300 + 1);
    expect(bpe.vocab.get(EOS)).toBe(556);
  });

  it('loads in @huggingface/tokenizers and round-trips every corpus text, in fewer tokens than bytes', () => {
    let tokens = 0;
    let bytes = 0;
    for (const text of texts) {
      const { ids } = tokenizer.encode(text);
      expect(tokenizer.decode(ids)).toBe(text);
      tokens += ids.length;
      bytes += new TextEncoder().encode(text).length;
    }
    // 300 merges on this corpus should at least halve the sequence length.
    expect(tokens / bytes).toBeLessThan(0.5);
  });

  it('round-trips text it never saw, byte by byte (accents and symbols included)', () => {
    const text = 'Zoë paid 12,50 € — “quoted” text\ttabs\nand emoji 🚀.';
    expect(tokenizer.decode(tokenizer.encode(text).ids)).toBe(text);
  });

  it('encodes the stop token as one id', () => {
    expect(tokenizer.encode(EOS).ids).toEqual([bpe.vocab.get(EOS)]);
  });

  it('gives xgrammar a byte-level vocabulary whose masks accept the tokenized corpus JSON', async () => {
    const tokens = [...bpe.vocab.keys()];
    const engine = await GrammarEngine.create({
      tokens,
      vocabType: 'byte_level',
      stopTokenIds: [bpe.vocab.get(EOS) as number],
    });
    for (const preset of SCHEMA_PRESETS) {
      const compiled = await engine.compile(JSON.stringify(preset.schema));
      for (const record of records.filter((r) => r.preset === preset.id).slice(0, 10)) {
        const matcher = await compiled.matcher();
        for (const id of tokenizer.encode(record.json).ids)
          expect(matcher.accept(id), `${record.json}: token ${tokens[id]}`).toBe(true);
        matcher.dispose();
      }
      compiled.dispose();
    }
    engine.dispose();
  });
});
