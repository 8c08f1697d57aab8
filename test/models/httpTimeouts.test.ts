/** Every network read is bounded: a silent server, a stalled body and a cancelled load all end, each with its own message. */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelFileMissingError } from '../../src/models/loader';
import { LoadCancelledError, NetworkTimeoutError } from '../../src/contract/boundedFetch';
import { httpReader } from '../../src/models/httpReader';
import { listenOnLoopback } from '../support/loopback';

const SHORT = { requestMs: 300, stallMs: 300 };

describe('network reads with timeouts and cancellation', () => {
  let server: Server;
  let base = '';
  const hanging: ServerResponse[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '';
      requests.push(path);
      if (path.startsWith('/silent/')) {
        // Never answers.
        hanging.push(response);
        return;
      }
      if (path.startsWith('/stall/')) {
        // Headers and half the body, then nothing.
        response.writeHead(200, { 'content-length': 1000 });
        response.write(Buffer.alloc(500));
        hanging.push(response);
        return;
      }
      if (path.startsWith('/page/')) {
        // A site's fallback page where a model file should be.
        response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
        return;
      }
      response.writeHead(200, { 'content-length': 3 }).end('abc');
    });
    base = await listenOnLoopback(server);
  });
  afterAll(async () => {
    for (const response of hanging) response.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reads a file that arrives', async () => {
    await expect(httpReader(`${base}/ok/`, false, { timeouts: SHORT })('a.json')).resolves.toEqual(
      new TextEncoder().encode('abc'),
    );
  });

  it('reports a server that never answers, naming it and the time, without retrying', async () => {
    requests.length = 0;
    const read = httpReader(`${base}/silent/`, false, { timeouts: SHORT })('manifest.json');
    await expect(read).rejects.toThrow(NetworkTimeoutError);
    await expect(read).rejects.toThrow(
      `the server at ${base} did not respond within 0.3 s (${base}/silent/manifest.json)`,
    );
    expect(requests).toEqual(['/silent/manifest.json']);
  });

  it('reports a body that stalls mid-file', async () => {
    const progress: number[] = [];
    const read = httpReader(`${base}/stall/`, false, { timeouts: SHORT })('onnx/model.onnx', (loaded) =>
      progress.push(loaded),
    );
    await expect(read).rejects.toThrow(`the server at ${base} did not send any data within 0.3 s`);
    expect(progress.at(-1)).toBe(500);
  });

  it('stops at once when the load is cancelled', async () => {
    const controller = new AbortController();
    const read = httpReader(`${base}/silent/`, false, {
      signal: controller.signal,
      timeouts: { requestMs: 60_000, stallMs: 60_000 },
    })('manifest.json');
    setTimeout(() => controller.abort(), 50);
    await expect(read).rejects.toThrow(LoadCancelledError);
  });

  it('calls a web page where a model file should be a missing file, and says why', async () => {
    const read = httpReader(`${base}/page/`, false, { timeouts: SHORT })('manifest.json');
    await expect(read).rejects.toThrow(ModelFileMissingError);
    await expect(read).rejects.toThrow(
      /is a web page, not a model file: is .*\/page\/ the address of a model directory\?/,
    );
  });
});
