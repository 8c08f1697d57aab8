/**
 * `npm run serve` against a hostile or careless client, through the official `openai` client where it can
 * speak, and raw sockets where no client would: a schema whose compile runs past the budget (it froze the
 * server for ~30 s), a queue past --max-queue, clients that go away while uploading, waiting or streaming, and
 * requests that trickle a byte a second.
 */
import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCHEMA_LIMITS, SERVE_LIMITS } from '../../src/contract/limits';
import { isExposed } from '../../tools/cli/serveGuard';
import { startServe, type ServeProcess } from '../support/serveProcess';

const MODEL = 'speclab-bundled';

let serve: ServeProcess;
let client: OpenAI;

beforeAll(async () => {
  serve = await startServe(['--L', '3', '--max-queue', '1']);
  client = new OpenAI({ baseURL: `${serve.base}/v1`, apiKey: 'unused', maxRetries: 0 });
}, 120_000);

afterAll(() => serve.stop());

const metricsText = async () => (await fetch(`${serve.base}/metrics`)).text();

/** A sample's value in a scrape (0 when the series is absent), `labels` as written before model_name. */
function sample(text: string, name: string, labels = ''): number {
  const prefix = `${name}{${labels}${labels === '' ? '' : ','}model_name="${MODEL}"} `;
  const line = text.split('\n').find((each) => each.startsWith(prefix));
  return line === undefined ? 0 : Number(line.slice(prefix.length));
}

const metric = async (name: string, labels = '') => sample(await metricsText(), name, labels);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the server answered on a raw connection, once it closes. */
function rawExchange(write: (socket: ReturnType<typeof connect>) => void): Promise<string> {
  const url = new URL(serve.base);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(url.port), url.hostname, () => write(socket));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => undefined);
  });
}

const HEADERS = (length: number) =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;

// Both tests wait out a time limit of the server (the compile budget, the request deadline), so they run side by
// side; neither moves the other's counters (a 400 there, 408s and no upload abort here).
describe('a schema compile past the budget, and requests that trickle', () => {
  const properties = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { type: 'string' }]));
  const huge = () =>
    client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 4,
      response_format: { type: 'json_schema', json_schema: { name: 'wide', schema: { type: 'object', properties } } },
    });
  const budgetWords = `this schema has 10,000 properties; compiling it took more than ${SCHEMA_LIMITS.compileSeconds} s and was stopped`;

  it.concurrent(
    '10,000 properties: /metrics answers while it compiles off the event loop; then a 400 in the API shape; a repeat is refused at once; the server decodes on',
    async () => {
      let settled = false;
      const outcome = huge().then(
        () => null,
        (error: unknown) => error,
      );
      void outcome.then(() => (settled = true));
      // Each scrape is sent after the last one answered: on the event loop, the compile would hold them all.
      let answeredWhileCompiling = 0;
      while (!settled) {
        const response = await fetch(`${serve.base}/metrics`);
        expect(response.status).toBe(200);
        await response.text();
        if (!settled) answeredWhileCompiling++;
        await pause(300);
      }
      expect(answeredWhileCompiling).toBeGreaterThanOrEqual(3);
      const error = (await outcome) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ status: 400, param: 'response_format', type: 'BadRequestError' });
      expect(error.message).toBe(`400 ${budgetWords} (simplify the schema: fewer properties, smaller enums)`);
      // The repeat is known: refused without a second compile.
      const repeat = (await huge().catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(repeat.status).toBe(400);
      expect(repeat.message).toMatch(/this schema was refused so before, and is not compiled again$/);
      // The next schema compiles in a fresh compiler thread, and the server decodes it.
      const person = await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Text: Bo, 7.\nJSON: ' }],
        max_tokens: 30,
        temperature: 0,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'p', schema: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      });
      expect(typeof JSON.parse(person.choices[0]?.message.content ?? '')).toBe('object');
    },
    120_000,
  );

  it.concurrent(
    `a body or headers sent a byte a second: cut with 408 in the API shape at ${SERVE_LIMITS.requestSeconds} s (headers ${SERVE_LIMITS.headersSeconds} s), counted as 408`,
    async () => {
      const before = await metricsText();
      const trickle = (text: string) =>
        rawExchange((socket) => {
          let sent = 0;
          const timer = setInterval(() => {
            if (socket.destroyed || sent === text.length) clearInterval(timer);
            else socket.write(text[sent++] as string);
          }, 1000);
          socket.on('close', () => clearInterval(timer));
        });
      const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(100) }] });
      const slowBody = rawExchange((socket) => {
        socket.write(HEADERS(Buffer.byteLength(body)));
        let sent = 0;
        const timer = setInterval(() => {
          if (socket.destroyed) clearInterval(timer);
          else socket.write(body[sent++] as string);
        }, 1000);
        socket.on('close', () => clearInterval(timer));
      });
      const answers = await Promise.all([slowBody, trickle(HEADERS(2) + '{}')]);
      for (const answer of answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { message: string } };
        expect(json.error.message).toBe(
          `the request did not arrive within ${SERVE_LIMITS.requestSeconds} s (headers within ${SERVE_LIMITS.headersSeconds} s): the connection was closed`,
        );
      }
      const after = await metricsText();
      const delta = (name: string, labels = '') => sample(after, name, labels) - sample(before, name, labels);
      expect(delta('speclab:request_errors_total', 'status="408"')).toBe(2);
      expect(delta('speclab:request_client_aborts_total', 'stage="upload"')).toBe(0);
    },
    60_000,
  );
});

describe('the queue, and clients that go away', () => {
  const long = {
    model: MODEL,
    messages: [{ role: 'user' as const, content: 'Once upon a time' }],
    n: 8,
    max_tokens: 64,
  };

  it('past --max-queue 1: 429 with Retry-After; a stream whose client leaves and a queued request dropped count as aborts, not successes', async () => {
    const before = await metricsText();
    const streaming = new AbortController();
    const stream = await client.chat.completions.create({ ...long, stream: true }, { signal: streaming.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    // The queued request on a connection of its own, which its client closes (a socket closed, as a killed script's is).
    const body = JSON.stringify(long);
    let closeQueued: () => void = () => undefined;
    const queued = rawExchange((socket) => {
      socket.write(HEADERS(Buffer.byteLength(body)) + body);
      closeQueued = () => socket.destroy();
    });
    await vi.waitFor(async () => expect(await metric('vllm:num_requests_waiting')).toBe(1), { timeout: 30_000 });
    expect(await metric('vllm:num_requests_running')).toBe(1);
    const busy = (await client.chat.completions
      .create({ ...long, n: 1 })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(busy).toBeInstanceOf(OpenAI.RateLimitError);
    expect(busy.message).toMatch(
      /^429 the server is busy: 1 request already waits \(--max-queue 1\); retry after \d+ s$/,
    );
    expect(Number(busy.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The queued request's client leaves first, then the stream's, mid-answer.
    closeQueued();
    await queued;
    await pause(200);
    streaming.abort();
    await vi.waitFor(
      async () => expect(await metric('speclab:request_client_aborts_total', 'stage="queued"')).toBe(1),
      { timeout: 60_000 },
    );
    const after = await metricsText();
    const delta = (name: string, labels = '') => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('speclab:request_client_aborts_total', 'stage="decoding"')).toBe(1);
    expect(delta('vllm:request_success_total', 'finished_reason="abort"')).toBe(2);
    expect(delta('vllm:request_success_total', 'finished_reason="stop"')).toBe(0);
    expect(delta('vllm:request_success_total', 'finished_reason="length"')).toBe(0);
    // Neither the stream's drafts nor its tokens are counted: the window holds delivered answers only.
    expect(delta('vllm:generation_tokens_total')).toBe(0);
    expect(delta('vllm:spec_decode_num_drafts_total')).toBe(0);
    expect(delta('speclab:request_errors_total', 'status="429"')).toBe(1);
  }, 120_000);

  it('clients that abort during the upload: counted as upload aborts, never as HTTP 500', async () => {
    const before = await metricsText();
    await Promise.all(
      Array.from({ length: 5 }, () =>
        rawExchange((socket) => {
          socket.write(`${HEADERS(1000)}{"model": "${MODEL}", "mess`);
          setTimeout(() => socket.destroy(), 50);
        }),
      ),
    );
    await vi.waitFor(async () => {
      const text = await metricsText();
      const aborts = sample(text, 'speclab:request_client_aborts_total', 'stage="upload"');
      expect(aborts - sample(before, 'speclab:request_client_aborts_total', 'stage="upload"')).toBe(5);
    });
    expect(await metric('speclab:request_errors_total', 'status="500"')).toBe(0);
  });
});

describe('serve on a non-loopback host', () => {
  it('is exposed (and warns that there is no authentication without --api-key-file) on any address but loopback', () => {
    expect(['0.0.0.0', '::', '192.168.1.20', 'speclab.example'].map(isExposed)).toEqual([true, true, true, true]);
    expect(['127.0.0.1', 'localhost', 'LOCALHOST', '::1', '[::1]'].map(isExposed)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
