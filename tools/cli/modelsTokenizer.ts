/**
 * npm run models:tokenizer -- [--records 50000] [--merges 768] [--seed 1] [--out FILE]
 * Trains the bundled byte-level BPE on the seeded closed-list corpus and writes public/models/speclab-tokenizer/
 * tokenizer.json (Hugging Face format). The bundled models must be trained with exactly this file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseOrExit } from './args';
import { COMMANDS } from './commands';
import { tokenizerJson, trainByteLevelBpe } from '../train/bpe';
import { generateTokenizerCorpus } from '../train/corpus';
import { STOP_TOKEN } from '../train/paths';

const { values } = parseOrExit(COMMANDS['models:tokenizer'], process.argv.slice(2));
const records = generateTokenizerCorpus(Number(values.seed), Number(values.records));
const started = performance.now();
const bpe = trainByteLevelBpe(
  records.map((r) => r.prompt + r.completion),
  Number(values.merges),
  [STOP_TOKEN],
);
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, `${JSON.stringify(tokenizerJson(bpe), null, 1)}\n`);
console.log(
  `${values.out}: ${bpe.vocab.size} tokens (${bpe.merges.length} merges) from ${records.length} records in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
