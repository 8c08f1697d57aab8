/** Downloads are bounded by the manifest's sizes, and a manifest's fields by sane ranges. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileTooLargeError, NetworkTimeoutError } from '../../src/contract/boundedFetch';
import { httpReader } from '../../src/models/httpReader';
import { parseHubConfig, parseManifest } from '../../src/models/manifest';
import { listenOnLoopback } from '../support/loopback';

const SHORT = { requestMs: 2000, stallMs: 2000 };

describe('a model file larger than the manifest lists', () => {
  let server: Server;
  let base = '';
  let sent = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      // A Hub directory: no manifest to list sizes, a config.json, and endless files.
      if (request.url === '/hub/manifest.json') return void response.writeHead(404).end();
      if (request.url === '/hub/config.json')
        return void response.end(JSON.stringify({ n_positions: 1024, eos_token_id: 0 }));
      if (request.url?.startsWith('/claims-2gb/')) {
        // Says 2 GB, then trickles.
        response.writeHead(200, { 'content-length': 2 * 1024 ** 3 });
        response.write(Buffer.alloc(1024));
        return;
      }
      // No Content-Length (chunked): 64 KiB pieces for as long as the client reads.
      response.writeHead(200);
      const push = () => {
        if (response.destroyed || sent > 50 * 1024 * 1024) return void response.end();
        sent += 65536;
        response.write(Buffer.alloc(65536), () => setImmediate(push));
      };
      push();
    });
    base = await listenOnLoopback(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is refused from its Content-Length before the body is read', async () => {
    const read = httpReader(`${base}/claims-2gb/`, false, { timeouts: SHORT })('onnx/model.onnx', undefined, 346_000);
    await expect(read).rejects.toThrow(FileTooLargeError);
    await expect(read).rejects.toThrow(
      /is 2147483648 bytes \(Content-Length\), but 346000 bytes at most were expected/,
    );
  });

  it('is stopped at the first chunk past the listed size when the server gives no length', async () => {
    const progress: number[] = [];
    const read = httpReader(`${base}/endless/`, false, { timeouts: SHORT })(
      'onnx/model.onnx',
      (loaded) => progress.push(loaded),
      346_000,
    );
    await expect(read).rejects.toThrow(/is more than 346000 bytes, but 346000 bytes at most were expected/);
    expect(Math.max(...progress)).toBeLessThanOrEqual(346_000);
    expect(sent).toBeLessThan(10 * 1024 * 1024);
  });

  it('is stopped past the most any model file may be when no manifest lists its size (a Hub directory)', async () => {
    // The real cap (4 GiB) is far too much to send in a test: the loader and reader are loaded against a 1 MiB one.
    vi.resetModules();
    vi.doMock(import('../../src/contract/limits'), async (importOriginal) => {
      const limits = await importOriginal();
      return { ...limits, MANIFEST_LIMITS: { ...limits.MANIFEST_LIMITS, fileBytes: 1024 * 1024 } };
    });
    try {
      const { loadModel } = await import('../../src/models/loader');
      const { httpReader: cappedReader } = await import('../../src/models/httpReader');
      sent = 0;
      const load = loadModel(
        {} as typeof import('onnxruntime-web'),
        cappedReader(`${base}/hub/`, false, { timeouts: SHORT }),
        'wasm',
        'draft',
      );
      await expect(load).rejects.toThrow(
        /is more than 1048576 bytes, but 1048576 bytes at most were expected \(the most any model file may be\): the download was stopped/,
      );
      // Two files read side by side, each stopped at its first chunk past 1 MiB (the server runs a little ahead).
      expect(sent).toBeLessThan(10 * 1024 * 1024);
    } finally {
      vi.doUnmock('../../src/contract/limits');
      vi.resetModules();
    }
  });
});

describe('a download that trickles', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((_request, response) => {
      // 16 bytes every 50 ms, never stalling long enough for the stall timer: only its pace stops it.
      response.writeHead(200, { 'content-length': 2 * 1024 ** 3 });
      const timer = setInterval(
        () => (response.destroyed ? clearInterval(timer) : response.write(Buffer.alloc(16))),
        50,
      );
      response.on('close', () => clearInterval(timer));
    });
    base = await listenOnLoopback(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is stopped as soon as it falls behind the minimum pace after its grace seconds, though it never stalls', async () => {
    const read = httpReader(`${base}/`, false, { timeouts: SHORT })('onnx/model.onnx');
    await expect(read).rejects.toThrow(NetworkTimeoutError);
    // 320 bytes/s falls behind 4096 bytes/s counted from 2 s at about 2.2 s.
    await expect(read).rejects.toThrow(
      /sent \d+ bytes in \d+\.\d s, slower than the 4096 bytes\/s a download must keep after its first 2 s: the download was stopped/,
    );
  });
});

describe('manifest fields in range', () => {
  const manifest = JSON.parse(readFileSync('public/models/speclab-draft/manifest.json', 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  const withArchitecture = (change: Record<string, unknown>) => ({
    ...manifest,
    architecture: { ...manifest.architecture, ...change },
  });
  const withTokenizerFile = (file: string) => ({ ...manifest, tokenizer: { ...manifest.tokenizer, file } });

  it('accepts the bundled manifest', () => {
    expect(() => parseManifest(manifest, 'm.json')).not.toThrow();
  });

  it.each([-5, 1e9, 2.5])('refuses context_length %s', (value) => {
    expect(() => parseManifest(withArchitecture({ context_length: value }), 'm.json')).toThrow(
      `m.json: manifest field architecture.context_length must be an integer from 8 to 131072, got ${value}`,
    );
  });

  it.each([undefined, 50256, null])(
    'refuses tokenizer.stop_token %s (the loader looks the stop token up by its text)',
    (value) => {
      expect(() =>
        parseManifest({ ...manifest, tokenizer: { ...manifest.tokenizer, stop_token: value } }, 'm.json'),
      ).toThrow('m.json: manifest field tokenizer.stop_token must be a string');
    },
  );

  it.each([
    'https://evil.example/tokenizer.json',
    '../other/tokenizer.json',
    '/etc/tokenizer.json',
    '//evil.example/t.json',
    'data:,{}',
  ])('refuses tokenizer.file %s', (file) => {
    expect(() => parseManifest(withTokenizerFile(file), 'm.json')).toThrow(
      /manifest field tokenizer.file must be a file in the model's own directory/,
    );
  });
});

describe('a Hub config.json (no manifest) in range', () => {
  const gpt2 = { n_positions: 1024, vocab_size: 50257, eos_token_id: 50256 };

  it('reads GPT-2 and Llama field names, and says when the context length or stop token is missing', () => {
    expect(parseHubConfig({ ...gpt2, model_type: 'gpt2' }, 'c.json')).toEqual({
      contextLength: 1024,
      eosTokenIds: [50256],
      vocabSize: 50257,
      modelType: 'gpt2',
    });
    expect(parseHubConfig({ max_position_embeddings: 2048, eos_token_id: 2 }, 'c.json')).toEqual({
      contextLength: 2048,
      eosTokenIds: [2],
      vocabSize: null,
      modelType: null,
    });
    // Llama 3 lists its stop tokens; generation_config.json's list, where given, is the one generation uses.
    const llama3 = { max_position_embeddings: 131072, vocab_size: 128256, eos_token_id: [128001, 128009] };
    expect(parseHubConfig(llama3, 'c.json')?.eosTokenIds).toEqual([128001, 128009]);
    expect(parseHubConfig(llama3, 'c.json', [128009])?.eosTokenIds).toEqual([128009]);
    expect(() => parseHubConfig({ ...llama3, eos_token_id: [128001, 200000] }, 'c.json')).toThrow(
      'field eos_token_id must be an integer from 0 to 128255, got 200000',
    );
    expect(parseHubConfig({ n_positions: 1024 }, 'c.json')).toBeNull();
    expect(parseHubConfig(null, 'c.json')).toBeNull();
  });

  it.each([
    [{ n_positions: 1e9 }, 'field n_positions must be an integer from 8 to 131072, got 1000000000'],
    [{ vocab_size: 0 }, 'field vocab_size must be an integer from 2 to 1000000, got 0'],
    [{ vocab_size: 1e9 }, 'field vocab_size must be an integer from 2 to 1000000, got 1000000000'],
    [{ eos_token_id: -1 }, 'field eos_token_id must be an integer from 0 to 50256, got -1'],
    [{ eos_token_id: 2.5 }, 'field eos_token_id must be an integer from 0 to 50256, got 2.5'],
    [{ eos_token_id: 50257 }, 'field eos_token_id must be an integer from 0 to 50256, got 50257'],
    [
      { vocab_size: undefined, eos_token_id: 1e9 },
      'field eos_token_id must be an integer from 0 to 999999, got 1000000000',
    ],
  ])('refuses %j', (change, message) => {
    expect(() => parseHubConfig({ ...gpt2, ...change }, 'c.json')).toThrow(`c.json: ${message}`);
  });
});
