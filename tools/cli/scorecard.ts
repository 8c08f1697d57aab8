/**
 * npm run scorecard -- --presets a,b,… --seeds N [--method id] [--K n] [--L n] [--temperature T]
 *   [--max-tokens n] [--seed first] [--drafting validate|constrained] [--json] [--fail-on-invalid]
 * The structured-output scorecard on the bundled models (src/engine/bench.ts; the app's Scorecard view runs
 * the same code): one row per preset and constraint state, the schema on and the same prompt decoded
 * without it. Validity is the JSON-schema validator's (src/grammar/interpretedValidator.ts, bounded) against the full
 * schema; an output cut short (token limit, context) counts as
 * not valid. --json prints {rows: [...]}; otherwise a Markdown table. --fail-on-invalid: exit 1, with a
 * one-line reason, when any constrained output is not schema-valid (the unconstrained rows are the contrast).
 * --cases FILE.jsonl [--buckets a,b] instead of --presets: the same scorecard over a case file's cases
 * (tools/cli/cases.ts), grouped by bucket, each case's rows named by its bucket and line (bucket, case_line).
 * With --server URL --model NAME --cases FILE.jsonl: the same scorecard against an OpenAI-compatible server
 * (tools/cli/serverScorecard.ts).
 */
import { setupNodeEngine } from '../nodeEngine';
import {
  caseScorecardRowJson,
  scorecardCsv,
  scorecardRowJson,
  type CaseScorecardRow,
  type ScorecardFiguresJson,
  type ScorecardRow,
  type ScorecardSpec,
} from '../../src/contract/bench';
import type { DrafterId } from '../../src/core/draftLaw';
import { DECODE_METHODS, type DecodeMethod, type RunParams } from '../../src/contract/runParams';
import { caseScorecard, scorecard, type ScorecardCase } from '../../src/engine/bench';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import {
  UsageError,
  limitedOption,
  positiveInteger,
  presetOption,
  rangeChecked,
  runCommand,
  secondsOption,
  type Values,
} from './args';
import { bucketsOf, caseParams, casesOption } from './cases';
import { headerSafeKey } from './secrets';
import { errorSummary, validateRunParams } from '../../src/contract/validation';
import { readInputFile } from './input';
import {
  SERVER_DEFAULT_REPEATS,
  serverScorecard,
  serverScorecardMarkdown,
  serverTarget,
  type ServerScorecardSpec,
} from './serverScorecard';
import { COMMANDS } from './commands';
import { VERDICT_RULE, VERDICT_TEXT } from '../../src/core/verdict';
import { loadPairOption, parsePairOption, type PairLocation } from './pair';

function parse(values: Values<typeof COMMANDS.scorecard>): {
  spec: ScorecardSpec;
  cases: ScorecardCase[] | null;
  json: boolean;
  csv: boolean;
  failOnInvalid: boolean;
  pair: PairLocation | null;
} {
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method)) throw new UsageError(`--method must be one of ${DECODE_METHODS.join(', ')}`);
  const serverOnly = (['model', 'api-key-file', 'endpoint', 'repeats', 'warm-up'] as const).find(
    (name) => values[name] !== undefined,
  );
  if (serverOnly !== undefined) throw new UsageError(`--${serverOnly} goes with --server`);
  if (values.buckets !== undefined && values.cases === undefined) throw new UsageError('--buckets goes with --cases');
  const presets = values.presets.split(',').map((id) => presetOption(id.trim()).id);
  const spec: ScorecardSpec = {
    presets,
    seeds: positiveInteger('seeds', values.seeds),
    tokenBudget: positiveInteger('token-budget', values['token-budget']),
    base: {
      method,
      K: limitedOption('K', 'K', values.K),
      L: limitedOption('L', 'L', values.L),
      temperature: limitedOption('temperature', 'temperature', values.temperature),
      maxTokens: limitedOption('maxTokens', 'max-tokens', values['max-tokens']),
      seed: limitedOption('seed', 'seed', values.seed),
      drafting: values.drafting,
      drafter: values.drafter as DrafterId,
    },
  };
  if (values.json && values.csv) throw new UsageError('give --json or --csv, not both');
  return {
    spec,
    cases:
      values.cases === undefined
        ? null
        : scorecardCases(values.cases, values.buckets, spec, values['allow-absolute-paths']),
    json: values.json,
    csv: values.csv,
    failOnInvalid: values['fail-on-invalid'],
    pair: values.pair === undefined ? null : parsePairOption(values.pair),
  };
}

/**
 * --cases [--buckets]: the file's cases grouped by bucket (in the order the buckets first appear), each with its run
 * checked like any other, before a model loads.
 */
function scorecardCases(
  path: string,
  buckets: string | undefined,
  spec: ScorecardSpec,
  allowAbsolutePaths: boolean,
): ScorecardCase[] {
  const cases = casesOption(path, buckets, allowAbsolutePaths);
  return bucketsOf(cases)
    .flatMap((bucket) => cases.filter((item) => item.bucket === bucket))
    .map((item) => {
      const checked = validateRunParams(
        caseParams({ ...spec.base, prompt: item.prompt, schemaText: item.schemaText }, item),
      );
      if (!checked.ok) throw new UsageError(`--cases line ${item.line}: ${errorSummary(checked.errors)}`);
      return { bucket: item.bucket, line: item.line, on: checked.params, schema: item.schema };
    });
}

/** The Markdown table's columns after the row's name (preset, or bucket and case_line). */
const FIGURE_COLUMNS = [
  'constrained',
  'completions',
  'schema_valid_rate',
  'parse_errors',
  'truncated',
  'R',
  'I',
  'D',
  'A',
  'steps',
  'grammar_survival',
  'conditional_acceptance',
  'draft_yield',
  'mean_acceptance_length',
  'mask_ms_per_step',
  'tokens_per_second',
  'speedup_over_free',
] as const;

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.scorecard, argv, ({ values }) =>
    values.server === undefined
      ? runScorecard(rangeChecked(() => parse(values)))
      : runServerScorecard(parseServer(values)),
  );
}

/** --server: the options a server run takes, checked before any request is sent. */
function parseServer(values: Values<typeof COMMANDS.scorecard>) {
  if (values.model === undefined || values.cases === undefined)
    throw new UsageError('--server needs --model NAME and --cases FILE.jsonl');
  if (values.pair !== undefined || values.csv)
    throw new UsageError("--server scores the server's model: --pair and --csv do not apply");
  const rawKey =
    values['api-key-file'] === undefined
      ? (process.env.OPENAI_API_KEY ?? null)
      : readInputFile(values['api-key-file'], '--api-key-file', 64 * 1024).trim();
  const apiKey =
    rawKey === null || rawKey === ''
      ? rawKey
      : headerSafeKey(rawKey, values['api-key-file'] === undefined ? 'OPENAI_API_KEY' : '--api-key-file');
  const spec: ServerScorecardSpec = {
    target: serverTarget(values.server as string, apiKey === '' ? null : apiKey),
    cases: casesOption(values.cases, values.buckets, values['allow-absolute-paths']),
    concurrency: positiveInteger('concurrency', values.concurrency),
    repeats: positiveInteger('repeats', values.repeats ?? String(SERVER_DEFAULT_REPEATS)),
    warmUp: Number(values['warm-up'] ?? '1'),
    settings: {
      model: values.model,
      temperature: limitedOption('temperature', 'temperature', values.temperature),
      seed: limitedOption('seed', 'seed', values.seed),
      maxTokens: limitedOption('maxTokens', 'max-tokens', values['max-tokens']),
      timeoutMs: secondsOption(values.timeout as string),
      endpoint: values.endpoint === 'completions' ? 'completions' : 'chat',
    },
  };
  return { spec, json: values.json, failOnInvalid: values['fail-on-invalid'] };
}

async function runServerScorecard({ spec, json, failOnInvalid }: ReturnType<typeof parseServer>): Promise<number> {
  const card = await serverScorecard(spec, interpretedValidator, (line) => console.error(line));
  const { settings } = spec;
  if (json)
    console.log(
      JSON.stringify(
        {
          schema_version: 1,
          server: spec.target.base.href,
          model: settings.model,
          concurrency: spec.concurrency,
          repeats: spec.repeats,
          warm_up: spec.warmUp,
          temperature: settings.temperature,
          seed: settings.seed,
          max_tokens: settings.maxTokens,
          endpoint: settings.endpoint,
          cases: spec.cases.length,
          ...card,
        },
        null,
        2,
      ),
    );
  else console.log(serverScorecardMarkdown(card, spec));
  const failed = card.rows.filter((row) => row.constrained && row.valid < row.requests);
  if (!failOnInvalid || failed.length === 0) return 0;
  console.error(
    `scorecard: --fail-on-invalid: schema-on outputs not schema-valid: ${failed.map((row) => `${row.bucket} ${row.valid}/${row.requests} valid`).join('; ')}`,
  );
  return 1;
}

async function runScorecard({
  spec,
  cases,
  json,
  csv,
  failOnInvalid,
  pair,
}: ReturnType<typeof parse>): Promise<number> {
  const { engine, dispose } = await setupNodeEngine('cpu', pair === null ? undefined : await loadPairOption(pair));
  try {
    const run = (params: RunParams) => engine.run(params);
    const options = { onProgress: (done: number, total: number) => console.error(`scorecard: ${done}/${total} runs`) };
    const cards: (ScorecardRow | CaseScorecardRow)[] =
      cases === null
        ? await scorecard(run, interpretedValidator, spec, options)
        : await caseScorecard(run, interpretedValidator, cases, spec, options);
    const rows = cards.map((row) => ('preset' in row ? scorecardRowJson(row) : caseScorecardRowJson(row)));
    if (csv) process.stdout.write(scorecardCsv(cards));
    else if (json)
      console.log(
        JSON.stringify(
          {
            schema_version: 1,
            samples: spec.seeds,
            token_budget: spec.tokenBudget,
            pair: pair ?? 'bundled',
            ...(cases === null ? {} : { buckets: bucketsOf(cases) }),
            rows,
          },
          null,
          2,
        ),
      );
    else {
      const { method, K, L, temperature, maxTokens, seed } = spec.base;
      const workload =
        cases === null ? 'per preset' : `${cases.length} cases in ${bucketsOf(cases).length} buckets, per case`;
      console.log(
        `${pair === null ? '' : `${pair.draft} → ${pair.target}: `}${method} (drafter ${spec.base.drafter ?? 'model'}), K = ${K}, L = ${L}, T = ${temperature}, at most ${maxTokens} tokens a run; ${workload} ${spec.seeds} samples on successive seeds from ${seed}, each run until the schema-on and schema-off decodes have output ${spec.tokenBudget} tokens\n`,
      );
      const columns = [...(cases === null ? ['preset'] : ['bucket', 'case_line']), ...FIGURE_COLUMNS];
      console.log(`| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`);
      for (const row of rows)
        console.log(
          `| ${[...('preset' in row ? [row.preset] : [row.bucket, String(row.case_line)]), ...FIGURE_COLUMNS.map((column) => scorecardMarkdownCell(row, column))].join(' | ')} |`,
        );
      console.log(
        `\ntokens/s: median over samples [95% bootstrap interval]; speedup_over_free: the schema-on decode's tokens/s over schema-off's, sample by sample on the same seeds, and its verdict: ${VERDICT_RULE}.`,
      );
    }
    const failure = failOnInvalid ? invalidRows(cards) : null;
    if (failure !== null) {
      console.error(`scorecard: ${failure}`);
      return 1;
    }
  } finally {
    await dispose();
  }
  return 0;
}

/** A Markdown cell: tokens/s and the schema-on speed ratio with their intervals, the ratio with the shared verdict (src/core/verdict.ts). */
function scorecardMarkdownCell(row: ScorecardFiguresJson, column: (typeof FIGURE_COLUMNS)[number]): string {
  const interval = (ci: { low: number | null; high: number | null }) => ` [${ci.low}–${ci.high}]`;
  if (column === 'tokens_per_second') return `${row.tokens_per_second}${interval(row.tokens_per_second_ci95)}`;
  if (column === 'speedup_over_free')
    return row.speedup_over_free === null ||
      row.speedup_over_free_ci95 === null ||
      row.speedup_over_free_verdict === null
      ? '—'
      : `${row.speedup_over_free}×${interval(row.speedup_over_free_ci95)} ${VERDICT_TEXT[row.speedup_over_free_verdict]}`;
  return String(row[column] ?? '—');
}

/** --fail-on-invalid's one line: the constrained rows with outputs that are not schema-valid; null when there are none. */
export function invalidRows(rows: readonly (ScorecardRow | CaseScorecardRow)[]): string | null {
  const failed = rows.filter((row) => row.constrained && row.card.valid < row.card.completions);
  if (failed.length === 0) return null;
  const described = failed
    .map((row) => ({ name: 'preset' in row ? row.preset : `${row.bucket} line ${row.caseLine}`, card: row.card }))
    .map(
      ({ name, card }) =>
        `${name} ${card.valid}/${card.completions} valid (${card.invalid} invalid, ${card.truncated} cut short, ${card.deadEnds} dead ends)`,
    );
  return `--fail-on-invalid: constrained outputs not schema-valid: ${described.join('; ')}`;
}
