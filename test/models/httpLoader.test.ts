/**
 * The URL loader against a local static server laid out like the Hugging Face Hub (config.json,
 * tokenizer.json, onnx/model.onnx without our tree mask input, no manifest): the path a presenter's real pair takes.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelFileMissingError, loadPair } from '../../src/models/loader';
import { httpReader } from '../../src/models/httpReader';
import { BUNDLED_DRAFT_DIR, BUNDLED_TARGET_DIR, ort } from '../support/models';
import { hubConfig, withoutTreeMaskInput } from '../support/hubExport';
import { listenOnLoopback } from '../support/loopback';

describe('loading a pair by URL from a Hub-like layout', () => {
  let server: Server;
  let base = '';
  const requests: string[] = [];
  let cutNextModelDownload = false;
  const files = new Map<string, Buffer>();
  for (const [name, dir] of [
    ['draft', BUNDLED_DRAFT_DIR],
    ['target', BUNDLED_TARGET_DIR],
  ] as const) {
    files.set(`/hub/${name}/config.json`, Buffer.from(hubConfig(dir)));
    files.set(`/hub/${name}/tokenizer.json`, readFileSync(join(dir, 'tokenizer.json')));
    files.set(
      `/hub/${name}/onnx/model.onnx`,
      Buffer.from(withoutTreeMaskInput(readFileSync(join(dir, 'onnx/model.onnx')))),
    );
  }
  const otherTokenizer = JSON.parse(readFileSync(join(BUNDLED_TARGET_DIR, 'tokenizer.json'), 'utf8')) as {
    model: { merges: unknown[] };
  };
  otherTokenizer.model.merges.reverse();
  files.set('/other/target/config.json', files.get('/hub/target/config.json') as Buffer);
  files.set('/other/target/tokenizer.json', Buffer.from(JSON.stringify(otherTokenizer)));
  files.set('/other/target/onnx/model.onnx', files.get('/hub/target/onnx/model.onnx') as Buffer);

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '';
      requests.push(path);
      const body = files.get(path);
      if (!body) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-length': body.length });
      if (cutNextModelDownload && path.endsWith('model.onnx')) {
        // An interrupted download: half the body, then the connection drops.
        cutNextModelDownload = false;
        response.write(body.subarray(0, body.length >> 1), () => response.destroy());
        return;
      }
      response.end(body);
    });
    base = await listenOnLoopback(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('loads both models from config.json, tokenizer.json and onnx/model.onnx, with download progress', async () => {
    const progress = new Map<string, number>();
    const pair = await loadPair(
      ort,
      { draft: httpReader(`${base}/hub/draft/`, false), target: httpReader(`${base}/hub/target`, false) },
      'wasm',
      { onProgress: (file, loaded) => progress.set(file, loaded) },
    );
    expect(pair.draft.manifest).toBeNull();
    expect(pair.target.contextLength).toBe(256);
    expect(pair.tokenizer.stopTokenId).toBe(1024);
    // Hub exports lack our tree mask input.
    expect([pair.draft.session.shape.hasTreeMask, pair.target.session.shape.hasTreeMask]).toEqual([false, false]);
    expect(progress.get('target/onnx/model.onnx')).toBe((files.get('/hub/target/onnx/model.onnx') as Buffer).length);
  });

  it('retries an interrupted download and gets the whole file', async () => {
    cutNextModelDownload = true;
    requests.length = 0;
    const pair = await loadPair(
      ort,
      { draft: httpReader(`${base}/hub/draft/`, false), target: httpReader(`${base}/hub/target/`, false) },
      'wasm',
    );
    expect(requests.filter((path) => path.endsWith('model.onnx')).length).toBe(3);
    expect(pair.target.session.shape.layers).toBeGreaterThan(pair.draft.session.shape.layers);
  });

  it('names a missing directory, and refuses a pair whose tokenizers differ', async () => {
    await expect(
      loadPair(
        ort,
        { draft: httpReader(`${base}/nowhere/`, false), target: httpReader(`${base}/hub/target/`, false) },
        'wasm',
      ),
    ).rejects.toThrow(ModelFileMissingError);
    await expect(
      loadPair(
        ort,
        { draft: httpReader(`${base}/hub/draft/`, false), target: httpReader(`${base}/other/target/`, false) },
        'wasm',
      ),
    ).rejects.toThrow(/draft and target use different tokenizers/);
  });
});
