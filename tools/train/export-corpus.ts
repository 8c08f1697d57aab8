/**
 * Tokenizes the seeded corpus with the bundled tokenizer for train.py: the prompt, any free text (up to
 * and including a trigger such as "Answer: ") and the JSON are encoded separately and joined, exactly as
 * the app meets them, followed by the stop token.
 *   tsx tools/train/export-corpus.ts <out-dir> [--records 60000] [--validation 2000]
 * Writes {train,validation}.tokens (uint16 LE), {train,validation}.starts (uint32 LE record offsets), and
 * golden-prompts.json: the presets' prompts as token ids, for the golden logits in each manifest.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Tokenizer } from '@huggingface/tokenizers';
import { generateCorpus } from './corpus';
import { SCHEMA_PRESETS } from '../../src/grammar/presets';
import { TOKENIZER_PATH, STOP_TOKEN } from './paths';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { records: { type: 'string', default: '60000' }, validation: { type: 'string', default: '2000' } },
});
const outDir = positionals[0];
if (outDir === undefined) throw new Error('usage: export-corpus.ts <out-dir> [--records N] [--validation N]');
const tokenizerJson = JSON.parse(readFileSync(TOKENIZER_PATH, 'utf8')) as { added_tokens: { id: number; content: string }[] };
const tokenizer = new Tokenizer(tokenizerJson, {});
const stopId = tokenizerJson.added_tokens.find((token) => token.content === STOP_TOKEN)?.id;
if (stopId === undefined) throw new Error(`${TOKENIZER_PATH} has no ${STOP_TOKEN}`);

function write(name: string, seed: number, count: number): void {
  const tokens: number[] = [];
  const starts: number[] = [];
  for (const record of generateCorpus(seed, count)) {
    starts.push(tokens.length);
    // The JSON starts a fresh token, as it does in the app, where the grammar takes over at a token
    // boundary (after the prompt, or after the trigger ending the free text).
    const freeText = record.completion.slice(0, record.completion.length - record.json.length);
    const free = freeText === '' ? [] : tokenizer.encode(freeText).ids;
    tokens.push(...tokenizer.encode(record.prompt).ids, ...free, ...tokenizer.encode(record.json).ids, stopId as number);
  }
  writeFileSync(join(outDir as string, `${name}.tokens`), Uint16Array.from(tokens));
  writeFileSync(join(outDir as string, `${name}.starts`), Uint32Array.from(starts));
  console.log(`${name}: ${count} records, ${tokens.length} tokens`);
}

mkdirSync(outDir, { recursive: true });
// The tokenizer was trained on seed 1; validation records come from a seed the training never sees.
write('train', 1, Number(values.records));
write('validation', 2, Number(values.validation));
writeFileSync(
  join(outDir, 'golden-prompts.json'),
  JSON.stringify(SCHEMA_PRESETS.map((preset) => ({ preset: preset.id, prompt: preset.prompt, input_ids: tokenizer.encode(preset.prompt).ids }))),
);
