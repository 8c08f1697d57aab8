/**
 * npm run models:tokenizer -- [--records 50000] [--merges 768] [--seed 1]
 * Trains the bundled byte-level BPE on the seeded closed-list corpus and writes public/models/speclab-tokenizer/
 * tokenizer.json (Hugging Face format). The bundled models must be trained with exactly this file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tokenizerJson, trainByteLevelBpe } from './bpe';
import { generateTokenizerCorpus } from './corpus';
import { STOP_TOKEN, TOKENIZER_PATH } from './paths';


const { values } = parseArgs({ options: { records: { type: 'string', default: '50000' }, merges: { type: 'string', default: '768' }, seed: { type: 'string', default: '1' } } });
const records = generateTokenizerCorpus(Number(values.seed), Number(values.records));
const started = performance.now();
const bpe = trainByteLevelBpe(records.map((r) => r.prompt + r.completion), Number(values.merges), [STOP_TOKEN]);
mkdirSync('public/models/speclab-tokenizer', { recursive: true });
writeFileSync(TOKENIZER_PATH, `${JSON.stringify(tokenizerJson(bpe), null, 1)}\n`);
console.log(`${TOKENIZER_PATH}: ${bpe.vocab.size} tokens (${bpe.merges.length} merges) from ${records.length} records in ${((performance.now() - started) / 1000).toFixed(1)} s`);
