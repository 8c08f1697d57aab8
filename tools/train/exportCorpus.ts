/**
 * Tokenizes the seeded corpus with the bundled tokenizer for train.py: the prompt, any free text (up to
 * and including a trigger such as "Answer: ") and the JSON are encoded separately and joined, exactly as
 * the app meets them, followed by the stop token.
 *   tsx tools/train/exportCorpus.ts <out-dir> [--records 60000] [--validation 2000] [--heldout 280]
 * Writes {train,validation}.tokens (uint16 LE), {train,validation}.starts (uint32 LE record offsets),
 * {train,validation}.prompts (uint32 LE prompt lengths in tokens: the loss is on the completion only),
 * {train,validation}.presets.json (each record's preset, or "custom": train_head.py reports by preset),
 * heldout.json (validation prompts with their expected JSON, for the field accuracy train.py measures while
 * it trains), and golden-prompts.json: the presets' prompts as token ids, for the golden logits.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Tokenizer } from '@huggingface/tokenizers';
import { generateCorpus, type CorpusRecord } from './corpus';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { CONTEXT_LENGTH, TOKENIZER_PATH, STOP_TOKEN } from './paths';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    records: { type: 'string', default: '60000' },
    validation: { type: 'string', default: '2000' },
    heldout: { type: 'string', default: '280' },
  },
});
const outDir = positionals[0];
if (outDir === undefined) throw new Error('usage: exportCorpus.ts <out-dir> [--records N] [--validation N]');
const tokenizerJson = JSON.parse(readFileSync(TOKENIZER_PATH, 'utf8')) as {
  added_tokens: { id: number; content: string }[];
};
const tokenizer = new Tokenizer(tokenizerJson, {});
const stopId = tokenizerJson.added_tokens.find((token) => token.content === STOP_TOKEN)?.id;
if (stopId === undefined) throw new Error(`${TOKENIZER_PATH} has no ${STOP_TOKEN}`);

function write(name: string, seed: number, count: number): CorpusRecord[] {
  const tokens: number[] = [];
  const starts: number[] = [];
  const promptLengths: number[] = [];
  const records = generateCorpus(seed, count);
  const kept: CorpusRecord[] = [];
  for (const record of records) {
    // The JSON starts a fresh token, as it does in the app, where the grammar takes over at a token
    // boundary (after the prompt, or after the trigger ending the free text).
    const freeText = record.completion.slice(0, record.completion.length - record.json.length);
    const free = freeText === '' ? [] : tokenizer.encode(freeText).ids;
    const prompt = tokenizer.encode(record.prompt).ids;
    const row = [...prompt, ...free, ...tokenizer.encode(record.json).ids, stopId as number];
    // The few records longer than the context are left out: the models never see past it.
    if (row.length > CONTEXT_LENGTH) continue;
    kept.push(record);
    starts.push(tokens.length);
    promptLengths.push(prompt.length);
    tokens.push(...row);
  }
  writeFileSync(join(outDir as string, `${name}.tokens`), Uint16Array.from(tokens));
  writeFileSync(join(outDir as string, `${name}.starts`), Uint32Array.from(starts));
  writeFileSync(join(outDir as string, `${name}.prompts`), Uint32Array.from(promptLengths));
  writeFileSync(join(outDir as string, `${name}.presets.json`), JSON.stringify(kept.map((record) => record.preset)));
  console.log(
    `${name}: ${kept.length} of ${count} records (the rest are over ${CONTEXT_LENGTH} tokens), ${tokens.length} tokens`,
  );
  return kept;
}

mkdirSync(outDir, { recursive: true });
// Training reads seed 1; validation (and the held-out field accuracy that decides when to stop) reads seed
// 2; `npm run models:eval` reads seed 3, which neither sees.
write('train', 1, Number(values.records));
const validation = write('validation', 2, Number(values.validation));
writeFileSync(
  join(outDir, 'heldout.json'),
  JSON.stringify(
    validation.slice(0, Number(values.heldout)).map((record) => ({
      preset: record.preset,
      input_ids: tokenizer.encode(record.prompt).ids,
      expected: JSON.parse(record.json) as unknown,
      trigger: SCHEMA_PRESETS.find((preset) => preset.id === record.preset)?.trigger ?? null,
    })),
  ),
);
writeFileSync(
  join(outDir, 'golden-prompts.json'),
  JSON.stringify(
    SCHEMA_PRESETS.map((preset) => ({
      preset: preset.id,
      prompt: preset.prompt,
      input_ids: tokenizer.encode(preset.prompt).ids,
    })),
  ),
);
