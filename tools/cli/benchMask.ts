/**
 * npm run bench:mask -- [--L 4] [--repeats 30] [--json FILE]
 * Mask cost per position inside our loop against bare xgrammar, for the bundled tokenizer's vocabulary and
 * for GPT-2's 50,257 tokens, for each preset; p50/p95 in ms, their ratio (goal: within 10%), and the mask
 * bytes uploaded per step (K = 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOrExit } from './args';
import { COMMANDS } from './commands';
import { snakeKeys } from './csv';

const { values } = parseOrExit(COMMANDS['bench:mask'], process.argv.slice(2));
const { getEncoding } = await import('js-tiktoken');
const { createServer } = await import('vite');
const { gpt2Vocabulary } = await import('../../test/support/gpt2Vocab');

/** The bundled tokenizer, as the runtime loads it. */
async function bundledTokenizer(): Promise<{ tokens: string[]; stop: number; encode: (text: string) => number[] }> {
  const json = JSON.parse(readFileSync('public/models/speclab-tokenizer/tokenizer.json', 'utf8')) as {
    model: { vocab: Record<string, number> };
    added_tokens: { id: number; content: string }[];
  };
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(json.model.vocab)) tokens[id] = token;
  const tokenizer = new (await import('@huggingface/tokenizers')).Tokenizer(json, {});
  const stop = json.added_tokens.find((t) => t.content === '<|endoftext|>')?.id as number;
  return { tokens, stop, encode: (text) => tokenizer.encode(text).ids };
}

// xgrammar's UMD bundle reaches for CommonJS globals under Node; Vite's module runner does not provide them.
Object.assign(globalThis, {
  require: createRequire(import.meta.url),
  __filename: fileURLToPath(import.meta.url),
  __dirname: dirname(fileURLToPath(import.meta.url)),
});

const server = await createServer({
  logLevel: 'warn',
  server: { middlewareMode: true, hmr: false, ws: false },
  ssr: { noExternal: ['@mlc-ai/web-xgrammar'] },
});
try {
  const bench = (await server.ssrLoadModule('/tools/bench/maskBench.ts')) as typeof import('../bench/maskBench');
  const gpt2 = gpt2Vocabulary();
  const bundled = await bundledTokenizer();
  const encoder = getEncoding('gpt2');
  const rows = await bench.runMaskBench(
    [
      {
        name: `bundled (${bundled.tokens.length})`,
        vocabulary: { tokens: bundled.tokens, vocabType: 'byte_level', stopTokenIds: [bundled.stop] },
        encode: bundled.encode,
      },
      {
        name: 'GPT-2 (50257)',
        vocabulary: { tokens: gpt2.tokens, vocabType: 'byte_level', stopTokenIds: gpt2.stopTokenIds },
        encode: (text) => encoder.encode(text),
      },
    ],
    Number(values.L),
    Number(values.repeats),
  );
  const header = [
    'vocabulary',
    'preset',
    'positions',
    'bare p50',
    'bare p95',
    'loop p50',
    'loop p95',
    'loop/bare',
    'mask B/step',
  ];
  const table = rows.map((r) => [
    r.vocabulary,
    r.preset,
    String(r.positions),
    r.bareP50.toFixed(4),
    r.bareP95.toFixed(4),
    r.loopP50.toFixed(4),
    r.loopP95.toFixed(4),
    r.ratio.toFixed(2),
    String(r.maskBytesPerStep),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  console.log(line(header));
  for (const row of table) console.log(line(row));
  const json = JSON.stringify(
    snakeKeys({ schema_version: 1, L: Number(values.L), repeats: Number(values.repeats), rows }),
    null,
    2,
  );
  if (values.json) writeFileSync(values.json, json);
  else console.log(json);
} finally {
  await server.close();
}
