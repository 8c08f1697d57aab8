/**
 * The one home of every run parameter's allowed range. The form, share links, the CLI, the worker protocol,
 * the verifiers and the shaders' array sizes all read these; nothing else states a range.
 */
export interface NumericLimit {
  min: number;
  max: number;
  integer: boolean;
  /** The smallest value is excluded (top-p must be above 0). */
  minExclusive?: boolean;
  label: string;
}

/** Drafts per step (K) and tokens per draft (L): 8 × 8 keeps a draft tree readable and a step's GPU buffers small. */
export const MAX_DRAFTS = 8;
export const MAX_DRAFT_LENGTH = 8;

export const LIMITS = {
  K: { min: 1, max: MAX_DRAFTS, integer: true, label: 'K drafts' },
  L: { min: 1, max: MAX_DRAFT_LENGTH, integer: true, label: 'L draft length' },
  temperature: { min: 0, max: 2, integer: false, label: 'Temperature' },
  topP: { min: 0, max: 1, integer: false, minExclusive: true, label: 'Top-p' },
  topK: { min: 1, max: 1_000_000, integer: true, label: 'Top-k' },
  seed: { min: 0, max: 2 ** 31 - 1, integer: true, label: 'Seed' },
  maxTokens: { min: 1, max: 512, integer: true, label: 'Max tokens' },
} as const satisfies Record<string, NumericLimit>;

export type LimitedParam = keyof typeof LIMITS;

/**
 * What a JSON schema may ask of the grammar compiler. xgrammar's compile time grows much faster than the
 * schema (3,000 properties ≈ 3 s, 10,000 ≈ 45 s, ~24,000 > 240 s), and deep nesting exhausts its stack and
 * the validators', so a schema past these is refused with the limit named; a compile still running after
 * `compileSeconds` is stopped.
 */
export const SCHEMA_LIMITS = {
  /** Objects and arrays inside one another. */
  nestingDepth: 32,
  /** Named properties, summed over the whole schema. */
  properties: 20_000,
  /** Values in one enum. */
  enumValues: 10_000,
  /**
   * Groups inside one another in a `pattern` (or a patternProperties name): xgrammar parses them recursively,
   * and about 170 levels overflow its wasm stack, corrupting its memory for every later compile.
   */
  patternGroupDepth: 32,
  /**
   * The schema with every local $ref written out: its sub-schemas, and its depth. A few KB of $defs that each
   * reference the next twice expand to billions of sub-schemas, which the output check would walk one by one.
   */
  expandedNodes: 100_000,
  expandedDepth: 128,
  compileSeconds: 10,
} as const;

/**
 * The check of a finished output against its schema (the browser's interpreting validator). Its work is the
 * output's size times the schema's with every $ref written out, which a schema within SCHEMA_LIMITS can still
 * make minutes long; a check past `steps` schema reads (about a second) is abandoned and says so.
 */
export const OUTPUT_CHECK_LIMITS = {
  steps: 5_000_000,
} as const;

/**
 * Bounds on every network read of a model load: the response's headers, any gap in its body, and its pace.
 * The pace bounds a download's total time by its size: from its first byte, a body may take `paceGraceSeconds`
 * plus one second per `minimumBytesPerSecond` it has delivered, and is stopped as soon as it falls behind. The
 * size counted is what arrived, not what the server or its manifest claims (a manifest may list 4 GiB), so 2 GB
 * at 1 KiB / 2 s ends after about 2 s, and a real model file at any usable speed never comes near the bound.
 */
export const NETWORK_LIMITS = {
  requestSeconds: 15,
  stallSeconds: 15,
  minimumBytesPerSecond: 4096,
  /** A connection's first seconds (TCP slow start) are not held to the pace. */
  paceGraceSeconds: 2,
} as const;

/**
 * What an imported vLLM /metrics scrape may hold (app and `npm run import:vllm`): a real scrape is tens of
 * kilobytes with a handful of positions, so these leave wide room while keeping parsing and charts bounded.
 */
export const SCRAPE_LIMITS = {
  /** Characters of scrape text, before it is parsed. */
  bytes: 8 * 1024 * 1024,
  /** Samples (series) across the whole scrape. */
  series: 50_000,
  /** Draft positions: position labels must be decimal integers below this. */
  positions: 1024,
  /** Any counter, and any sum of counters, must stay exact in a double. */
  counterMax: 2 ** 53,
} as const;

/**
 * What an imported file of per-request records may hold (app and `npm run import:vllm -- --responses`): one
 * response body or AIPerf profile_export.jsonl record a line. An AIPerf record with `detailed` per-step arrays is
 * a few kilobytes, so 32 MiB holds some ten thousand requests; a histogram's index (accepted drafts in one step)
 * stays below SCRAPE_LIMITS.positions.
 */
export const RESPONSES_LIMITS = {
  /** Bytes (or characters) of the whole file, before it is parsed. */
  bytes: 32 * 1024 * 1024,
  /** Lines of the file, blank ones included. */
  lines: 200_000,
  /** Characters of one line. */
  lineChars: 1024 * 1024,
} as const;

/** Per-position charts show at most this many bars; a longer list is summarised (its first positions shown, the rest counted). */
export const CHART_POSITIONS = 64;

/** What the command-line tools read: input files are refused past `fileBytes` before they are read whole. */
export const CLI_LIMITS = {
  /** A schema or scrape file, in bytes. */
  fileBytes: 8 * 1024 * 1024,
  /** How long an input file that is a pipe (a FIFO) may keep the CLI waiting for its writer's bytes, in ms. */
  pipeWaitMs: 10_000,
  /** Timed rounds of a race, or timed forwards per figure (--repeats of generate and bench:gpu). */
  repeats: 100,
  /** Seeds or samples per row or cell (--seeds of bench, bench:gpu, sweep and scorecard). */
  seeds: 100,
  /** Timed rounds per preset (--rounds of bench:gpu). */
  rounds: 100,
  /** onnxruntime-web's wasm threads (--threads of bench): one per core of the largest machine we expect. */
  threads: 256,
  /** Untimed warm-up runs or rounds before the timed ones (--warm-up of bench:gpu, bench:ui and bench:load). */
  warmUp: 10,
  /** Tokens a sample or a round runs to (--token-budget of bench, sweep and scorecard). */
  tokenBudget: 100_000,
  /** Corpus records the tokenizer trains on (--records of models:tokenizer). */
  corpusRecords: 1_000_000,
  /** BPE merges (--merges of models:tokenizer): the vocabulary stays well under the manifests' limit. */
  merges: 65_536,
  /** Held-out records per preset (--records and --acceptance-records of models:eval). */
  evalRecords: 10_000,
  /** Windows a live scrape polls before it stops (--count of import:vllm). */
  windows: 1_000_000,
  /** Requests in flight at once (--concurrency of scorecard --server). */
  concurrency: 256,
  /** Layers of a model replica (--layers of models:replica): replicas are small by design. */
  replicaLayers: 16,
  /** Width of a model replica (--hidden of models:replica), and the most heads it may have. */
  replicaWidth: 1024,
  /** Seed of a replica's random weights (--seed of models:replica). */
  replicaSeed: 1_000_000,
  /** Characters of one line of untrusted text echoed to the terminal. */
  echoChars: 200,
} as const;

/** What `scorecard --server` reads from a server: a whole streamed completion, and one server-sent event of it. */
export const SERVER_SCORECARD_LIMITS = {
  /** One streamed response (a 512-token answer is a few tens of kilobytes of events). */
  responseBytes: 16 * 2 ** 20,
  /** One event, in characters, before its blank line (a chunk is a few hundred bytes; a detailed usage chunk tens of kilobytes). */
  eventChars: 2 ** 20,
} as const;

/** What one request to `npm run serve` may ask for: OpenAI's own bounds where the API states one. */
export const SERVE_LIMITS = {
  /** A request body, in bytes, before it is parsed. */
  bodyBytes: 1 << 20,
  /** Choices one request decodes in turn: n, times the prompts of a completions request. */
  choices: 16,
  /** Stop sequences (OpenAI: up to 4), and characters in each. */
  stopSequences: 4,
  stopChars: 200,
  /** Chat's top_logprobs (OpenAI: 0–20) and completions' logprobs (OpenAI: at most 5). */
  topLogprobs: 20,
  completionLogprobs: 5,
  /**
   * Requests waiting behind the one decoding (--max-queue, default `queueDefault`): past it a request is answered
   * 429 with Retry-After, as vLLM's server does when overloaded, rather than waiting without bound.
   */
  queue: 1024,
  queueDefault: 64,
  /**
   * A request's headers must arrive within `headersSeconds`, and the whole request (headers and body) within
   * `requestSeconds`: a body that trickles (one byte a second) is cut with 408 instead of holding a connection
   * for Node's default 300 s. 20 s lets the largest body (1 MiB) arrive at 52 KB/s.
   */
  headersSeconds: 10,
  requestSeconds: 20,
} as const;

/**
 * The simulator's run sizes (npm run sim --steps and --contexts; contexts are also at most V²), and the time
 * its exact, block-optimum and bound figures may take together: past it a figure is skipped, saying why
 * (V = 12, K = 8, L = 2 took 95 s before, for figures a reader may not need).
 */
export const SIMULATION_LIMITS = {
  steps: 10_000_000,
  contexts: 1024,
  exactSeconds: 5,
} as const;

/** bench:verify --grid: each entry's vocabulary (the largest bundled-grid V is 151,936), and entries in all; K and L as LIMITS. */
export const BENCH_VERIFY_LIMITS = {
  vocab: 262_144,
  entries: 64,
} as const;

/** The ranges a model manifest's fields must lie in: a manifest is untrusted, like any downloaded file. */
export const MANIFEST_LIMITS = {
  /** Tokens of context. */
  contextLength: { min: 8, max: 131_072 },
  vocabSize: { min: 2, max: 1_000_000 },
  /** layers, heads and head_dim. */
  dimension: { min: 1, max: 65_536 },
  /** One listed file, in bytes (4 GiB). */
  fileBytes: 4 * 1024 ** 3,
  /** manifest.json or a Hub config.json, in bytes. */
  descriptionBytes: 1024 * 1024,
} as const;

/** What a talk file (src/store/talk.ts) may hold: a talk is untrusted input like a share link. */
export const TALK_LIMITS = {
  /** The file's size in characters. */
  fileChars: 1_000_000,
  scenes: 200,
  /** A title's or a caption's length in characters. */
  captionChars: 500,
} as const;
