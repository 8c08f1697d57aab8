/**
 * `--pair <draft>,<target>`: the model pair a tool measures, each a local directory or an http(s) URL laid
 * out like a Hugging Face repository (tokenizer.json and onnx/model.onnx, with our manifest.json or the
 * Hub's config.json), the layout the page loads a Hub pair from (src/models/loader.ts). The value is checked
 * here, before anything loads: a malformed one is one line and exit 2 (tools/cli/args.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args';
import { MODEL_FILE, type ModelPairHandle } from '../../src/models/loader';
import { BoundedReadError } from '../../src/contract/boundedFetch';
import { ModelLoadError } from '../../src/models/manifest';
import { loadPairAt } from '../bundled';

export interface PairLocation {
  draft: string;
  target: string;
  /** A draft head's directory, loaded beside a target that exports features. */
  head?: string;
}

const isUrl = (text: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(text);

function checkLocation(role: 'draft' | 'target', location: string): void {
  if (isUrl(location)) {
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new UsageError(`--pair: the ${role} ${JSON.stringify(location)} is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new UsageError(`--pair: the ${role} URL must be http or https, got ${url.protocol}`);
    return;
  }
  if (!existsSync(location) || !statSync(location).isDirectory())
    throw new UsageError(`--pair: the ${role} ${JSON.stringify(location)} is neither a directory nor an http(s) URL`);
  for (const file of ['tokenizer.json', MODEL_FILE]) {
    if (!existsSync(join(location, file)))
      throw new UsageError(
        `--pair: the ${role} directory ${JSON.stringify(location)} has no ${file} (a model directory in the Hub layout has tokenizer.json and ${MODEL_FILE})`,
      );
  }
}

/** Reads `<draft>,<target>`; a mistake (not two entries, a missing directory or file, a URL that is not http(s)) is a UsageError. */
export function parsePairOption(text: string): PairLocation {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length !== 2 || entries.some((entry) => entry === ''))
    throw new UsageError(`--pair must be <draft>,<target> (two directories or URLs), got ${JSON.stringify(text)}`);
  const [draft, target] = entries as [string, string];
  checkLocation('draft', draft);
  checkLocation('target', target);
  return { draft, target };
}

/** Loads a pair; one the loader refuses (a bad file, tokenizers that differ, a server that fails) is one line, not a stack trace. */
export async function loadPairOption(location: PairLocation): Promise<ModelPairHandle> {
  try {
    return await loadPairAt(location);
  } catch (error) {
    if (error instanceof ModelLoadError || error instanceof BoundedReadError)
      throw new UsageError(`the pair ${location.draft} → ${location.target} did not load: ${error.message}`);
    throw error;
  }
}
