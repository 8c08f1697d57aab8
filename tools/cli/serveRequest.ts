/**
 * What `npm run serve` accepts in a request body, for POST /v1/chat/completions and POST /v1/completions: every
 * field the OpenAI API defines is supported, refused with the reason (a 400 naming it as `param`), or ignored
 * (`user`, and fields that only describe the request); a field the API does not define is ignored and listed,
 * as vLLM does (its OpenAIBaseModel allows extra fields and logs them). Nothing here decodes: the result is the
 * checked run parameters of each choice. docs/engineers.md has the table of fields.
 */
import { randomInt } from 'node:crypto';
import { hasOwnKey } from '../../src/contract/ownKeys';
import { LIMITS, SERVE_LIMITS } from '../../src/contract/limits';
import { findPreset, presetParams, type DecodeMethod, type RunParams } from '../../src/contract/runParams';
import { errorSummary, validateRunParams } from '../../src/contract/validation';
import type { DrafterId } from '../../src/core/draftLaw';
import { SchemaError, checkSchema, parseSchemaText } from '../../src/grammar/schema';
import { chatPrompt, type ChatTemplate } from '../../src/models/chatTemplate';

export type Endpoint = 'chat' | 'completions';

export interface ServeOptions {
  model: string;
  method: DecodeMethod;
  K: number;
  L: number;
  drafter: DrafterId;
}

/** An HTTP answer other than 200, in the OpenAI error shape; `param` names the request field at fault. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    /** Sent with the answer (429's Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export interface ChoicePlan {
  /** Position in the response's choices: prompt × n + i, as the API numbers them. */
  index: number;
  /** Which prompt (completions may send several). */
  prompt: number;
  params: RunParams;
}

export interface CompletionRequest {
  endpoint: Endpoint;
  prompts: string[];
  choices: ChoicePlan[];
  /** Report each emitted token's log-probability, and the `topLogprobs` heaviest alternatives. */
  logprobs: boolean;
  topLogprobs: number;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
  /** The seed choice 0 decodes with (choice i with seed + i): the request's, or a fresh one when it gave none. */
  seed: number;
  /** The field that carried the schema (response_format or guided_json), named when the schema is refused. */
  schemaParam: string;
  /** Fields the API does not define, ignored (the server logs them, as vLLM does). */
  ignored: string[];
}

/** The fields each endpoint reads, and those it ignores because they describe the request rather than change it. */
const COMMON_FIELDS = [
  'model',
  'n',
  'seed',
  'stop',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'top_k',
  'max_tokens',
  'response_format',
  'logprobs',
  'user',
  'metadata',
  'store',
  'service_tier',
];
const ENDPOINT_FIELDS: Record<Endpoint, string[]> = {
  chat: [...COMMON_FIELDS, 'messages', 'max_completion_tokens', 'top_logprobs', 'parallel_tool_calls'],
  completions: [...COMMON_FIELDS, 'prompt', 'guided_json'],
};

/**
 * Fields the API defines that this server refuses unless they hold their neutral value, with why: each would
 * change the law the verifiers preserve, or asks for something a speculative-decoding reference does not do.
 */
const REFUSED: Record<string, { neutral: (value: unknown) => boolean; why: string }> = {
  frequency_penalty: { neutral: (v) => v === 0, why: 'penalties change the target law; only 0 is served' },
  presence_penalty: { neutral: (v) => v === 0, why: 'penalties change the target law; only 0 is served' },
  logit_bias: {
    neutral: (v) => isObject(v) && Object.keys(v).length === 0,
    why: 'a bias changes the target law; only {} is served',
  },
  tools: { neutral: (v) => Array.isArray(v) && v.length === 0, why: 'this server has no tool calling' },
  tool_choice: { neutral: (v) => v === 'none', why: 'this server has no tool calling' },
  functions: { neutral: (v) => Array.isArray(v) && v.length === 0, why: 'this server has no function calling' },
  function_call: { neutral: (v) => v === 'none', why: 'this server has no function calling' },
  audio: { neutral: () => false, why: 'this server outputs text only' },
  modalities: {
    neutral: (v) => Array.isArray(v) && v.every((m) => m === 'text'),
    why: 'this server outputs text only',
  },
  prediction: {
    neutral: () => false,
    why: 'predicted outputs are not served (this server drafts with its own drafter)',
  },
  web_search_options: { neutral: () => false, why: 'this server has no web search' },
  reasoning_effort: { neutral: () => false, why: 'the bundled models do not reason' },
  echo: { neutral: (v) => v === false, why: 'the prompt is not echoed; only false is served' },
  suffix: { neutral: (v) => v === '', why: 'insertion (suffix) is not served' },
  best_of: {
    neutral: (v) => v === 1,
    why: 'best_of would pick among choices by likelihood, which is not the target law; only 1 is served',
  },
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const present = (body: Record<string, unknown>, field: string) => body[field] !== undefined && body[field] !== null;

function wholeNumber(body: Record<string, unknown>, field: string, min: number, max: number, fallback: number): number {
  if (!present(body, field)) return fallback;
  const value = body[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new HttpError(400, `${field} must be a whole number from ${min} to ${max}`, field);
  return value;
}

function boolean(body: Record<string, unknown>, field: string): boolean {
  if (!present(body, field)) return false;
  if (typeof body[field] !== 'boolean') throw new HttpError(400, `${field} must be true or false`, field);
  return body[field];
}

/** A message's text: a string, or the API's content parts of type text. */
function messageText(message: unknown): string {
  if (!isObject(message))
    throw new HttpError(400, 'each message must be an object with "role" and "content"', 'messages');
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => {
        if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return part.text;
        throw new HttpError(
          400,
          'message content parts must be {"type": "text", "text": …}: this server reads text only',
          'messages',
        );
      })
      .join('');
  throw new HttpError(400, 'each message needs "content": a string or text parts', 'messages');
}

function prompts(body: Record<string, unknown>, endpoint: Endpoint, chatTemplate: ChatTemplate | null): string[] {
  if (endpoint === 'chat') {
    const { messages } = body;
    if (!Array.isArray(messages) || messages.length === 0)
      throw new HttpError(400, '"messages" must be a non-empty array', 'messages');
    // Through the target's chat template where it has one; the bundled pair has none, so the messages' text joined.
    const parts = messages.map((message) => ({
      role: isObject(message) && typeof message.role === 'string' ? message.role : 'user',
      content: messageText(message),
    }));
    return [chatPrompt(chatTemplate, parts)];
  }
  const { prompt } = body;
  if (typeof prompt === 'string') return [prompt];
  if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((each) => typeof each === 'string')) return prompt;
  if (
    Array.isArray(prompt) &&
    prompt.length > 0 &&
    prompt.every((each) => typeof each === 'number' || Array.isArray(each))
  )
    throw new HttpError(
      400,
      'token-id prompts are refused: this server takes text, so its tokenizer is the only one',
      'prompt',
    );
  throw new HttpError(400, '"prompt" must be a string or a non-empty array of strings', 'prompt');
}

/** The schema text of a JSON constraint, checked; json_object is any JSON object, through the same grammar. */
function checkedSchema(schema: unknown, param: string): string {
  if (!isObject(schema)) throw new HttpError(400, `${param} must be a JSON schema object`, param);
  const text = JSON.stringify(schema);
  try {
    checkSchema(parseSchemaText(text));
  } catch (error) {
    if (error instanceof SchemaError) throw new HttpError(400, error.message, param);
    throw error;
  }
  return text;
}

function schemaText(body: Record<string, unknown>, endpoint: Endpoint): string | null {
  const format = body.response_format;
  const guided = endpoint === 'completions' && present(body, 'guided_json');
  if (guided && present(body, 'response_format'))
    throw new HttpError(400, 'give response_format or guided_json, not both', 'guided_json');
  if (guided) {
    const value = body.guided_json;
    let schema: unknown = value;
    if (typeof value === 'string')
      try {
        schema = JSON.parse(value);
      } catch {
        throw new HttpError(400, 'guided_json must be a JSON schema (an object, or its JSON text)', 'guided_json');
      }
    return checkedSchema(schema, 'guided_json');
  }
  if (format === undefined || format === null) return null;
  if (!isObject(format) || !['text', 'json_object', 'json_schema'].includes(format.type as string))
    throw new HttpError(
      400,
      'response_format must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name", "schema"}}',
      'response_format',
    );
  if (format.type === 'text') return null;
  if (format.type === 'json_object') return checkedSchema({ type: 'object' }, 'response_format');
  if (!isObject(format.json_schema) || !isObject(format.json_schema.schema))
    throw new HttpError(400, 'response_format.json_schema.schema must be a JSON schema object', 'response_format');
  return checkedSchema(format.json_schema.schema, 'response_format');
}

function stopSequences(body: Record<string, unknown>): string[] {
  if (!present(body, 'stop')) return [];
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (
    !Array.isArray(stop) ||
    stop.length > SERVE_LIMITS.stopSequences ||
    !stop.every((each) => typeof each === 'string' && each.length > 0 && each.length <= SERVE_LIMITS.stopChars)
  )
    throw new HttpError(
      400,
      `stop must be a string or up to ${SERVE_LIMITS.stopSequences} strings, each 1 to ${SERVE_LIMITS.stopChars} characters`,
      'stop',
    );
  return stop as string[];
}

/**
 * A seed for a request that gave none, so that two such requests draw independently (as the API's sampling
 * does), low enough that every choice's seed + i stays in range.
 */
export const freshSeed = () => randomInt(LIMITS.seed.min, LIMITS.seed.max - SERVE_LIMITS.choices + 2);

/** The API's name for a run parameter the app's validation refused. */
const API_NAMES: Record<string, string> = { topP: 'top_p', topK: 'top_k', maxTokens: 'max_tokens' };

/** A request body checked field by field; a mistake is an HttpError naming the field. */
export function parseCompletionRequest(
  body: unknown,
  endpoint: Endpoint,
  options: ServeOptions,
  chatTemplate: ChatTemplate | null = null,
  seedWhenNone: () => number = freshSeed,
): CompletionRequest {
  if (!isObject(body)) throw new HttpError(400, 'the body must be a JSON object');
  if (body.model !== options.model)
    throw new HttpError(
      404,
      `The model \`${String(body.model).slice(0, 100)}\` does not exist; this server serves ${options.model}.`,
      'model',
    );
  for (const [field, value] of Object.entries(body)) {
    const refused = hasOwnKey(REFUSED, field) ? REFUSED[field] : undefined;
    if (refused && value !== null && !refused.neutral(value))
      throw new HttpError(400, `${field}: ${refused.why}`, field);
  }
  const known = new Set([...ENDPOINT_FIELDS[endpoint], ...Object.keys(REFUSED)]);
  const ignored = Object.keys(body).filter((field) => !known.has(field));
  const texts = prompts(body, endpoint, chatTemplate);
  const n = wholeNumber(body, 'n', 1, SERVE_LIMITS.choices, 1);
  if (texts.length * n > SERVE_LIMITS.choices)
    throw new HttpError(
      400,
      `at most ${SERVE_LIMITS.choices} choices a request (prompts × n), got ${texts.length * n}`,
      'n',
    );
  let logprobs: boolean;
  let topLogprobs: number;
  if (endpoint === 'chat') {
    logprobs = boolean(body, 'logprobs');
    topLogprobs = wholeNumber(body, 'top_logprobs', 0, SERVE_LIMITS.topLogprobs, 0);
    if (present(body, 'top_logprobs') && !logprobs)
      throw new HttpError(400, 'top_logprobs needs logprobs: true', 'top_logprobs');
  } else {
    logprobs = present(body, 'logprobs');
    topLogprobs = wholeNumber(body, 'logprobs', 0, SERVE_LIMITS.completionLogprobs, 0);
  }
  const stop = stopSequences(body);
  const maxTokensField =
    endpoint === 'chat' && present(body, 'max_completion_tokens') ? 'max_completion_tokens' : 'max_tokens';
  const seed = present(body, 'seed') ? body.seed : seedWhenNone();
  const base = {
    ...presetParams(findPreset('person')),
    method: options.method,
    K: options.K,
    L: options.L,
    drafter: options.drafter,
    schemaText: schemaText(body, endpoint),
    temperature: body.temperature ?? 1,
    maxTokens: body[maxTokensField] ?? 96,
    ...(present(body, 'top_p') ? { topP: body.top_p } : {}),
    // vLLM's top_k: -1 (or 0) is off.
    ...(present(body, 'top_k') && body.top_k !== -1 && body.top_k !== 0 ? { topK: body.top_k } : {}),
  };
  const choices = texts.flatMap((prompt, p) =>
    Array.from({ length: n }, (_, i): ChoicePlan => {
      // Choice i of a prompt decodes with seed + i: independent draws, each reproducible alone.
      const checked = validateRunParams({ ...base, prompt, seed: typeof seed === 'number' ? seed + i : seed });
      if (!checked.ok) {
        const field = Object.keys(checked.errors)[0] ?? '';
        const param = field === 'maxTokens' ? maxTokensField : (API_NAMES[field] ?? field);
        throw new HttpError(
          400,
          `${errorSummary(checked.errors)}${n > 1 && field === 'seed' ? ` (choice ${i} decodes with seed + ${i})` : ''}`,
          param,
        );
      }
      return { index: p * n + i, prompt: p, params: checked.params };
    }),
  );
  const streamOptions = body.stream_options;
  if (present(body, 'stream_options') && !isObject(streamOptions))
    throw new HttpError(400, 'stream_options must be an object such as {"include_usage": true}', 'stream_options');
  return {
    endpoint,
    prompts: texts,
    choices,
    logprobs,
    topLogprobs,
    stop,
    stream: boolean(body, 'stream'),
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    seed: (choices[0] as ChoicePlan).params.seed,
    schemaParam: endpoint === 'completions' && present(body, 'guided_json') ? 'guided_json' : 'response_format',
    ignored,
  };
}
