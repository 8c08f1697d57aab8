import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../../tools/train/corpus';
import { ModelLoadError, ProviderUnsupportedError, parseManifest, sha256Hex } from '../../src/models/manifest';
import { describeSession } from '../../src/models/session';
import { TextTokenizer, checkSameTokenizer } from '../../src/models/tokenizer';
import { loadModel } from '../../src/models/loader';
import {
  batchedAndTrimmedError,
  goldenError,
  goldenTolerance,
  incrementalError,
  treeScoringError,
} from '../support/modelChecks';
import { hubReader } from '../support/hubExport';
import {
  BUNDLED_DRAFT_DIR,
  BUNDLED_TARGET_DIR,
  FLOAT_TARGET_DIR,
  bundledPair,
  directoryReader,
  loadBundledModel,
  ort,
} from '../support/models';
import type * as ortTypes from 'onnxruntime-web';

const MODEL_DIRS = [BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, FLOAT_TARGET_DIR];

describe.each(MODEL_DIRS)('bundled model %s', (dir) => {
  const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')) as {
    files: { path: string; sha256: string; bytes: number }[];
    io: { inputs: string[]; outputs: string[] };
    golden: { prompts: { preset: string; input_ids: number[]; last_logits: number[] }[] };
  };

  it('has files whose sha256 and sizes match the manifest', async () => {
    for (const file of manifest.files) {
      const bytes = new Uint8Array(readFileSync(`${dir}/${file.path}`));
      expect(bytes.length).toBe(file.bytes);
      expect(await sha256Hex(bytes)).toBe(file.sha256);
    }
  });

  it('declares exactly the inputs and outputs the session has', async () => {
    const model = await loadBundledModel(dir);
    const session = (model.session as unknown as { session: ortTypes.InferenceSession }).session;
    expect([...session.inputNames]).toEqual(manifest.io.inputs);
    expect([...session.outputNames]).toEqual(manifest.io.outputs);
    expect(model.session.shape.vocab).toBe(model.tokenizer.vocabSize);
  });

  it(`reproduces the golden torch logits within ${goldenTolerance(dir)} on the wasm EP`, async () => {
    expect(manifest.golden.prompts.length).toBeGreaterThan(0);
    expect(await goldenError(await loadBundledModel(dir))).toBeLessThan(goldenTolerance(dir));
  });

  it('gives the same logits token by token through the KV cache as one full prefill', async () => {
    expect(
      await incrementalError(await loadBundledModel(dir), manifest.golden.prompts[1]?.input_ids ?? []),
    ).toBeLessThan(1e-4);
  });

  it('scores K rows in one batched run as K single runs would, and a trimmed chosen row continues like recomputation', async () => {
    const { batched, trimmed } = await batchedAndTrimmedError(
      await loadBundledModel(dir),
      manifest.golden.prompts[2]?.input_ids ?? [],
    );
    expect(batched).toBeLessThan(1e-4);
    expect(trimmed).toBeLessThan(1e-4);
  });

  it('scores a token tree in one run as the batched path does, node by node, and keeps one path as a fresh prefill would', async () => {
    const model = await loadBundledModel(dir);
    expect(model.session.shape.hasTreeMask).toBe(true);
    const result = await treeScoringError(model);
    // Two fresh context tokens, then 4 + 2 + 3 distinct draft prefixes.
    expect(result.nodes).toBe(11);
    // Measured: at most 4e-6 at logits of |x| up to 15 (a few float32 ulps, from other summation orders).
    expect(result.tree).toBeLessThan(1e-5);
    expect(result.kept).toBeLessThan(1e-5);
  });

  it('loads and runs as a Hub export without the tree mask input: same logits, and a tree mask is refused by name', async () => {
    const bundled = await loadBundledModel(dir);
    const hub = await loadModel(ort, hubReader(dir), 'wasm', 'hub-model');
    expect(hub.session.shape.hasTreeMask).toBe(false);
    const tokens = manifest.golden.prompts[1]?.input_ids ?? [];
    const [ours, theirs] = await Promise.all(
      [bundled, hub].map(({ session }) =>
        session.forward(tokens, 1, tokens.length, session.emptyCache(1), { positionIds: tokens.map((_, i) => i) }),
      ),
    );
    expect(Array.from(theirs?.logits ?? [])).toEqual(Array.from(ours?.logits ?? []));
    const single = hub.session.emptyCache(1);
    await expect(hub.session.forward([1, 2], 1, 2, single, { treeMask: new Uint8Array([1, 0, 1, 1]) })).rejects.toThrow(
      new RangeError(
        'hub-model: the model has no tree_attention_mask input, so it cannot score a token tree in one run',
      ),
    );
  });
});

describe('bundled pair', () => {
  it('shares one tokenizer, which round-trips unseen corpus records', async () => {
    const { tokenizer } = await bundledPair();
    for (const { prompt, completion } of generateCorpus(123, 200)) {
      const text = prompt + completion;
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    }
  });

  it('stays under 30 MB in all, with a target that is the larger model', () => {
    const sizes = MODEL_DIRS.map((dir) =>
      (JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')) as { files: { bytes: number }[] }).files.reduce(
        (sum, file) => sum + file.bytes,
        0,
      ),
    );
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(30 * 2 ** 20);
    expect(sizes[1]).toBeGreaterThan(8 * (sizes[0] as number));
  });
});

describe('loader refusals', () => {
  it('names a file whose bytes do not match the manifest', async () => {
    const honest = directoryReader(BUNDLED_DRAFT_DIR);
    const tampered = async (path: string) => {
      const bytes = await honest(path);
      if (path === 'onnx/model.onnx') bytes[bytes.length - 1] = (bytes.at(-1) as number) ^ 1;
      return bytes;
    };
    await expect(loadModel(ort, tampered, 'wasm', 'draft')).rejects.toThrow(
      /onnx\/model\.onnx: sha256 [0-9a-f]{64} does not match/,
    );
  });

  it('refuses a provider the manifest rules out before reading the model, and names a malformed runs_on', async () => {
    const read: string[] = [];
    const honest = directoryReader(BUNDLED_TARGET_DIR);
    const recording = (path: string) => {
      read.push(path);
      return honest(path);
    };
    await expect(loadModel(ort, recording, 'webgpu', 'target')).rejects.toThrow(ProviderUnsupportedError);
    expect(read).toEqual(['manifest.json']);
    const manifest = JSON.parse(readFileSync(`${BUNDLED_TARGET_DIR}/manifest.json`, 'utf8')) as Record<string, unknown>;
    expect(() => parseManifest({ ...manifest, runs_on: { providers: ['cuda'], why: 'no' } }, 'm.json')).toThrow(
      "m.json: manifest field runs_on.providers must list 'wasm' or 'webgpu'",
    );
    expect(() => parseManifest({ ...manifest, runs_on: { providers: ['wasm'] } }, 'm.json')).toThrow(
      'm.json: manifest field runs_on.why must be a string',
    );
  });

  it('reports a missing file', async () => {
    const honest = directoryReader(BUNDLED_DRAFT_DIR);
    await expect(
      loadModel(
        ort,
        (path) => (path === 'tokenizer.json' ? honest('no-such-file.json') : honest(path)),
        'wasm',
        'draft',
      ),
    ).rejects.toThrow(/no-such-file\.json/);
  });

  it('names the inputs and outputs an ONNX model lacks', () => {
    const session = {
      inputNames: ['input_ids', 'past_key_values.0.key'],
      outputNames: ['logits', 'present.0.key'],
      inputMetadata: [],
      outputMetadata: [],
    };
    expect(() => describeSession(session as unknown as ortTypes.InferenceSession, 'bad.onnx')).toThrow(
      'bad.onnx: the ONNX model lacks attention_mask, past_key_values.0.value, present.0.value (output)',
    );
  });

  it('refuses a pair whose tokenizers split text differently, and a tokenizer without a stop token', () => {
    const json = JSON.parse(readFileSync(`${BUNDLED_DRAFT_DIR}/tokenizer.json`, 'utf8')) as {
      model: { merges: unknown[] };
    };
    const original = TextTokenizer.fromJson(json, 'a', '<|endoftext|>');
    const reordered = structuredClone(json);
    reordered.model.merges.reverse();
    const other = TextTokenizer.fromJson(reordered, 'b', '<|endoftext|>');
    expect(() => checkSameTokenizer(original, other, 'draft', 'target')).toThrow(
      'draft and target use different tokenizers (both have 1025 tokens but split text differently)',
    );
    expect(() => TextTokenizer.fromJson(json, 'c.json', '<|eos|>')).toThrow(ModelLoadError);
  });

  // A prompt of 400 KB from a link once ended in "Maximum call stack size exceeded" (ids.push(...ids)), not the token-count refusal.
  it.each([400_000, 1_000_000])(
    'encodes a prompt of %i characters, special token and all, without running out of stack',
    (chars) => {
      const tokenizer = TextTokenizer.fromJson(
        JSON.parse(readFileSync(`${BUNDLED_DRAFT_DIR}/tokenizer.json`, 'utf8')) as object,
        'a',
        '<|endoftext|>',
      );
      const ids = tokenizer.encode(`${'word '.repeat(chars / 10)}<|endoftext|>${'word '.repeat(chars / 10)}`);
      expect(ids.length).toBeGreaterThan(chars / 10);
      expect(ids).not.toContain(tokenizer.stopTokenId);
    },
  );

  it('encodes a typed <|endoftext|> as text, never as the stop token', () => {
    const json = JSON.parse(readFileSync(`${BUNDLED_DRAFT_DIR}/tokenizer.json`, 'utf8')) as object;
    const tokenizer = TextTokenizer.fromJson(json, 'a', '<|endoftext|>');
    const ids = tokenizer.encode('say <|endoftext|> then {"a": 1}<|endoftext|>');
    expect(ids).not.toContain(tokenizer.stopTokenId);
    expect(tokenizer.decode(ids)).toBe('say <|endoftext|> then {"a": 1}<|endoftext|>');
  });
});
