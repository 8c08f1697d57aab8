/**
 * npm run serve -- [--host 127.0.0.1] [--port 8000] [--method ID] [--K n] [--L n] [--drafter ID] [--pair DRAFT,TARGET]
 *   [--cors ORIGIN] [--api-key-file FILE] [--max-queue N] [--per-request-spec-decode-metrics LEVEL]
 * This project's engine (the bundled pair, or --pair, through the one setup of worker, CLI and benches:
 * tools/nodeEngine.ts) behind an OpenAI-compatible endpoint, so that the server scorecard (`npm run
 * scorecard -- --server URL`) and engineers' own scripts can be run, and tested, against a real speculative decoder:
 *   POST /v1/chat/completions  the API's common fields (tools/cli/serveRequest.ts checks them; docs/engineers.md lists them)
 *   POST /v1/completions       prompt string or list, response_format or guided_json as vLLM accepts them
 *   GET  /v1/models, /v1/models/ID
 *   GET  /metrics              Prometheus text with vLLM's spec-decode counter names (so `import:vllm` and the
 *                              scorecard read it as they read vLLM), plus R and I, which vLLM does not count,
 *                              and vLLM's request queue-time histogram
 * A reference for the metrics contract, not a production server: requests are decoded one at a time, in the
 * order they arrive (a queue of at most --max-queue, then 429; a streamed request waiting in it gets an SSE
 * comment every few seconds), on 127.0.0.1 unless --host says otherwise; only same-origin requests with JSON
 * bodies (tools/cli/serveGuard.ts). A request is checked whole (its schema compiled within the app's budget,
 * off the event loop: tools/cli/serveCompile.ts) before the first byte of its answer.
 */
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setupNodeEngine } from '../nodeEngine';
import type { SpecEngine } from '../../src/engine/engine';
import { SERVE_LIMITS } from '../../src/contract/limits';
import type { RunReport } from '../../src/contract/runReport';
import { DECODE_METHODS, type DecodeMethod } from '../../src/contract/runParams';
import type { DrafterId } from '../../src/core/draftLaw';
import { PromptTooLongError } from '../../src/engine/decode';
import { SchemaError } from '../../src/grammar/schema';
import { UsageError, limitedOption, runCommand, type Values } from './args';
import { COMMANDS } from './commands';
import { readInputFile } from './input';
import { loadPairOption, parsePairOption } from './pair';
import { ChoiceText, chatLogprobs, completionLogprobs, type Piece } from './serveChoice';
import { CompileGate } from './serveCompile';
import { corsOrigin, createGuard, isExposed, type GuardOptions } from './serveGuard';
import {
  HttpError,
  parseCompletionRequest,
  type CompletionRequest,
  type Endpoint,
  type ServeOptions,
} from './serveRequest';
import { terminalSafe } from './terminalSafe';
import { speculativeDecodingObject, type SpecDecodeLevel, type StepTally } from '../../src/core/requestSpecMetrics';

export type { ServeOptions } from './serveRequest';

/** Seconds between the SSE comments a queued stream receives, well inside a client's stall limit. */
const HEARTBEAT_MS = 5000;

/** The upper bounds (seconds) of vLLM's request queue-time histogram, so a dashboard built for vLLM reads ours. */
const QUEUE_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];

/** Who may use the server (tools/cli/serveGuard.ts), less the port, which the listening socket supplies. */
export type ServeSecurity = Omit<GuardOptions, 'port'>;
const OPEN_LOCALLY: ServeSecurity = { host: '127.0.0.1', cors: null, apiKey: null };

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
  readonly clientAborts = new Map<AbortStage, number>();
  /** Requests decoded to the end, and their decode time: the mean paces 429's Retry-After. */
  decoded = 0;
  decodeSeconds = 0;
  readonly queueBuckets = QUEUE_BUCKETS.map(() => 0);
  queueCount = 0;
  queueSeconds = 0;

  /** A request's wait in the queue, from arrival to the start of its decode. */
  queued(seconds: number): void {
    this.queueCount++;
    this.queueSeconds += seconds;
    QUEUE_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) this.queueBuckets[i] = (this.queueBuckets[i] as number) + 1;
    });
  }

  /**
   * A client that went away: during its upload (no request was read, so no HTTP status is due), or after, while
   * its request waited or decoded. The latter is vLLM's finished_reason "abort"; its drafts and tokens are not
   * counted, so that a window's counters hold only requests whose answer was delivered.
   */
  aborted(stage: AbortStage): void {
    this.clientAborts.set(stage, (this.clientAborts.get(stage) ?? 0) + 1);
    if (stage !== 'upload') this.success.set('abort', (this.success.get('abort') ?? 0) + 1);
  }

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

  /** `load`: the requests decoding and waiting now (vLLM's gauges). */
  text(model: string, L: number, load: { running: number; waiting: number }): string {
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
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      `vllm:num_requests_running{${label}} ${load.running}`,
      '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
      '# TYPE vllm:num_requests_waiting gauge',
      `vllm:num_requests_waiting{${label}} ${load.waiting}`,
      '# HELP vllm:request_queue_time_seconds Histogram of time spent in the waiting queue (arrival to decode start).',
      '# TYPE vllm:request_queue_time_seconds histogram',
      ...QUEUE_BUCKETS.map(
        (bound, i) =>
          `vllm:request_queue_time_seconds_bucket{${label},le="${bound.toFixed(1)}"} ${this.queueBuckets[i]}`,
      ),
      `vllm:request_queue_time_seconds_bucket{${label},le="+Inf"} ${this.queueCount}`,
      `vllm:request_queue_time_seconds_sum{${label}} ${this.queueSeconds}`,
      `vllm:request_queue_time_seconds_count{${label}} ${this.queueCount}`,
      ...counter(
        'speclab:request_client_aborts_total',
        'Requests whose client went away: during the upload (not an HTTP error), or while queued or decoding (finished_reason "abort").',
        [...this.clientAborts].map(([stage, count]): [string, number] => [
          `stage=${JSON.stringify(stage)},${label}`,
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

/** Where a client went away: while sending its request, waiting in the queue, or while its request decoded. */
type AbortStage = 'upload' | 'queued' | 'decoding';

/** The client closed its connection: nothing is answered, and /metrics counts it by stage, not as an error. */
class ClientAbort extends Error {
  constructor(readonly stage: AbortStage) {
    super(`the client went away (${stage})`);
  }
}

/** OpenAI's finish_reason: "length" when the token limit or the context cut the output short, else "stop" (a stop token or sequence). */
const finishReason = (report: RunReport, stopped: boolean) =>
  stopped ? 'stop' : report.ending === 'max-tokens' || report.ending === 'context-full' ? 'length' : 'stop';

const ERROR_TYPES: Record<number, string> = {
  401: 'AuthenticationError',
  403: 'PermissionDeniedError',
  404: 'NotFoundError',
  408: 'RequestTimeoutError',
  429: 'RateLimitError',
  413: 'BadRequestError',
  415: 'BadRequestError',
};

/** The OpenAI (and vLLM) error shape: {error: {message, type, param, code}}. */
function errorBody(status: number, message: string, param: string | null = null, type?: string): string {
  return JSON.stringify({
    error: {
      message,
      type: type ?? ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequestError'),
      param,
      code: status,
    },
  });
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > SERVE_LIMITS.bodyBytes)
        throw new HttpError(413, `the request body is over ${SERVE_LIMITS.bodyBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    // Reading fails only when the connection does: the client aborted (or was cut at the request timeout).
    if (error instanceof HttpError) throw error;
    throw new ClientAbort('upload');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the request body is not JSON');
  }
}

/** One decoded choice, as the response and /metrics need it. */
interface ChoiceOutcome {
  index: number;
  report: RunReport;
  perStep: StepTally[];
  text: ChoiceText;
  finish: string;
}

const ROUTES = 'POST /v1/chat/completions, POST /v1/completions, GET /v1/models[/ID] and GET /metrics';

/** Node checks its header and request timeouts this often, so a trickling request is cut within a second of its bound. */
const TIMEOUT_CHECK_MS = 1000;

/** Where a request carried its prompt, named when the prompt leaves no room. */
const PROMPT_PARAM: Record<Endpoint, string> = { chat: 'messages', completions: 'prompt' };

/** A whole HTTP response written straight to a socket, for what Node reports before a request reaches the handler. */
function rawAnswer(status: number, body: string): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** The HTTP server over one engine: requests decode one at a time, in arrival order. */
export function createSpecServer(
  engine: SpecEngine,
  options: ServeOptions,
  security: ServeSecurity = OPEN_LOCALLY,
  /** vLLM's --per-request-spec-decode-metrics: each response's metrics.speculative_decoding (off by default). */
  specMetrics: SpecDecodeLevel = 'none',
  maxQueue: number = SERVE_LIMITS.queueDefault,
): Server {
  const totals = new MetricsTotals();
  let queue: Promise<unknown> = Promise.resolve();
  /** Requests admitted to the queue whose decode has not started, and the one decoding (0 or 1). */
  let waiting = 0;
  let running = 0;
  let next = 0;
  const { tokenizer } = engine.pair;
  const decodeTokens = (tokens: readonly number[]) => tokenizer.decode([...tokens]);
  const guard = createGuard(() => ({ ...security, port: (server.address() as AddressInfo | null)?.port ?? 0 }));
  const gate = new CompileGate(tokenizer.grammarVocabulary());
  /** Sockets Node cut at the request timeout: their handler's failed read is that 408, not a client abort. */
  const timedOut = new WeakSet<Socket>();

  const fail = (response: ServerResponse, error: HttpError) => {
    totals.error(error.status);
    if (response.headersSent) {
      response.end(`data: ${errorBody(error.status, error.message, error.param)}\n\ndata: [DONE]\n\n`);
      return;
    }
    response
      .writeHead(error.status, { ...error.headers, 'content-type': 'application/json' })
      .end(errorBody(error.status, error.message, error.param));
  };

  /**
   * Everything that can refuse a request, checked before its first byte so that a refusal is an HTTP status
   * (as vLLM answers 400 before streaming): the schema's compile within its budget, off the event loop
   * (serveCompile.ts), and the prompt's room in the context.
   */
  async function admit(parsed: CompletionRequest, endpoint: Endpoint): Promise<void> {
    const schemaText = parsed.choices[0]?.params.schemaText ?? null;
    try {
      if (schemaText !== null && !engine.isCompiled(schemaText)) await gate.check(schemaText);
      for (const plan of parsed.choices) await engine.checkRoom(plan.params);
    } catch (error) {
      if (error instanceof SchemaError) throw new HttpError(400, error.message, parsed.schemaParam);
      if (error instanceof PromptTooLongError) throw new HttpError(400, error.message, PROMPT_PARAM[endpoint]);
      throw error;
    }
  }

  /** 429 past --max-queue, with the seconds the requests ahead should take at the mean decode time so far. */
  function checkQueue(): void {
    if (waiting < maxQueue) return;
    const mean = totals.decoded === 0 ? 1 : totals.decodeSeconds / totals.decoded;
    const seconds = Math.max(1, Math.ceil(mean * (waiting + 1)));
    throw new HttpError(
      429,
      `the server is busy: ${waiting} request${waiting === 1 ? '' : 's'} already wait${waiting === 1 ? 's' : ''} (--max-queue ${maxQueue}); retry after ${seconds} s`,
      null,
      { 'retry-after': String(seconds) },
    );
  }

  async function complete(
    request: IncomingMessage,
    response: ServerResponse,
    endpoint: Endpoint,
    gone: AbortSignal,
  ): Promise<void> {
    const parsed = parseCompletionRequest(await readBody(request), endpoint, options, engine.pair.target.chatTemplate);
    if (parsed.ignored.length > 0)
      console.warn(
        `serve: the request's fields ${terminalSafe(parsed.ignored.join(', '), { maxChars: 200 })} are not the API's: ignored (as vLLM does)`,
      );
    await admit(parsed, endpoint);
    if (gone.aborted) throw new ClientAbort('queued');
    checkQueue();
    const chat = endpoint === 'chat';
    const id = `${chat ? 'chatcmpl' : 'cmpl'}-speclab-${++next}`;
    const created = Math.floor(Date.now() / 1000);
    const object = chat ? 'chat.completion.chunk' : 'text_completion';
    // The seed choice 0 decoded with (the request's, or the fresh one drawn for it), so that any answer can be replayed.
    const headers = { ...guard.corsHeaders(request), 'speclab-seed': String(parsed.seed) };
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object, created, model: options.model, choices, ...extra })}\n\n`;
    const logprobsOf = (tokens: Parameters<typeof chatLogprobs>[0]) =>
      !parsed.logprobs ? null : chat ? chatLogprobs(tokens) : completionLogprobs(tokens);
    const streamPiece = (index: number, piece: Piece | null, finish: string | null) => {
      if (piece === null && finish === null) return;
      const text = piece?.text ?? '';
      const logprobs = logprobsOf(piece?.tokens ?? []);
      response.write(
        chunk([
          chat
            ? { index, delta: { content: text }, logprobs, finish_reason: finish }
            : { index, text, logprobs, finish_reason: finish },
        ]),
      );
    };
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    if (parsed.stream) {
      response.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      heartbeat = setInterval(() => response.write(': queued\n\n'), HEARTBEAT_MS);
    }
    const arrived = performance.now();
    let started = false;
    waiting++;
    const turn = queue.then(async () => {
      waiting--;
      if (gone.aborted) return null;
      running = 1;
      started = true;
      clearInterval(heartbeat);
      const decodeStart = performance.now();
      totals.queued((decodeStart - arrived) / 1000);
      const outcomes: ChoiceOutcome[] = [];
      for (const plan of parsed.choices) {
        if (gone.aborted) return null;
        // A stop sequence ends the choice after the step that completed it; a closed connection ends them all.
        const choiceAbort = new AbortController();
        const onClose = () => choiceAbort.abort();
        gone.addEventListener('abort', onClose);
        const perStep: StepTally[] = [];
        const text = new ChoiceText(decodeTokens, tokenizer.stopTokenId, parsed.stop, plan.params.maxTokens);
        if (parsed.stream && chat)
          response.write(
            chunk([
              { index: plan.index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
            ]),
          );
        const report = await engine
          .run(
            plan.params,
            async (record) => {
              perStep.push({
                accepted: record.counts.accepted,
                drafted: record.counts.proposed - record.counts.invalidated,
              });
              if (text.push(record.emitted)) choiceAbort.abort();
              if (parsed.stream) {
                const piece = text.take(false);
                if (piece !== null && (piece.text !== '' || piece.tokens.length > 0))
                  streamPiece(plan.index, piece, null);
                await new Promise((resolve) => setImmediate(resolve));
              }
            },
            choiceAbort.signal,
            { topTokens: parsed.topLogprobs },
          )
          .finally(() => gone.removeEventListener('abort', onClose));
        if (gone.aborted) return null;
        const finish = finishReason(report, text.stopped);
        if (parsed.stream) streamPiece(plan.index, text.take(true), finish);
        outcomes.push({ index: plan.index, report, perStep, text, finish });
      }
      // Counted once the whole answer is decoded: a request whose client left midway adds nothing but its abort.
      for (const { report, text, finish } of outcomes)
        totals.add(report, tokenizer.encode(report.params.prompt).length, text.completionTokens, finish);
      totals.decoded++;
      totals.decodeSeconds += (performance.now() - decodeStart) / 1000;
      return outcomes;
    });
    queue = turn.catch(() => undefined).finally(() => (running = 0));
    let outcomes;
    try {
      outcomes = await turn;
    } finally {
      clearInterval(heartbeat);
    }
    if (outcomes === null) throw new ClientAbort(started ? 'decoding' : 'queued');
    const promptTokens = parsed.prompts.reduce((total, prompt) => total + tokenizer.encode(prompt).length, 0);
    const completionTokens = outcomes.reduce((total, outcome) => total + outcome.text.completionTokens, 0);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    // As vLLM: one request's figures, so null for n > 1 (and for several prompts).
    const only = outcomes.length === 1 ? outcomes[0] : undefined;
    const metrics =
      specMetrics === 'none'
        ? {}
        : {
            metrics: {
              speculative_decoding:
                only === undefined
                  ? null
                  : speculativeDecodingObject(only.report.counters, only.report.counters.L, specMetrics, only.perStep),
            },
          };
    if (parsed.stream) {
      if (parsed.includeUsage) response.write(chunk([], { usage, ...metrics }));
      response.end('data: [DONE]\n\n');
      return;
    }
    const choices = outcomes.map(({ index, text, finish }) => {
      const piece = text.take(true) as Piece;
      const logprobs = logprobsOf(piece.tokens);
      return chat
        ? { index, message: { role: 'assistant', content: piece.text }, logprobs, finish_reason: finish }
        : { index, text: piece.text, logprobs, finish_reason: finish };
    });
    response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(
      JSON.stringify({
        id,
        object: chat ? 'chat.completion' : 'text_completion',
        created,
        model: options.model,
        choices,
        usage,
        ...metrics,
      }),
    );
  }

  const modelObject = { id: options.model, object: 'model', created: 0, owned_by: 'speclab' };

  const server = createServer(
    {
      headersTimeout: SERVE_LIMITS.headersSeconds * 1000,
      requestTimeout: SERVE_LIMITS.requestSeconds * 1000,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    (request, response) => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const refused = guard.refusal(request, path);
      if (refused !== null) {
        // Not counted in /metrics, and the body is never read: a refused request changes nothing.
        response
          .writeHead(refused.status, { 'content-type': 'application/json', connection: 'close' })
          .end(errorBody(refused.status, refused.message, null, refused.type));
        request.resume();
        return;
      }
      const cors = guard.corsHeaders(request);
      const json = (value: unknown) =>
        response.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(value));
      const notFound = (message: string, param: string | null = null) =>
        fail(response, new HttpError(404, message, param));
      if (request.method === 'OPTIONS') {
        response.writeHead(204, cors).end();
      } else if (request.method === 'GET' && path === '/metrics') {
        response
          .writeHead(200, { ...cors, 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
          .end(totals.text(options.model, options.L, { running, waiting }));
      } else if (request.method === 'GET' && path === '/v1/models') {
        json({ object: 'list', data: [modelObject] });
      } else if (request.method === 'GET' && path.startsWith('/v1/models/')) {
        const wanted = modelIdOf(path.slice('/v1/models/'.length));
        if (wanted === options.model) json(modelObject);
        else
          notFound(
            `The model \`${(wanted ?? path).slice(0, 100)}\` does not exist; this server serves ${options.model}.`,
            'model',
          );
      } else if (request.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/completions')) {
        const gone = new AbortController();
        response.on('close', () => gone.abort());
        complete(request, response, path === '/v1/completions' ? 'completions' : 'chat', gone.signal).catch(
          (error: unknown) => {
            if (error instanceof ClientAbort) {
              // A read cut at the request timeout was answered (and counted) as 408 by clientError below.
              if (!timedOut.has(request.socket)) totals.aborted(error.stage);
              response.destroy();
            } else if (error instanceof HttpError) fail(response, error);
            else fail(response, new HttpError(500, (error as Error).message));
          },
        );
      } else notFound(`no route ${request.method ?? ''} ${path}; this server has ${ROUTES}`);
    },
  );
  // What Node reports before (or instead of) a request: a trickling request cut at its timeout gets 408 in the
  // API's shape, counted; a malformed one 400 (431 for oversized headers), as Node's own answer; a connection
  // the client closed, nothing.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    if (status === 408) {
      timedOut.add(socket);
      totals.error(408);
    }
    if (socket.writable && error.code !== 'ECONNRESET' && error.code !== 'HPE_INVALID_EOF_STATE') {
      const message =
        status === 408
          ? `the request did not arrive within ${SERVE_LIMITS.requestSeconds} s (headers within ${SERVE_LIMITS.headersSeconds} s): the connection was closed`
          : `the request is not valid HTTP (${error.code ?? error.message})`;
      socket.write(rawAnswer(status, errorBody(status, message)));
    }
    socket.destroy();
  });
  server.on('close', () => gate.close());
  return server;
}

/** The model id in a /v1/models/ID path, percent-decoded; null when the escapes are malformed. */
function modelIdOf(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function parse(values: Values<typeof COMMANDS.serve>) {
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method)) throw new UsageError(`--method must be one of ${DECODE_METHODS.join(', ')}`);
  const port = Number(values.port);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UsageError(`--port must be a whole number from 0 to 65535, got ${values.port}`);
  if (values.host.trim() === '') throw new UsageError('--host needs a name or address');
  const cors = values.cors === undefined ? null : corsOrigin(values.cors);
  if (values.cors !== undefined && cors === null)
    throw new UsageError(
      `--cors needs one origin such as https://notebook.example:8888 (scheme, host, port; no path, not "*"), got ${JSON.stringify(terminalSafe(values.cors, { maxChars: 80 }))}`,
    );
  const apiKey =
    values['api-key-file'] === undefined
      ? null
      : readInputFile(values['api-key-file'], '--api-key-file', 64 * 1024).trim();
  if (apiKey === '') throw new UsageError('--api-key-file is empty: it must hold the API key');
  return {
    host: values.host,
    port,
    security: { host: values.host, cors, apiKey },
    specMetrics: values['per-request-spec-decode-metrics'] as SpecDecodeLevel,
    maxQueue: Number(values['max-queue']),
    method,
    K: limitedOption('K', 'K', values.K),
    L: limitedOption('L', 'L', values.L),
    drafter: values.drafter as DrafterId,
    pair: values.pair === undefined ? null : parsePairOption(values.pair),
  };
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.serve, argv, async ({ values }) => {
    const { host, port, pair, security, specMetrics, maxQueue, ...decoding } = parse(values);
    const setup = await setupNodeEngine('cpu', pair === null ? undefined : await loadPairOption(pair));
    const model = pair === null ? 'speclab-bundled' : `${pair.draft},${pair.target}`;
    const server = createSpecServer(setup.engine, { model, ...decoding }, security, specMetrics, maxQueue);
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
      `serving ${model} (${decoding.method}, K = ${decoding.K}, L = ${decoding.L}, drafter ${decoding.drafter}) on http://${shown}:${address.port}: ${ROUTES}; one request at a time (a queue of at most ${maxQueue}), a reference for the metrics contract, not a production server`,
    );
    if (isExposed(host) && security.apiKey === null)
      console.warn(
        `warning: --host ${host} lets other machines reach this server, and it has no authentication: anyone who can reach port ${address.port} can decode on it (give --api-key-file FILE to require a bearer token)`,
      );
    const stop = () => server.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await closed;
    await setup.dispose();
    return 0;
  });
}
