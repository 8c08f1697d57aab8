/**
 * npm run generate -- (--preset <name> | --schema <file> | --free) [--prompt <text>] [--method <id>|all]
 *   [--K n] [--L n] [--temperature t] [--top-p p] [--seed n] [--max-tokens n] [--drafting validate|constrained]
 *   [--drafter model|model+grammar|model+lookup|model+grammar+lookup|head|head+grammar|copy|model+copy|model+grammar+copy]
 *   [--trigger <text>] [--verifier cpu|gpu] [--repeats n] [--json]
 *   [--fail-on-invalid]
 * Headless generation with the bundled models (onnxruntime-web, wasm EP). Prints the text, or with --json
 * one object per method with the pair, the counters, the derived ratios, vLLM's names and timings (a single
 * method's also the per-step drafted / invalidated / accepted arrays; ar's carry no K or L). --method all
 * runs every method on the same prompt and seed: the race, fair (src/engine/bench.ts): each method warmed
 * up untimed, then --repeats rounds in rotated order, tokens/s and speedup as medians with min–max.
 * Every usage or input error (an option, a parameter out of range, a schema the grammar cannot take, a
 * prompt too long for the models) prints `generate: <message>` and exits 2; the parameters and the schema
 * are checked before the models load, by the app's own validation (src/contract/validation.ts).
 * --fail-on-invalid: exit 1, with a one-line reason, when any output is not schema-valid (invalid, cut short
 * by the token limit or the context, or at a grammar dead end), so that CI scripts can rely on it.
 */
import { setupNodeEngine } from '../nodeEngine';
import { errorSummary, validateRunParams } from '../../src/contract/validation';
import { usesHead, type DrafterId } from '../../src/core/draftLaw';
import { counterFields, type StepCounts } from '../../src/core/metrics';
import { intervalJson, type RaceEntry } from '../../src/contract/bench';
import { VERDICT_TEXT } from '../../src/core/verdict';
import { race } from '../../src/engine/bench';
import type { RunReport } from '../../src/contract/runReport';
import {
  DECODE_METHODS,
  findPreset,
  isBaseline,
  presetParams,
  type DecodeMethod,
  type RunParams,
} from '../../src/contract/runParams';
import { PromptTooLongError } from '../../src/engine/decode';
import { SchemaError, checkSchema, parseSchemaText } from '../../src/grammar/schema';
import { UsageError, limitedOption, positiveInteger, presetOption, runCommand, type Values } from './args';
import { COMMANDS } from './commands';
import { loadPairOption, parsePairOption, type PairLocation } from './pair';
import { readInputFile } from './input';
import { caseParams, casesOption, type Case } from './cases';
import { terminalSafe } from './terminalSafe';

const readSchemaFile = (path: string) => readInputFile(path, '--schema');

/** Reads the arguments and checks everything that can be checked without the models; throws UsageError. */
function parse(values: Values<typeof COMMANDS.generate>): {
  params: RunParams;
  cases: Case[] | null;
  methods: DecodeMethod[];
  json: boolean;
  verifier: 'cpu' | 'gpu';
  repeats: number;
  tokenBudget: number;
  failOnInvalid: boolean;
} {
  const sources = [
    values.preset !== undefined,
    values.schema !== undefined,
    values.free,
    values.cases !== undefined,
  ].filter(Boolean).length;
  if (sources !== 1)
    throw new UsageError('give exactly one of --preset <name>, --schema <file>, --free or --cases <file.jsonl>');
  const methods: DecodeMethod[] = values.method === 'all' ? [...DECODE_METHODS] : [values.method as DecodeMethod];
  if (!methods.every((method) => DECODE_METHODS.includes(method)))
    throw new UsageError(`--method must be one of ${DECODE_METHODS.join(', ')} or all`);
  if (values.buckets !== undefined && values.cases === undefined) throw new UsageError('--buckets goes with --cases');
  const cases =
    values.cases === undefined ? null : casesOption(values.cases, values.buckets, values['allow-absolute-paths']);
  if (cases !== null && (methods.length > 1 || values.prompt !== undefined || values.trigger !== undefined))
    throw new UsageError(
      '--cases takes each prompt, schema and trigger from the file, with one --method (not all), so no --prompt or --trigger',
    );
  const preset = values.preset === undefined ? null : presetOption(values.preset);
  if (values.prompt === undefined && !preset && cases === null)
    throw new UsageError('--prompt is required without --preset');
  const first = cases?.[0];
  const base: RunParams = preset
    ? presetParams(preset)
    : first
      ? caseParams(presetParams(findPreset('person')), first)
      : {
          ...presetParams(findPreset('person')),
          prompt: '',
          schemaText: values.free ? null : readSchemaFile(values.schema as string),
        };
  const candidate: RunParams = {
    ...base,
    K: limitedOption('K', 'K', values.K),
    L: limitedOption('L', 'L', values.L),
    temperature: limitedOption('temperature', 'temperature', values.temperature),
    seed: limitedOption('seed', 'seed', values.seed),
    maxTokens: limitedOption('maxTokens', 'max-tokens', values['max-tokens']),
    drafting: values.drafting,
    drafter: values.drafter as DrafterId,
    ...(values['top-p'] === undefined ? {} : { topP: limitedOption('topP', 'top-p', values['top-p']) }),
    ...(values.prompt === undefined ? {} : { prompt: values.prompt.replaceAll('\\n', '\n') }),
    ...(values.trigger === undefined ? {} : { trigger: values.trigger }),
  };
  const checked = validateRunParams(candidate);
  if (!checked.ok) throw new UsageError(errorSummary(checked.errors));
  if (checked.params.schemaText !== null) {
    try {
      checkSchema(parseSchemaText(checked.params.schemaText));
    } catch (error) {
      if (error instanceof SchemaError) throw new UsageError(error.message);
      throw error;
    }
  }
  const repeats = positiveInteger('repeats', values.repeats);
  const tokenBudget = positiveInteger('token-budget', values['token-budget']);
  // Each case's parameters are checked too, before the models load.
  for (const item of cases ?? []) {
    const each = validateRunParams(caseParams(checked.params, item));
    if (!each.ok) throw new UsageError(`--cases line ${item.line}: ${errorSummary(each.errors)}`);
  }
  return {
    params: checked.params,
    cases,
    methods,
    json: values.json,
    verifier: values.verifier,
    repeats,
    tokenBudget,
    failOnInvalid: values['fail-on-invalid'],
  };
}

/** Where the two models came from: the bundled pair, or the --pair given. */
type PairName = PairLocation | 'bundled';

/**
 * What a reader of the figures must know: at T = 0 the drafter is greedy, so K > 1 drafts are K identical
 * copies of one draft, and R and D count each token K times.
 */
export function runNotes(params: RunParams): string[] {
  return params.temperature === 0 && params.K > 1 && !isBaseline(params.method)
    ? [
        `at T = 0 the ${params.K} drafts are identical copies of one greedy draft: R and D count each drafted token ${params.K} times, and K = 1 gives the same output with a ${params.K}th of the draft work`,
      ]
    : [];
}

/** Per verification step, the tokens drafted, invalidated by the grammar and accepted (vLLM's per_step_drafted / per_step_accepted, plus I). */
export function perStepArrays(steps: readonly StepCounts[]) {
  return {
    per_step_drafted: steps.map((step) => step.proposed),
    per_step_invalidated: steps.map((step) => step.invalidated),
    per_step_accepted: steps.map((step) => step.accepted),
  };
}

/** The --json object: our counters and vLLM's per-request names side by side; ar and ar+jump-forward draft nothing, so they carry no K or L. */
export function summary(report: RunReport, pair: PairName = 'bundled') {
  return {
    schema_version: 1,
    pair,
    method: report.params.method,
    ...(isBaseline(report.params.method) ? {} : { K: report.params.K, L: report.params.L }),
    temperature: report.params.temperature,
    seed: report.params.seed,
    drafter: report.params.drafter ?? 'model',
    text: report.text,
    schema_valid: report.verdict === null ? null : report.verdict.kind === 'valid',
    verdict: report.verdict,
    ending: report.ending,
    unenforced_keywords: report.unenforced,
    ...counterFields(report.counters),
    tokens: report.tokens.length,
    block_efficiency: report.tokens.length / report.steps,
    ...report.metrics.vllm,
    timings_ms: { ...report.timings, wall: report.wallMs, generation: report.generationMs },
    tokens_per_second: report.tokensPerSecond,
  };
}

/**
 * A race row as two named records (the pair named in the first), each figure from its own runs: `first_run`, the run on the race's seed
 * (its text, counters and its own tokens/s), and `timed`, every timed run of every round (their summed
 * counters, and the tokens/s and speedup over ar measured on exactly those runs, with the shared verdict).
 */
function raceSummary(entry: RaceEntry, repeats: number, pair: PairName) {
  const { timed } = entry;
  return {
    method: entry.report.params.method,
    first_run: { ...summary(entry.report, pair), notes: runNotes(entry.report.params) },
    timed: {
      rounds: repeats,
      runs: timed.runs,
      tokens: timed.tokens,
      target_forwards: timed.forwards,
      generation_ms: timed.generationMs,
      ...counterFields(timed.counters),
      tokens_per_second: entry.tokensPerSecond.median,
      tokens_per_second_spread: entry.tokensPerSecond,
      speedup: entry.speedup?.median ?? null,
      speedup_spread: entry.speedup,
      speedup_ci95: entry.speedupInterval === null ? null : intervalJson(entry.speedupInterval, 3),
      tokens_timed_per_round: entry.tokensTimed,
      verdict_vs_ar: entry.verdict,
    },
  };
}

/** Model output is printed whole (512 tokens at most), but escaped: a model can write escape sequences too. */
const MODEL_TEXT_CHARS = 20_000;

function raceLine({ method, report, timed, tokensPerSecond, speedup, speedupInterval, verdict }: RaceEntry): string {
  const perForward = (report.tokens.length / report.steps).toFixed(2);
  // The timed runs' own figures: their tokens and forwards beside the tokens/s measured on them.
  const rate = `timed ${timed.tokens} tokens over ${timed.runs} runs, ${(timed.tokens / timed.forwards).toFixed(2)} per forward, ${tokensPerSecond.median.toFixed(1)} tok/s [${tokensPerSecond.min.toFixed(1)}–${tokensPerSecond.max.toFixed(1)}]`;
  const faster = speedup
    ? `, ${speedup.median.toFixed(2)}× ar${speedupInterval ? ` [${speedupInterval.low.toFixed(2)}–${speedupInterval.high.toFixed(2)}]` : ''}${verdict ? ` (${VERDICT_TEXT[verdict]})` : ''}`
    : '';
  return `${method.padEnd(11)} first run ${String(report.tokens.length).padStart(4)} tokens, ${String(report.steps).padStart(3)} target forwards (${perForward}/forward); ${rate}${faster}, ${report.verdict?.kind ?? 'free text'}: ${terminalSafe(report.text, { maxChars: MODEL_TEXT_CHARS })}`;
}

function reportVerdict(report: RunReport): void {
  if (report.verdict && report.verdict.kind !== 'valid')
    console.error(
      `${report.params.method}: ${report.verdict.kind}: ${terminalSafe(report.verdict.reason, { maxChars: MODEL_TEXT_CHARS })}`,
    );
}

/** --fail-on-invalid's one line: how many outputs are not schema-valid, and the first one's reason; null when all are. */
export function invalidOutputs(reports: readonly RunReport[]): string | null {
  const failed = reports.filter((report) => report.verdict !== null && report.verdict.kind !== 'valid');
  const first = failed[0];
  if (!first?.verdict || first.verdict.kind === 'valid') return null;
  return `--fail-on-invalid: ${failed.length} of ${reports.length} output${reports.length === 1 ? ' is' : 's are'} not schema-valid; first, ${first.params.method}: ${first.verdict.kind}: ${first.verdict.reason}`;
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.generate, argv, ({ values }) => generate(values));
}

/** What only the models can tell (the prompt's length in tokens, xgrammar's own refusals) is an input error too. */
function asUsageError(error: unknown): never {
  if (error instanceof PromptTooLongError || error instanceof SchemaError) throw new UsageError(error.message);
  throw error;
}

async function generate(values: Values<typeof COMMANDS.generate>): Promise<number> {
  const { params, cases, methods, json, verifier, repeats, tokenBudget, failOnInvalid } = parse(values);
  const location = values.pair === undefined ? null : parsePairOption(values.pair);
  const pair: PairName = location ?? 'bundled';
  for (const note of runNotes(params)) console.error(`generate: note: ${note}`);
  const reports: RunReport[] = [];
  const setup = await setupNodeEngine(verifier, location === null ? undefined : await loadPairOption(location));
  if (setup.verifierReason) console.error(`generate: verifying on the CPU twin: ${setup.verifierReason}`);
  const { engine } = setup;
  try {
    // A damaged head costs only the head drafters (the pair loads without it): asking for one is a mistake.
    if (params.drafter !== undefined && usesHead(params.drafter) && engine.headUnavailable !== null)
      throw new UsageError(`--drafter ${params.drafter}: ${engine.headUnavailable}`);
    if (cases !== null) {
      for (const item of cases) {
        const steps: StepCounts[] = [];
        const report = await engine
          .run(
            { ...caseParams(params, item), method: methods[0] as DecodeMethod },
            (record) => void steps.push(record.counts),
          )
          .catch(asUsageError);
        const where = { bucket: item.bucket, case_line: item.line, top_p: report.params.topP ?? null };
        console.log(
          json
            ? JSON.stringify({
                ...summary(report, pair),
                ...where,
                notes: runNotes(report.params),
                ...perStepArrays(steps),
              })
            : `${item.bucket} (line ${item.line}), ${report.verdict?.kind ?? 'free text'}: ${terminalSafe(report.text, { maxChars: MODEL_TEXT_CHARS })}`,
        );
        reportVerdict(report);
        reports.push(report);
      }
    } else if (methods.length === 1) {
      const steps: StepCounts[] = [];
      const report = await engine
        .run({ ...params, method: methods[0] as DecodeMethod }, (record) => void steps.push(record.counts))
        .catch(asUsageError);
      console.log(
        json
          ? JSON.stringify({ ...summary(report, pair), notes: runNotes(report.params), ...perStepArrays(steps) })
          : terminalSafe(report.text, { keepLines: true, maxChars: MODEL_TEXT_CHARS }),
      );
      reportVerdict(report);
      reports.push(report);
    } else {
      const result = await race((run) => engine.run(run), params, methods, repeats, { tokenBudget }).catch(
        asUsageError,
      );
      if (!json)
        console.log(
          `race: ${methods.length} methods, each warmed up once untimed, then ${repeats} timed rounds in rotated order, each over at least ${result.tokenBudget} tokens per method; tokens/s and speedup are medians [min–max]`,
        );
      for (const entry of result.entries) {
        console.log(json ? JSON.stringify(raceSummary(entry, result.repeats, pair)) : raceLine(entry));
        reportVerdict(entry.report);
        reports.push(entry.report);
      }
    }
  } finally {
    await setup.dispose();
  }
  const failure = failOnInvalid ? invalidOutputs(reports) : null;
  if (failure === null) return 0;
  console.error(`generate: ${failure}`);
  return 1;
}
