/**
 * `--pair` in a Chromium section (tools/cli/pairServer.ts): the tool's Vite server serves a local pair's
 * directories to the page read-only, and nothing outside them; an https URL goes to the page as it is.
 */
import { request } from 'node:http';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairForPage } from '../../tools/cli/pairServer';

// A model directory with a link that leads out of it.
const linked = mkdtempSync(join(tmpdir(), 'speclab-pair-'));
symlinkSync(resolve('package.json'), join(linked, 'outside.json'));
const { page, plugin } = pairForPage({ draft: 'public/models/speclab-draft', target: linked });
let server: ViteDevServer;
let port: number;

beforeAll(async () => {
  server = await createServer({
    configFile: false,
    logLevel: 'silent',
    server: { port: 0, host: '127.0.0.1' },
    plugins: [plugin],
  });
  await server.listen();
  port = Number(new URL(server.resolvedUrls?.local[0] as string).port);
});
afterAll(() => server.close());

/** The path is sent as written (a URL would resolve its `..` first). */
const get = (path: string, method = 'GET') =>
  new Promise<{ status: number; type: string | undefined; body: Buffer }>((done, fail) => {
    const chunks: Buffer[] = [];
    request({ host: '127.0.0.1', port, path, method }, (response) => {
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        done({
          status: response.statusCode as number,
          type: response.headers['content-type'],
          body: Buffer.concat(chunks),
        }),
      );
    })
      .on('error', fail)
      .end();
  });

describe('a local --pair served to the page', () => {
  it('serves the directory files at the URLs the page is given, named as the report names the pair', async () => {
    expect(page.label).toBe(`the pair public/models/speclab-draft → ${linked}`);
    const tokenizer = await get(`${page.draftUrl}tokenizer.json`);
    expect(tokenizer).toMatchObject({ status: 200, type: 'application/json' });
    expect(tokenizer.body.equals(readFileSync('public/models/speclab-draft/tokenizer.json'))).toBe(true);
    expect((await get(`${page.draftUrl}onnx/model.onnx`)).type).toBe('application/octet-stream');
  });

  it('serves nothing outside the directories: no climbing out, no link out, no writes', async () => {
    for (const path of [
      '../../package.json',
      '%2e%2e/%2e%2e/package.json',
      '..%2f..%2fpackage.json',
      'onnx',
      'missing.json',
    ])
      expect((await get(`${page.draftUrl}${path}`)).status, path).toBe(404);
    expect((await get(`${page.targetUrl}outside.json`)).status).toBe(404);
    expect((await get(`${page.draftUrl}tokenizer.json`, 'PUT')).status).toBe(405);
  });

  it('gives the page an https URL as it is', () => {
    expect(
      pairForPage({ draft: 'https://huggingface.co/org/draft/resolve/main/', target: 'public/models/speclab-target' })
        .page.draftUrl,
    ).toBe('https://huggingface.co/org/draft/resolve/main/');
  });
});
