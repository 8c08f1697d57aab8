/**
 * npm run serve -- [--host 127.0.0.1] [--port 8000] [--method ID] [--K n] [--L n] [--drafter ID] [--pair DRAFT,TARGET]
 * This project's engine (the bundled pair, or --pair, through the one setup of worker, CLI and benches:
 * tools/nodeEngine.ts) behind an OpenAI-compatible endpoint, so that the server scorecard (`npm run
 * scorecard -- --server URL`) can be run, and tested, against a real speculative decoder:
 *   POST /v1/chat/completions  messages, response_format {type: json_schema, json_schema: {name, schema, strict}},
 *                              temperature, top_p, seed, max_tokens, stream (server-sent events), stream_options.include_usage
 *   GET  /v1/models
 *   GET  /metrics              Prometheus text with vLLM's spec-decode counter names (so `import:vllm` and the
 *                              scorecard read it as they read vLLM), plus R and I, which vLLM does not count
 * A reference for the metrics contract, not a production server: requests are decoded one at a time, in the
 * order they arrive (a queue; a streamed request waiting in it gets an SSE comment every few seconds), on
 * 127.0.0.1 unless --host says otherwise, with no authentication.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupNodeEngine } from '../nodeEngine';
import { chatPrompt, type ChatTemplate } from '../../src/models/chatTemplate';
import type { SpecEngine } from '../../src/engine/engine';
import type { RunReport } from '../../src/contract/runReport';
import {
  DECODE_METHODS,
  findPreset,
  presetParams,
  type DecodeMethod,
  type RunParams,
} from '../../src/contract/runParams';
import { errorSummary, validateRunParams } from '../../src/contract/validation';
import type { DrafterId } from '../../src/core/draftLaw';
import { PromptTooLongError } from '../../src/engine/decode';
import { SchemaError, checkSchema, parseSchemaText } from '../../src/grammar/schema';
import { UsageError, limitedOption, runCommand, type Values } from './args';
import { COMMANDS } from './commands';
import { loadPairOption, parsePairOption } from './pair';

/** A request body larger than this is refused (413) before it is parsed. */
const BODY_LIMIT = 1 << 20;
/** Seconds between the SSE comments a queued stream receives, well inside a client's stall limit. */
const HEARTBEAT_MS = 5000;

export interface ServeOptions {
  model: string;
  method: DecodeMethod;
  K: number;
  L: number;
  drafter: DrafterId;
}

/** The counters /metrics exposes, summed over every completed request. */
class MetricsTotals {
  drafts = 0;
  draftTokens = 0;
  accepted = 0;
  perPosition: number[] = [];
  raw = 0;
  invalidated = 0;
  promptTokens = 0;
  generationTokens = 0;
  readonly success = new Map<string, number>();
  readonly errors = new Map<string, number>();

  add(report: RunReport, promptTokens: number, completionTokens: number, finish: string): void {
    const { vllm } = report.metrics;
    this.drafts += vllm.num_drafts;
    this.draftTokens += vllm.num_draft_tokens;
    this.accepted += vllm.num_accepted_tokens;
    vllm.num_accepted_tokens_per_pos.forEach((count, i) => (this.perPosition[i] = (this.perPosition[i] ?? 0) + count));
    this.raw += report.counters.raw;
    this.invalidated += report.counters.invalidated;
    this.promptTokens += promptTokens;
    this.generationTokens += completionTokens;
    this.success.set(finish, (this.success.get(finish) ?? 0) + 1);
  }

  error(status: number): void {
    this.errors.set(String(status), (this.errors.get(String(status)) ?? 0) + 1);
  }

  text(model: string, L: number): string {
    const label = `model_name=${JSON.stringify(model)}`;
    const counter = (name: string, help: string, samples: [string, number][]) => [
      `# HELP ${name} ${help}`,
      `# TYPE ${name} counter`,
      ...samples.map(([labels, value]) => `${name}{${labels}} ${value}`),
    ];
    const positions = Array.from({ length: Math.max(L, this.perPosition.length) }, (_, i) => this.perPosition[i] ?? 0);
    return [
      ...counter('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts (verification steps).', [
        [label, this.drafts],
      ]),
      ...counter(
        'vllm:spec_decode_num_draft_tokens_total',
        'Number of draft tokens (D: grammar-invalidated drafts excluded).',
        [[label, this.draftTokens]],
      ),
      ...counter('vllm:spec_decode_num_accepted_tokens_total', 'Number of accepted tokens (A).', [
        [label, this.accepted],
      ]),
      ...counter(
        'vllm:spec_decode_num_accepted_tokens_per_pos_total',
        'Accepted tokens per draft position.',
        positions.map((count, i): [string, number] => [`${label},position="${i}"`, count]),
      ),
      ...counter(
        'speclab:spec_decode_num_raw_draft_tokens_total',
        'Raw draft tokens before grammar validation (R; vLLM does not count it).',
        [[label, this.raw]],
      ),
      ...counter(
        'speclab:spec_decode_num_invalidated_draft_tokens_total',
        'Draft tokens the grammar invalidated (I = R - D; vLLM does not count it).',
        [[label, this.invalidated]],
      ),
      ...counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', [[label, this.promptTokens]]),
      ...counter('vllm:generation_tokens_total', 'Number of generation tokens processed.', [
        [label, this.generationTokens],
      ]),
      ...counter(
        'vllm:request_success_total',
        'Count of successfully processed requests.',
        [...this.success].map(([finish, count]): [string, number] => [
          `finished_reason=${JSON.stringify(finish)},${label}`,
          count,
        ]),
      ),
      ...counter(
        'speclab:request_errors_total',
        'Requests answered with an HTTP error, by status.',
        [...this.errors].map(([status, count]): [string, number] => [
          `status=${JSON.stringify(status)},${label}`,
          count,
        ]),
      ),
      '',
    ].join('\n');
  }
}

/** OpenAI's finish_reason: "length" when the token limit or the context cut the output short. */
const finishReason = (report: RunReport) =>
  report.ending === 'max-tokens' || report.ending === 'context-full' ? 'length' : 'stop';

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function errorBody(status: number, message: string): string {
  return JSON.stringify({
    error: {
      message,
      type: status === 404 ? 'NotFoundError' : status >= 500 ? 'InternalServerError' : 'BadRequestError',
      code: status,
    },
  });
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new HttpError(413, `the request body is over ${BODY_LIMIT} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the request body is not JSON');
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The request's run parameters, checked by the app's own validation; a mistake is a 400 with its reason. */
export function requestParams(
  body: unknown,
  options: ServeOptions,
  chatTemplate: ChatTemplate | null = null,
): { params: RunParams; stream: boolean; includeUsage: boolean } {
  if (!isObject(body)) throw new HttpError(400, 'the body must be a JSON object');
  if (body.model !== options.model)
    throw new HttpError(
      404,
      `The model \`${String(body.model).slice(0, 100)}\` does not exist; this server serves ${options.model}.`,
    );
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0)
    throw new HttpError(400, '"messages" must be a non-empty array');
  const parts = messages.map((message) => {
    if (!isObject(message) || typeof message.content !== 'string')
      throw new HttpError(400, 'each message needs a string "content"');
    return { role: typeof message.role === 'string' ? message.role : 'user', content: message.content };
  });
  let schemaText: string | null = null;
  const format = body.response_format;
  if (format !== undefined && format !== null) {
    if (!isObject(format) || (format.type !== 'json_schema' && format.type !== 'text'))
      throw new HttpError(
        400,
        'response_format must be {"type": "json_schema", "json_schema": {"name", "schema"}} or {"type": "text"}',
      );
    if (format.type === 'json_schema') {
      if (!isObject(format.json_schema) || !isObject(format.json_schema.schema))
        throw new HttpError(400, 'response_format.json_schema.schema must be a JSON schema object');
      schemaText = JSON.stringify(format.json_schema.schema);
      try {
        checkSchema(parseSchemaText(schemaText));
      } catch (error) {
        if (error instanceof SchemaError) throw new HttpError(400, error.message);
        throw error;
      }
    }
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? 96;
  const checked = validateRunParams({
    ...presetParams(findPreset('person')),
    method: options.method,
    K: options.K,
    L: options.L,
    drafter: options.drafter,
    prompt: chatPrompt(chatTemplate, parts),
    schemaText,
    temperature: body.temperature ?? 1,
    seed: body.seed ?? 1,
    maxTokens,
    ...(body.top_p === undefined ? {} : { topP: body.top_p }),
  });
  if (!checked.ok) throw new HttpError(400, errorSummary(checked.errors));
  const streamOptions = body.stream_options;
  return {
    params: checked.params,
    stream: body.stream === true,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
  };
}

/** The HTTP server over one engine: requests decode one at a time, in arrival order. */
export function createSpecServer(engine: SpecEngine, options: ServeOptions): Server {
  const totals = new MetricsTotals();
  let queue: Promise<unknown> = Promise.resolve();
  let next = 0;
  const stopId = engine.pair.tokenizer.stopTokenId;
  const decodeText = (tokens: number[]) => engine.pair.tokenizer.decode(tokens.filter((token) => token !== stopId));

  const fail = (response: ServerResponse, status: number, message: string) => {
    totals.error(status);
    if (response.headersSent) {
      response.end(`data: ${errorBody(status, message)}\n\ndata: [DONE]\n\n`);
      return;
    }
    response.writeHead(status, { 'content-type': 'application/json' }).end(errorBody(status, message));
  };

  async function complete(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { params, stream, includeUsage } = requestParams(
      await readBody(request),
      options,
      engine.pair.target.chatTemplate,
    );
    const id = `chatcmpl-speclab-${++next}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: options.model, choices, ...extra })}\n\n`;
    const abort = new AbortController();
    response.on('close', () => abort.abort());
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    if (stream) {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      heartbeat = setInterval(() => response.write(': queued\n\n'), HEARTBEAT_MS);
    }
    const turn = queue.then(async () => {
      clearInterval(heartbeat);
      if (abort.signal.aborted) return null;
      const promptTokens = engine.pair.tokenizer.encode(params.prompt).length;
      const emitted: number[] = [];
      let sent = '';
      if (stream)
        response.write(
          chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
        );
      const report = await engine.run(
        params,
        stream
          ? async (record) => {
              emitted.push(...record.emitted.map((token) => token.token));
              const text = decodeText(emitted);
              // A token that ends mid-character decodes to U+FFFD until its next byte arrives: held back until then.
              if (text.length > sent.length && !text.endsWith('\uFFFD')) {
                response.write(
                  chunk([
                    { index: 0, delta: { content: text.slice(sent.length) }, logprobs: null, finish_reason: null },
                  ]),
                );
                sent = text;
              }
              await new Promise((resolve) => setImmediate(resolve));
            }
          : undefined,
        abort.signal,
      );
      return { report, promptTokens, sent };
    });
    queue = turn.catch(() => undefined);
    let outcome;
    try {
      outcome = await turn;
    } finally {
      clearInterval(heartbeat);
    }
    if (outcome === null) return;
    const { report, promptTokens, sent } = outcome;
    const finish = finishReason(report);
    // Output tokens, the stop token excluded (OpenAI's completion_tokens).
    const completion = report.tokens.filter((token) => token !== stopId).length;
    totals.add(report, promptTokens, completion, finish);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completion,
      total_tokens: promptTokens + completion,
    };
    if (stream) {
      const rest = report.text.startsWith(sent) ? report.text.slice(sent.length) : '';
      response.write(chunk([{ index: 0, delta: { content: rest }, logprobs: null, finish_reason: finish }]));
      if (includeUsage) response.write(chunk([], { usage }));
      response.end('data: [DONE]\n\n');
    } else {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: options.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: report.text }, logprobs: null, finish_reason: finish },
          ],
          usage,
        }),
      );
    }
  }

  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/metrics') {
      response
        .writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
        .end(totals.text(options.model, options.L));
    } else if (request.method === 'GET' && path === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: [{ id: options.model, object: 'model', created: 0, owned_by: 'speclab' }],
        }),
      );
    } else if (request.method === 'POST' && path === '/v1/chat/completions') {
      complete(request, response).catch((error: unknown) => {
        if (error instanceof HttpError) fail(response, error.status, error.message);
        else if (error instanceof PromptTooLongError || error instanceof SchemaError)
          fail(response, 400, error.message);
        else fail(response, 500, (error as Error).message);
      });
    } else
      fail(
        response,
        404,
        `no route ${request.method ?? ''} ${path ?? ''}; this server has POST /v1/chat/completions, GET /v1/models and GET /metrics`,
      );
  });
}

function parse(values: Values<typeof COMMANDS.serve>) {
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method)) throw new UsageError(`--method must be one of ${DECODE_METHODS.join(', ')}`);
  const port = Number(values.port);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UsageError(`--port must be a whole number from 0 to 65535, got ${values.port}`);
  if (values.host.trim() === '') throw new UsageError('--host needs a name or address');
  return {
    host: values.host,
    port,
    method,
    K: limitedOption('K', 'K', values.K),
    L: limitedOption('L', 'L', values.L),
    drafter: values.drafter as DrafterId,
    pair: values.pair === undefined ? null : parsePairOption(values.pair),
  };
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.serve, argv, async ({ values }) => {
    const { host, port, pair, ...decoding } = parse(values);
    const setup = await setupNodeEngine('cpu', pair === null ? undefined : await loadPairOption(pair));
    const model = pair === null ? 'speclab-bundled' : `${pair.draft},${pair.target}`;
    const server = createSpecServer(setup.engine, { model, ...decoding });
    const closed = new Promise<void>((resolve) => server.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    }).catch((error: unknown) => {
      throw new UsageError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
    });
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    console.log(
      `serving ${model} (${decoding.method}, K = ${decoding.K}, L = ${decoding.L}, drafter ${decoding.drafter}) on http://${shown}:${address.port}: POST /v1/chat/completions, GET /v1/models, GET /metrics; one request at a time (a queue), a reference for the metrics contract, not a production server`,
    );
    const stop = () => server.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await closed;
    await setup.dispose();
    return 0;
  });
}
