/**
 * npm run models:replica -- --arch llama|qwen2|qwen3|gemma|gpt2 --tokenizer DIR|PACKAGE --out DIR [...]
 * Writes a random-weight replica of a Hub export (tools/replica/build.ts): the layout, config and tokenizer
 * files and the ONNX inputs/outputs of the family's real exports, so that the code a real pair takes runs here
 * without a download. `--help` lists every option (tools/cli/commands.ts).
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { UsageError, runCommand } from './args';
import { COMMANDS } from './commands';
import { ReplicaError, tokenizerDirectory, writeReplica } from '../replica/build';

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS['models:replica'], argv, (parsed) => {
    const { values } = parsed;
    if (values.arch === undefined) throw new UsageError('--arch is required (llama, qwen2, qwen3, gemma or gpt2)');
    if (values.tokenizer === undefined) throw new UsageError('--tokenizer is required (a directory or a package)');
    if (values.out === undefined) throw new UsageError('--out is required (the directory to write)');
    const heads = Number(values.heads);
    const kvHeads = values['kv-heads'] === undefined ? heads : Number(values['kv-heads']);
    try {
      // Found before any weight is drawn: a wrong --tokenizer is a usage mistake.
      tokenizerDirectory(values.tokenizer);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    let written;
    try {
      written = writeReplica({
        arch: values.arch,
        tokenizer: values.tokenizer,
        layers: Number(values.layers),
        hidden: Number(values.hidden),
        heads,
        kvHeads,
        tieEmbeddings: values['tie-embeddings'],
        externalData: values['external-data'],
        quantized: values.quantized,
        weights: values.weights,
        seed: Number(values.seed),
        out: values.out,
      });
    } catch (error) {
      if (error instanceof ReplicaError) throw new UsageError(error.message);
      throw error;
    }
    for (const file of written.files) console.log(`${written.dir}/${file.path}: ${file.bytes} bytes`);
    return 0;
  });
}

// Run as the command; a test imports main and calls it in-process.
const script = process.argv[1];
if (script !== undefined && pathToFileURL(realpathSync(script)).href === import.meta.url)
  process.exitCode = await main(process.argv.slice(2));
