/**
 * One streamed request of `scorecard --server`, and everything it trusts from the server checked first: the
 * target (URL credentials and the API key become headers that are validated and never printed), the
 * server-sent events (read in linear time, each event bounded), and each event's JSON (every number a finite
 * count, every text a string). A response that breaks the API's shape is reported as what it is, in one line,
 * never as "no connection"; a bad number loses only the figure it carried.
 */
import { BoundedReadError, NetworkTimeoutError, boundedFetch, shownUrlText } from '../../src/contract/boundedFetch';
import { SERVER_SCORECARD_LIMITS } from '../../src/contract/limits';
import { hasOwnKey } from '../../src/contract/ownKeys';
import type { SchemaValidator } from '../../src/grammar/score';
import { UsageError } from './args';
import type { Case } from './cases';
import { readRequestSpecMetrics, type RequestSpecRecord } from '../../src/core/requestSpecMetrics';
import { SHOWN_SECRET, headerSafeValue } from './secrets';
import { terminalSafe } from './terminalSafe';

export interface ServerTarget {
  /** The base URL without credentials: safe to print. */
  base: URL;
  headers: Record<string, string>;
}

/** The server URL with any user:password moved into a Basic header, and the API key as a Bearer token; the URL printed carries neither. */
export function serverTarget(text: string, apiKey: string | null): ServerTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `--server: ${JSON.stringify(terminalSafe(shownUrlText(text), { maxChars: 80 }))} is not a URL such as http://127.0.0.1:8000`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--server must be http or https, got ${terminalSafe(url.protocol, { maxChars: 20 })}`);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (url.username !== '' || url.password !== '') {
    let credentials: string;
    try {
      credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    } catch {
      throw new UsageError(`--server: the user name or password in the URL (${SHOWN_SECRET}) is not valid %-encoding`);
    }
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  if (apiKey !== null) headers.authorization = `Bearer ${apiKey}`;
  // Every header value checked before any request: fetch's own refusal quotes the value, a secret included.
  for (const [name, value] of Object.entries(headers)) headerSafeValue(value, `the ${name} header`);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  // "http://host:8000" and "http://host:8000/v1" both mean the server: the routes are added below.
  url.pathname = url.pathname.replace(/v1\/$/, '');
  return { base: url, headers };
}

/** An event that grew past SERVER_SCORECARD_LIMITS.eventChars without its blank line: the response is stopped. */
export class SseEventTooLargeError extends Error {
  override name = 'SseEventTooLargeError';
}

/**
 * Server-sent events, fed in chunks as they arrive: complete events' data, comments dropped. Each chunk is
 * searched once (plus the one character before it, for a blank line split across chunks), and an unfinished
 * event is kept as a list of chunks joined only when it ends, so a long event costs linear time; one past
 * `maxEventChars` throws rather than growing without end.
 */
export class SseReader {
  private pending: string[] = [];
  private pendingChars = 0;
  /** A chunk that ended in CR: it may be the first half of CRLF. */
  private carriedCr = false;
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxEventChars: number = SERVER_SCORECARD_LIMITS.eventChars) {}

  push(bytes: Uint8Array): string[] {
    let text = (this.carriedCr ? '\r' : '') + this.decoder.decode(bytes, { stream: true });
    this.carriedCr = text.endsWith('\r');
    if (this.carriedCr) text = text.slice(0, -1);
    text = text.replace(/\r\n?/g, '\n');
    const lead = this.pendingChars > 0 ? 1 : 0;
    const first = ((this.pending.at(-1) ?? '').slice(-1) + text).indexOf('\n\n');
    if (first < 0) {
      this.keep(text);
      return [];
    }
    const whole = this.pending.join('') + text;
    const events: string[] = [];
    let start = 0;
    for (let end = this.pendingChars - lead + first; end >= 0; end = whole.indexOf('\n\n', start)) {
      const data = whole
        .slice(start, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length > 0) events.push(data.join('\n'));
      start = end + 2;
    }
    this.pending = [];
    this.pendingChars = 0;
    this.keep(whole.slice(start));
    return events;
  }

  private keep(text: string): void {
    if (text === '') return;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars > this.maxEventChars)
      throw new SseEventTooLargeError(
        `an event of the stream passed ${this.maxEventChars / 2 ** 20} MiB without ending (no blank line): the response was stopped (a chunk of a completion is a few hundred bytes)`,
      );
  }
}

export type RequestOutcome =
  'valid' | 'invalid' | 'parse-error' | 'truncated' | 'server-error' | 'bad-response' | 'timeout' | 'connection-error';

/** Outcomes of a request the server finished: its output was judged. */
export const COMPLETED_OUTCOMES: readonly RequestOutcome[] = ['valid', 'invalid', 'parse-error', 'truncated'];

export interface RequestResult {
  outcome: RequestOutcome;
  /** The HTTP status of a server error. */
  status: number | null;
  content: string;
  finishReason: string | null;
  ttftMs: number | null;
  /** Gaps between successive chunks that carried content (a speculative step can bring several tokens in one). */
  gapsMs: number[];
  contentChunks: number;
  /** usage.completion_tokens, when the server sent usage and it was a count. */
  completionTokens: number | null;
  /** The request's own speculative-decoding counters, when the server reports them per request. */
  spec: RequestSpecRecord | null;
  /** What was wrong with the response, one line each: the whole response (a bad-response) or one figure in it. */
  problems: string[];
}

/** The JSON part of an output: after the case's trigger (reasoning, then JSON) when it appears, else all of it. */
export function jsonPart(content: string, trigger: string | null): string {
  if (trigger === null) return content;
  const at = content.lastIndexOf(trigger);
  return at < 0 ? content : content.slice(at + trigger.length);
}

/** How one finished output fares against its case's schema: cut short by max_tokens, not JSON, invalid, or valid. */
export function judge(
  content: string,
  finishReason: string | null,
  item: Case,
  validate: SchemaValidator,
): RequestOutcome {
  if (finishReason === 'length') return 'truncated';
  let value: unknown;
  try {
    value = JSON.parse(jsonPart(content, item.trigger));
  } catch {
    return 'parse-error';
  }
  return validate(item.schema, value) === null ? 'valid' : 'invalid';
}

export interface RequestSettings {
  model: string;
  /** POST /v1/chat/completions or /v1/completions. */
  endpoint: 'chat' | 'completions';
  temperature: number;
  seed: number;
  maxTokens: number;
  timeoutMs: number;
}

/** The request body (chat: the prompt as one user message; completions: as text): the schema as response_format (json_schema, strict) when constrained. */
export function requestBody(item: Case, constrained: boolean, settings: RequestSettings) {
  return {
    model: settings.model,
    ...(settings.endpoint === 'chat'
      ? { messages: [{ role: 'user', content: item.prompt }] }
      : { prompt: item.prompt }),
    temperature: settings.temperature,
    seed: settings.seed,
    max_tokens: settings.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
    ...(constrained
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: `${item.bucket}_line_${item.line}`, schema: item.schema, strict: true },
          },
        }
      : {}),
  };
}

/** A value from the server as a message shows it: short, escaped, its type plain (`"3"` is a string, `{}` an object). */
export function shownValue(value: unknown): string {
  const text = typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
  return terminalSafe(text, { maxChars: 40 });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A count as the API means one: a whole number from 0 to 2^53 (not "3", {}, -1e308 or Infinity). */
export const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A response that breaks the API's shape: the request's output cannot be read. */
class BadResponse extends Error {}

/** An optional text field (null or absent is none), or a BadResponse naming it. */
function textField(holder: Record<string, unknown>, key: string, where: string): string {
  const value = hasOwnKey(holder, key) ? holder[key] : undefined;
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new BadResponse(`${where}.${key} is ${shownValue(value)}, not text`);
  return value;
}

/** What one stream event carries. */
interface ChunkReading {
  error: boolean;
  choices: { text: string; reasoning: string; finishReason: string | null }[];
  /** undefined: the event carries no usage; null: it carries a bad one (the problem says why). */
  completionTokens: number | null | undefined;
  spec: RequestSpecRecord | null;
  problems: string[];
}

/** One event's data read against the API's shape: a BadResponse where the output cannot be read, a problem where only a figure is lost. */
export function readChunk(data: string): ChunkReading {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new BadResponse(`an event's data is not JSON: ${shownValue(data)}`);
  }
  if (!isObject(json)) throw new BadResponse(`an event's data is ${shownValue(json)}, not a JSON object`);
  const reading: ChunkReading = {
    error: hasOwnKey(json, 'error') && json.error !== undefined && json.error !== null,
    choices: [],
    completionTokens: undefined,
    spec: null,
    problems: [],
  };
  const choices = hasOwnKey(json, 'choices') ? json.choices : undefined;
  if (choices !== undefined && choices !== null) {
    if (!Array.isArray(choices)) throw new BadResponse(`choices is ${shownValue(choices)}, not a list`);
    choices.forEach((choice: unknown, i) => {
      const where = `choices[${i}]`;
      if (!isObject(choice)) throw new BadResponse(`${where} is ${shownValue(choice)}, not an object`);
      const delta = hasOwnKey(choice, 'delta') ? choice.delta : undefined;
      if (delta !== undefined && delta !== null && !isObject(delta))
        throw new BadResponse(`${where}.delta is ${shownValue(delta)}, not an object`);
      const finish = textField(choice, 'finish_reason', where);
      reading.choices.push({
        text: isObject(delta) ? textField(delta, 'content', `${where}.delta`) : textField(choice, 'text', where),
        reasoning: isObject(delta) ? textField(delta, 'reasoning_content', `${where}.delta`) : '',
        finishReason: finish === '' ? null : finish,
      });
    });
  }
  const usage = hasOwnKey(json, 'usage') ? json.usage : undefined;
  if (isObject(usage) && hasOwnKey(usage, 'completion_tokens')) {
    reading.completionTokens = isCount(usage.completion_tokens) ? usage.completion_tokens : null;
    if (reading.completionTokens === null)
      reading.problems.push(
        `usage.completion_tokens is ${shownValue(usage.completion_tokens)}, not a count (a whole number from 0): its tokens are unknown`,
      );
  } else if (usage !== undefined && usage !== null && !isObject(usage))
    reading.problems.push(`usage is ${shownValue(usage)}, not an object: its tokens are unknown`);
  try {
    reading.spec = readRequestSpecMetrics(json, ''); // each problem is already the response's
  } catch (error) {
    reading.problems.push(`${(error as Error).message}: its per-request counters are not used`);
  }
  return reading;
}

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly location: string | null,
  ) {
    super(`HTTP ${status}`);
  }
}

/** One streamed request, timed from the moment it is sent. */
export async function sendRequest(
  target: ServerTarget,
  item: Case,
  constrained: boolean,
  settings: RequestSettings,
  validate: SchemaValidator,
): Promise<RequestResult> {
  const reader = new SseReader();
  const started = performance.now();
  let content = '';
  let finishReason: string | null = null;
  let completionTokens: number | null = null;
  let spec: RequestSpecRecord | null = null;
  let last: number | null = null;
  let ttftMs: number | null = null;
  let streamError = false;
  let events = 0;
  const gapsMs: number[] = [];
  let contentChunks = 0;
  const problems: string[] = [];
  let badResponse = false;
  const result = (outcome: RequestOutcome, status: number | null = null): RequestResult => ({
    outcome,
    status,
    content,
    finishReason,
    ttftMs,
    gapsMs,
    contentChunks,
    completionTokens,
    spec,
    problems,
  });
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  // Stops the body at the first response that breaks the API's shape (nothing more of it can be read).
  const stop = new AbortController();
  const url = new URL(settings.endpoint === 'chat' ? 'v1/chat/completions' : 'v1/completions', target.base);
  try {
    await boundedFetch(url, {
      limit: { bytes: SERVER_SCORECARD_LIMITS.responseBytes, why: 'the most one streamed completion may be' },
      signal: AbortSignal.any([deadline, stop.signal]),
      init: {
        method: 'POST',
        headers: target.headers,
        body: JSON.stringify(requestBody(item, constrained, settings)),
        // A redirect is reported, not followed: the figures are the named server's, and its key goes nowhere else.
        redirect: 'manual',
      },
      checkResponse: (response) => {
        if (!response.ok) throw new HttpStatusError(response.status, response.headers.get('location'));
      },
      stream: {
        pace: false,
        onChunk: (bytes, at) => {
          if (badResponse) return;
          try {
            for (const data of reader.push(bytes)) {
              events++;
              if (data === '[DONE]') continue;
              const chunk = readChunk(data);
              streamError ||= chunk.error;
              problems.push(...chunk.problems);
              if (chunk.completionTokens !== undefined) completionTokens = chunk.completionTokens;
              spec = chunk.spec ?? spec;
              for (const choice of chunk.choices) {
                if (choice.text !== '' || choice.reasoning !== '') {
                  contentChunks++;
                  if (last === null) ttftMs = at - started;
                  else gapsMs.push(at - last);
                  last = at;
                }
                content += choice.text;
                if (choice.finishReason !== null) finishReason = choice.finishReason;
              }
            }
          } catch (error) {
            if (!(error instanceof BadResponse || error instanceof SseEventTooLargeError)) throw error;
            problems.unshift(error.message);
            badResponse = true;
            stop.abort();
          }
        },
      },
    });
  } catch (error) {
    if (badResponse) return result('bad-response');
    if (error instanceof HttpStatusError) {
      if (error.status >= 300 && error.status < 400) {
        problems.unshift(
          `HTTP ${error.status}, a redirect to ${error.location === null ? 'nowhere (no Location)' : terminalSafe(shownUrlText(error.location), { maxChars: 120 })}, not followed: give the URL it names as --server`,
        );
        return result('bad-response', error.status);
      }
      return result('server-error', error.status);
    }
    if (error instanceof NetworkTimeoutError || deadline.aborted) return result('timeout');
    if (error instanceof BoundedReadError) {
      problems.unshift(error.message);
      return result('bad-response');
    }
    return result('connection-error');
  }
  if (badResponse) return result('bad-response');
  if (events === 0) {
    problems.unshift('the response holds no server-sent events (data: lines), though the request asked for a stream');
    return result('bad-response');
  }
  // An error event in the stream, or a stream that ended without a finish reason, is the server's failure.
  if (streamError || finishReason === null) return result('server-error');
  return result(judge(content, finishReason, item, validate));
}
