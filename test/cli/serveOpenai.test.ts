/**
 * `npm run serve` driven by the official `openai` client (npm openai), as an engineer's own scripts drive
 * vLLM: every request field serve supports, streamed and not, and one invalid request per field, answered in
 * the API's error shape. The server runs with --api-key-file and --cors, so the bearer token and the one
 * allowed origin are exercised too. It runs without --per-request-spec-decode-metrics, as the reference for
 * the two servers started with it (summary, detailed): the same seeded request must come back unchanged but for
 * vLLM's metrics object.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../support/serveProcess';
import { readMetrics } from '../../src/core/vllmMetrics';
import { main as scorecard } from '../../tools/cli/scorecard';
import { vi } from 'vitest';

const MODEL = 'speclab-bundled';
const KEY = 'sk-speclab-test-key';
const NOTEBOOK = 'http://notebook.test:8888';
const PROMPT = 'Text: Maria Lopez, 34, has been a library member since May.\nJSON: ';
const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};

let serve: ServeProcess;
let client: OpenAI;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'speclab-serve-openai-'));
  writeFileSync(join(dir, 'key'), `${KEY}\n`);
  serve = await startServe(['--L', '3', '--api-key-file', join(dir, 'key'), '--cors', NOTEBOOK]);
  client = new OpenAI({ baseURL: `${serve.base}/v1`, apiKey: KEY, maxRetries: 0 });
}, 120_000);

afterAll(() => serve.stop());

type ChatParams = Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'model' | 'messages'>;

const chat = (params: ChatParams = {}) =>
  client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: 24,
    ...params,
  });

/** The same request streamed: each choice's content, logprobs and finish reason rebuilt from the chunks. */
async function chatStreamed(params: ChatParams = {}) {
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: 24,
    ...params,
    stream: true,
    stream_options: { include_usage: true },
  });
  const choices = new Map<
    number,
    { content: string; logprobs: OpenAI.Chat.ChatCompletionTokenLogprob[]; finish: string | null }
  >();
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    usage = chunk.usage ?? usage;
    for (const choice of chunk.choices) {
      const entry = choices.get(choice.index) ?? { content: '', logprobs: [], finish: null };
      entry.content += choice.delta.content ?? '';
      entry.logprobs.push(...(choice.logprobs?.content ?? []));
      entry.finish = choice.finish_reason ?? entry.finish;
      choices.set(choice.index, entry);
    }
  }
  return { choices, usage };
}

/** An invalid request: the client's APIError, with the API's error shape (status, type, param). */
async function rejection(request: Promise<unknown>) {
  const error = await request.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const api = error as InstanceType<typeof OpenAI.APIError>;
  return { status: api.status, param: api.param, type: api.type, message: api.message };
}

describe('serve through the openai client: chat completions', () => {
  it('n: independent choices (choice i with seed + i), streamed and not; n: 0 is a 400 naming n', async () => {
    const plain = await chat({ n: 3, seed: 5, temperature: 1 });
    expect(plain.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    const alone = await chat({ n: 1, seed: 6, temperature: 1 });
    expect(plain.choices[1]?.message.content).toBe(alone.choices[0]?.message.content);
    const streamed = await chatStreamed({ n: 3, seed: 5, temperature: 1 });
    expect([...streamed.choices.keys()].sort()).toEqual([0, 1, 2]);
    expect([0, 1, 2].map((i) => streamed.choices.get(i)?.content)).toEqual(plain.choices.map((c) => c.message.content));
    expect(streamed.usage?.completion_tokens).toBe(plain.usage?.completion_tokens);
    expect(await rejection(chat({ n: 0 }))).toMatchObject({ status: 400, param: 'n', type: 'BadRequestError' });
  }, 120_000);

  it('logprobs and top_logprobs: the target law at each token (T = 0: log 1 = 0), streamed and not; invalid ones refused', async () => {
    const greedy = await chat({ logprobs: true, top_logprobs: 2, temperature: 0 });
    const content = greedy.choices[0]?.logprobs?.content ?? [];
    expect(content.map((token) => token.token).join('')).toBe(greedy.choices[0]?.message.content);
    // At T = 0 the target's tempered law is a point mass: every emitted token had probability 1.
    expect(content.every((token) => token.logprob === 0)).toBe(true);
    expect(content.every((token) => token.top_logprobs[0]?.token === token.token)).toBe(true);
    const sampled = await chat({ logprobs: true, top_logprobs: 3, temperature: 1, seed: 3 });
    for (const token of sampled.choices[0]?.logprobs?.content ?? []) {
      expect(token.logprob).toBeLessThanOrEqual(0);
      expect(token.top_logprobs).toHaveLength(3);
      const tops = token.top_logprobs.map((entry) => entry.logprob);
      expect(tops).toEqual([...tops].sort((a, b) => b - a));
      // The emitted token is either among the three heaviest, with the same figure, or lighter than all of them.
      const listed = token.top_logprobs.find((entry) => entry.token === token.token);
      if (listed) expect(listed.logprob).toBe(token.logprob);
      else expect(token.logprob).toBeLessThanOrEqual(tops[2] as number);
      expect(token.bytes).toEqual([...new TextEncoder().encode(token.token)]);
    }
    const streamed = await chatStreamed({ logprobs: true, top_logprobs: 3, temperature: 1, seed: 3 });
    expect(streamed.choices.get(0)?.logprobs).toEqual(sampled.choices[0]?.logprobs?.content);
    expect((await chat({ temperature: 1, seed: 3 })).choices[0]?.logprobs).toBeNull();
    expect(await rejection(chat({ logprobs: true, top_logprobs: 21 }))).toMatchObject({
      status: 400,
      param: 'top_logprobs',
    });
    expect(await rejection(chat({ top_logprobs: 2 }))).toMatchObject({ status: 400, param: 'top_logprobs' });
    expect(await rejection(chat({ logprobs: 'yes' as unknown as boolean }))).toMatchObject({
      status: 400,
      param: 'logprobs',
    });
  }, 120_000);

  it('response_format json_object and json_schema: the output parses, streamed and not; an unknown type is refused', async () => {
    const object = await chat({ response_format: { type: 'json_object' }, max_tokens: 60, temperature: 0 });
    expect(object.choices[0]?.finish_reason).toBe('stop');
    const value = JSON.parse(object.choices[0]?.message.content ?? '') as unknown;
    expect(value !== null && typeof value === 'object' && !Array.isArray(value)).toBe(true);
    const streamed = await chatStreamed({ response_format: { type: 'json_object' }, max_tokens: 60, temperature: 0 });
    expect(streamed.choices.get(0)?.content).toBe(object.choices[0]?.message.content);
    const person = await chatStreamed({
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON, strict: true } },
      max_tokens: 40,
      temperature: 0,
    });
    expect(Object.keys(JSON.parse(person.choices.get(0)?.content ?? '') as object)).toEqual(['name', 'age']);
    expect(
      await rejection(chat({ response_format: { type: 'xml' } as unknown as OpenAI.ResponseFormatText })),
    ).toMatchObject({ status: 400, param: 'response_format' });
  }, 120_000);

  it('seed: the same seed, the same output, streamed or not; a negative seed is refused', async () => {
    const [a, b] = [await chat({ seed: 11, temperature: 1 }), await chat({ seed: 11, temperature: 1 })];
    expect(a.choices[0]?.message.content).toBe(b.choices[0]?.message.content);
    expect((await chatStreamed({ seed: 11, temperature: 1 })).choices.get(0)?.content).toBe(
      a.choices[0]?.message.content,
    );
    expect(await rejection(chat({ seed: -1 }))).toMatchObject({ status: 400, param: 'seed' });
  }, 60_000);

  it('stop: the output ends before the first stop sequence, which is not in the content, streamed and not', async () => {
    const params = {
      response_format: { type: 'json_schema' as const, json_schema: { name: 'person', schema: PERSON } },
      max_tokens: 40,
      temperature: 0,
    };
    const full = (await chat(params)).choices[0]?.message.content ?? '';
    expect(full).toContain('"age"');
    const cut = await chat({ ...params, stop: ['"age"', 'never appears'], logprobs: true });
    expect(cut.choices[0]?.message.content).toBe(full.slice(0, full.indexOf('"age"')));
    expect(cut.choices[0]?.finish_reason).toBe('stop');
    expect(cut.choices[0]?.logprobs?.content?.map((token) => token.token).join('')).toContain(
      cut.choices[0]?.message.content,
    );
    const streamed = await chatStreamed({ ...params, stop: '"age"' });
    expect(streamed.choices.get(0)).toMatchObject({ content: full.slice(0, full.indexOf('"age"')), finish: 'stop' });
    expect(await rejection(chat({ stop: ['a', 'b', 'c', 'd', 'e'] }))).toMatchObject({ status: 400, param: 'stop' });
  }, 120_000);

  it('max_completion_tokens bounds the output (finish_reason length), streamed and not; 0 is refused', async () => {
    const short = await chat({ max_completion_tokens: 3, temperature: 1, seed: 2 });
    expect(short.usage?.completion_tokens).toBe(3);
    expect(short.choices[0]?.finish_reason).toBe('length');
    const streamed = await chatStreamed({ max_completion_tokens: 3, temperature: 1, seed: 2 });
    expect(streamed.choices.get(0)?.finish).toBe('length');
    expect(streamed.usage?.completion_tokens).toBe(3);
    expect(await rejection(chat({ max_completion_tokens: 0 }))).toMatchObject({
      status: 400,
      param: 'max_completion_tokens',
    });
  }, 60_000);

  it('user is ignored; a field the API does not define is ignored and logged, as vLLM does; a penalty is refused with why', async () => {
    const plain = await chat({ seed: 4, temperature: 1 });
    const withUser = await chat({ seed: 4, temperature: 1, user: 'someone' });
    const withExtra = await chat({ seed: 4, temperature: 1, ...({ frobnicate: true } as object) });
    expect(withUser.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
    expect(withExtra.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
    expect(serve.stderr()).toMatch(
      /^serve: the request's fields frobnicate are not the API's: ignored \(as vLLM does\)$/m,
    );
    expect(serve.stderr()).not.toMatch(/fields user/);
    expect(await rejection(chat({ presence_penalty: 0.5 }))).toMatchObject({
      status: 400,
      param: 'presence_penalty',
      message: '400 presence_penalty: penalties change the target law; only 0 is served',
    });
    const neutral = await chat({ seed: 4, temperature: 1, presence_penalty: 0 });
    expect(neutral.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
  }, 60_000);
});

describe('serve through the openai client: refusals are HTTP statuses, before any byte of an answer', () => {
  it('an over-long prompt, streamed: 400 in the API shape naming messages (not 200 then an in-band error)', async () => {
    const long = 'word '.repeat(400);
    const refused = await rejection(
      client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: long }],
        max_tokens: 8,
        stream: true,
      }),
    );
    expect(refused).toMatchObject({ status: 400, param: 'messages', type: 'BadRequestError' });
    expect(refused.message).toMatch(
      /^400 the prompt is \d+ tokens and one step needs 4 more positions; the models see 256/,
    );
    expect(
      await rejection(client.completions.create({ model: MODEL, prompt: long, max_tokens: 8, stream: true })),
    ).toMatchObject({ status: 400, param: 'prompt' });
  });

  it('stream must be a boolean: stream "yes" is a 400 naming stream', async () => {
    expect(await rejection(chat({ stream: 'yes' as unknown as false }))).toMatchObject({
      status: 400,
      param: 'stream',
      message: '400 stream must be true or false',
    });
  });

  it('tools with tool_choice "required", or tool_choice alone: a 400 saying there is no tool calling', async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
    ];
    expect(await rejection(chat({ tools, tool_choice: 'required' }))).toMatchObject({
      status: 400,
      param: 'tools',
      message: '400 tools: this server has no tool calling',
    });
    expect(await rejection(chat({ tool_choice: 'required' }))).toMatchObject({ status: 400, param: 'tool_choice' });
  });

  it('GET /v1/models/{id}: the served model, and 404 in the API shape for any other', async () => {
    expect(await client.models.retrieve(MODEL)).toEqual({
      id: MODEL,
      object: 'model',
      created: 0,
      owned_by: 'speclab',
    });
    const missing = await rejection(client.models.retrieve('gpt-4o'));
    expect(missing).toMatchObject({ status: 404, type: 'NotFoundError', param: 'model' });
    expect(missing.message).toBe('404 The model `gpt-4o` does not exist; this server serves speclab-bundled.');
  });
});

describe('serve through the openai client: a fresh seed for each request that gives none', () => {
  it('calls without a seed each get a fresh one: their answers vary, and the seed in the speclab-seed header replays each', async () => {
    const request = () =>
      client.chat.completions
        .create({ model: MODEL, messages: [{ role: 'user', content: 'Once upon a time' }], max_tokens: 24 })
        .withResponse();
    // The bundled toy's likeliest answer here comes about 3 times in 10 (30 unseeded calls, 9 alike): two calls
    // alike would fail one run in ten, eight alike about one in ten thousand.
    const calls = [];
    for (let call = 0; call < 8; call++) calls.push(await request());
    const seeds = calls.map(({ response }) => Number(response.headers.get('speclab-seed')));
    expect(seeds.every((seed) => Number.isInteger(seed) && seed >= 0)).toBe(true);
    expect(new Set(seeds).size).toBe(seeds.length);
    const contents = calls.map(({ data }) => data.choices[0]?.message.content);
    expect(new Set(contents).size).toBeGreaterThan(1);
    for (const call of [0, 1]) {
      const replayed = await client.chat.completions
        .create({
          model: MODEL,
          messages: [{ role: 'user', content: 'Once upon a time' }],
          max_tokens: 24,
          seed: seeds[call] as number,
        })
        .withResponse();
      expect(replayed.data.choices[0]?.message.content).toBe(contents[call]);
      expect(replayed.response.headers.get('speclab-seed')).toBe(String(seeds[call]));
    }
  }, 60_000);
});

describe('serve through the openai client: completions', () => {
  const complete = (params: Omit<OpenAI.CompletionCreateParamsNonStreaming, 'model'>) =>
    client.completions.create({ model: MODEL, max_tokens: 16, ...params });

  it('a prompt string or list, n, logprobs and stop; streamed the same; token-id prompts refused', async () => {
    const one = await complete({ prompt: PROMPT, temperature: 0, logprobs: 2 });
    expect(one.object).toBe('text_completion');
    const logprobs = one.choices[0]?.logprobs;
    expect(logprobs?.tokens?.join('')).toBe(one.choices[0]?.text);
    expect(logprobs?.token_logprobs?.every((value) => value === 0)).toBe(true);
    expect(logprobs?.text_offset?.[0]).toBe(0);
    const list = await complete({ prompt: [PROMPT, 'Text: Bo, 7.\nJSON: '], n: 2, temperature: 1, seed: 9 });
    expect(list.choices.map((choice) => choice.index)).toEqual([0, 1, 2, 3]);
    const stream = await client.completions.create({
      model: MODEL,
      max_tokens: 16,
      prompt: [PROMPT, 'Text: Bo, 7.\nJSON: '],
      n: 2,
      temperature: 1,
      seed: 9,
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts = new Map<number, string>();
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      usage = chunk.usage ?? usage;
      for (const choice of chunk.choices) texts.set(choice.index, (texts.get(choice.index) ?? '') + choice.text);
    }
    expect([0, 1, 2, 3].map((i) => texts.get(i))).toEqual(list.choices.map((choice) => choice.text));
    expect(usage).toEqual(list.usage);
    expect(await rejection(complete({ prompt: [1, 2, 3] }))).toMatchObject({ status: 400, param: 'prompt' });
    expect(await rejection(complete({ prompt: PROMPT, logprobs: 6 }))).toMatchObject({
      status: 400,
      param: 'logprobs',
    });
    expect(await rejection(complete({ prompt: PROMPT, echo: true }))).toMatchObject({ status: 400, param: 'echo' });
  }, 120_000);

  it("guided_json (vLLM's) and response_format: schema-valid text; both at once refused", async () => {
    const guided = await complete({
      prompt: PROMPT,
      max_tokens: 40,
      temperature: 0,
      ...({ guided_json: PERSON } as object),
    });
    expect(Object.keys(JSON.parse(guided.choices[0]?.text ?? '') as object)).toEqual(['name', 'age']);
    const formatted = await complete({
      prompt: PROMPT,
      max_tokens: 40,
      temperature: 0,
      ...({ response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON } } } as object),
    });
    expect(formatted.choices[0]?.text).toBe(guided.choices[0]?.text);
    expect(
      await rejection(
        complete({ prompt: PROMPT, ...({ guided_json: PERSON, response_format: { type: 'json_object' } } as object) }),
      ),
    ).toMatchObject({ status: 400, param: 'guided_json' });
  }, 60_000);
});

describe('serve with --api-key-file and --cors', () => {
  it('needs the bearer token on /v1 (401 in the API shape without it), and answers the --cors origin alone', async () => {
    const stranger = new OpenAI({ baseURL: `${serve.base}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    expect(await rejection(stranger.models.list())).toMatchObject({ status: 401, type: 'invalid_api_key' });
    expect((await client.models.list()).data.map((model) => model.id)).toEqual([MODEL]);
    expect(serve.stderr()).not.toContain(KEY);
    expect(serve.banner).not.toContain(KEY);
    const preflight = await fetch(`${serve.base}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: NOTEBOOK, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(NOTEBOOK);
    const models = await fetch(`${serve.base}/v1/models`, {
      headers: { origin: NOTEBOOK, authorization: `Bearer ${KEY}` },
    });
    expect(models.headers.get('access-control-allow-origin')).toBe(NOTEBOOK);
    const other = await fetch(`${serve.base}/v1/models`, {
      headers: { origin: 'http://other.test', authorization: `Bearer ${KEY}` },
    });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

/** vLLM's metrics.speculative_decoding as serve writes it: `summary` carries these fields, R and I included. */
interface SpecObject {
  mean_acceptance_length: number;
  draft_acceptance_rate: number;
  acceptance_histogram: number[];
  num_spec_steps: number;
  num_accepted_draft_tokens: number;
  num_draft_tokens: number;
  num_spec_tokens: number;
  raw_draft_tokens: number;
  invalidated_draft_tokens: number;
  /** `detailed` only. */
  per_step_accepted?: number[];
  per_step_drafted?: number[];
}

const SUMMARY_FIELDS = [
  'mean_acceptance_length',
  'draft_acceptance_rate',
  'acceptance_histogram',
  'num_spec_steps',
  'num_accepted_draft_tokens',
  'num_draft_tokens',
  'num_spec_tokens',
  'raw_draft_tokens',
  'invalidated_draft_tokens',
];
const FIELDS = { summary: SUMMARY_FIELDS, detailed: [...SUMMARY_FIELDS, 'per_step_accepted', 'per_step_drafted'] };

/** What a request returned: the response, or every chunk of its stream, as JSON. */
async function exchange(api: OpenAI, endpoint: 'chat' | 'completions', params: object): Promise<object[]> {
  const request = { model: MODEL, max_tokens: 30, temperature: 1, ...params };
  const answer = (
    endpoint === 'chat'
      ? await api.chat.completions.create(request as OpenAI.Chat.ChatCompletionCreateParams)
      : await api.completions.create(request as OpenAI.CompletionCreateParams)
  ) as object;
  if ((params as { stream?: boolean }).stream !== true) return [answer];
  const chunks: object[] = [];
  for await (const chunk of answer as AsyncIterable<object>) chunks.push(chunk);
  return chunks;
}

/** A response or chunk less what differs between two servers answering the same seeded request: id, created, metrics. */
const apiPart = (json: object) =>
  Object.fromEntries(Object.entries(json).filter(([key]) => !['id', 'created', 'metrics'].includes(key)));

/** Short requests, streamed and not, chat and completions, one constrained (its drafts can be invalidated: I > 0). */
const REQUESTS: { endpoint: 'chat' | 'completions'; params: object }[] = [
  { endpoint: 'chat', params: { messages: [{ role: 'user', content: PROMPT }], seed: 21 } },
  {
    endpoint: 'chat',
    params: {
      messages: [{ role: 'user', content: PROMPT }],
      seed: 22,
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON } },
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  {
    endpoint: 'completions',
    params: { prompt: PROMPT, seed: 23, stream: true, stream_options: { include_usage: true } },
  },
];

describe.each(['summary', 'detailed'] as const)('serve --per-request-spec-decode-metrics %s', (mode) => {
  let flagged: ServeProcess;
  let flaggedClient: OpenAI;

  beforeAll(async () => {
    flagged = await startServe(['--L', '3', '--per-request-spec-decode-metrics', mode]);
    flaggedClient = new OpenAI({ baseURL: `${flagged.base}/v1`, apiKey: 'unused', maxRetries: 0 });
  }, 120_000);

  afterAll(() => flagged.stop());

  /** The spec-decode counters on the flagged server's /metrics (R and I are SpecLab's own families). */
  const totals = async () => {
    const text = await (await fetch(`${flagged.base}/metrics`)).text();
    const reading = readMetrics(text).vllm.get(MODEL);
    const speclab = (name: string) =>
      Number(new RegExp(`^speclab:spec_decode_num_${name}_draft_tokens_total\\{[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1]);
    return {
      steps: reading?.numDrafts ?? 0,
      D: reading?.numDraftTokens ?? 0,
      A: reading?.numAcceptedTokens ?? 0,
      perPosition: reading?.acceptedPerPosition ?? [],
      R: speclab('raw'),
      I: speclab('invalidated'),
    };
  };

  /** vLLM's identities on one response's object, and the fields this level carries, no more. */
  const check = (spec: SpecObject) => {
    expect(Object.keys(spec).sort()).toEqual([...FIELDS[mode]].sort());
    expect(spec.num_spec_tokens).toBe(3);
    expect(spec.num_spec_steps).toBeGreaterThan(0);
    expect(spec.num_draft_tokens).toBeGreaterThan(0);
    expect(spec.mean_acceptance_length).toBe(1 + spec.num_accepted_draft_tokens / spec.num_spec_steps);
    expect(spec.acceptance_histogram).toHaveLength(4);
    expect(spec.acceptance_histogram.reduce((a, b) => a + b, 0)).toBe(spec.num_spec_steps);
    expect(spec.acceptance_histogram.reduce((a, count, j) => a + j * count, 0)).toBe(spec.num_accepted_draft_tokens);
    expect(spec.draft_acceptance_rate).toBe(spec.num_accepted_draft_tokens / spec.num_draft_tokens);
    expect(spec.raw_draft_tokens - spec.invalidated_draft_tokens).toBe(spec.num_draft_tokens);
    if (mode === 'summary') return;
    const { per_step_accepted: accepted = [], per_step_drafted: drafted = [] } = spec;
    expect(accepted).toHaveLength(spec.num_spec_steps);
    expect(drafted).toHaveLength(spec.num_spec_steps);
    expect(accepted.reduce((a, b) => a + b, 0)).toBe(spec.num_accepted_draft_tokens);
    expect(drafted.reduce((a, b) => a + b, 0)).toBe(spec.num_draft_tokens);
    expect(spec.acceptance_histogram).toEqual([0, 1, 2, 3].map((j) => accepted.filter((a) => a === j).length));
  };

  it("every response carries vLLM's object (streamed: the usage chunk), whose sums equal the /metrics deltas; without the flag the same request is unchanged; n > 1 gives null", async () => {
    const before = await totals();
    const specs: SpecObject[] = [];
    for (const { endpoint, params } of REQUESTS) {
      const answer = await exchange(flaggedClient, endpoint, params);
      const unflagged = await exchange(client, endpoint, params);
      expect(unflagged.filter((part) => 'metrics' in part)).toEqual([]);
      expect(answer.map(apiPart)).toEqual(unflagged.map(apiPart));
      // One part carries the object: the response, or the stream's last chunk, the one with usage and no choices.
      expect(answer.flatMap((part, i) => ('metrics' in part ? [i] : []))).toEqual([answer.length - 1]);
      const last = answer.at(-1) as {
        usage?: object;
        choices: unknown[];
        metrics: { speculative_decoding: SpecObject };
      };
      expect(last.usage).toBeDefined();
      if (answer.length > 1) expect(last.choices).toEqual([]);
      check(last.metrics.speculative_decoding);
      specs.push(last.metrics.speculative_decoding);
    }
    const after = await totals();
    const sum = (field: (spec: SpecObject) => number) => specs.reduce((total, spec) => total + field(spec), 0);
    expect({
      steps: after.steps - before.steps,
      D: after.D - before.D,
      A: after.A - before.A,
      R: after.R - before.R,
      I: after.I - before.I,
      perPosition: after.perPosition.map((count, i) => count - (before.perPosition[i] ?? 0)),
    }).toEqual({
      steps: sum((spec) => spec.num_spec_steps),
      D: sum((spec) => spec.num_draft_tokens),
      A: sum((spec) => spec.num_accepted_draft_tokens),
      R: sum((spec) => spec.raw_draft_tokens),
      I: sum((spec) => spec.invalidated_draft_tokens),
      // Position i accepted in every step that accepted more than i drafts.
      perPosition: [0, 1, 2].map((i) =>
        sum((spec) => spec.acceptance_histogram.slice(i + 1).reduce((a, b) => a + b, 0)),
      ),
    });
    const [two] = await exchange(flaggedClient, 'chat', {
      messages: [{ role: 'user', content: PROMPT }],
      n: 2,
      max_tokens: 8,
    });
    expect((two as { metrics: { speculative_decoding: null } }).metrics.speculative_decoding).toBeNull();
  }, 120_000);

  // The scorecard reads either level alike: run once, against detailed.
  if (mode === 'detailed')
    it("scorecard --server at concurrency 4: per-bucket counters are the sums of that bucket's responses and equal the window's /metrics", async () => {
      const lines: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const code = await scorecard([
        '--server',
        flagged.base,
        '--model',
        MODEL,
        '--cases',
        'examples/cases.jsonl',
        '--concurrency',
        '4',
        '--max-tokens',
        '24',
        '--repeats',
        '1',
        '--json',
      ]);
      vi.restoreAllMocks();
      expect(code).toBe(0);
      const json = JSON.parse(lines.join('\n')) as {
        rows: {
          requests: number;
          per_request: {
            requests: number;
            pooled: { num_spec_steps: number; D: number; A: number; R: number; I: number };
          };
          counters: { vllm: { num_drafts: number; D: number; A: number; R: number; I: number } };
        }[];
      };
      for (const row of json.rows) {
        expect(row.per_request.requests).toBe(row.requests);
        const { pooled } = row.per_request;
        const window = row.counters.vllm;
        expect([pooled.num_spec_steps, pooled.D, pooled.A, pooled.R, pooled.I]).toEqual([
          window.num_drafts,
          window.D,
          window.A,
          window.R,
          window.I,
        ]);
      }
    }, 120_000);
});
