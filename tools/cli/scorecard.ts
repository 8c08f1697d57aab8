/**
 * npm run scorecard -- --presets a,b,… --seeds N [--method id] [--K n] [--L n] [--temperature T]
 *   [--max-tokens n] [--seed first] [--drafting validate|constrained] [--json] [--fail-on-invalid]
 * The structured-output scorecard on the bundled models (src/engine/bench.ts; the app's Scorecard view runs
 * the same code): one row per preset and constraint state, the schema on and the same prompt decoded
 * without it. Validity is the JSON-schema validator's (src/grammar/interpretedValidator.ts, bounded) against the full schema; an output cut short (token limit, context) counts as
 * not valid. --json prints {rows: [...]}; otherwise a Markdown table. --fail-on-invalid: exit 1, with a
 * one-line reason, when any constrained output is not schema-valid (the unconstrained rows are the contrast).
 */
import { setupNodeEngine } from '../nodeEngine';
import { scorecardCsv, scorecardRowJson, type ScorecardRow, type ScorecardSpec } from '../../src/contract/bench';
import type { DrafterId } from '../../src/core/draftLaw';
import { DECODE_METHODS, type DecodeMethod } from '../../src/contract/runParams';
import { scorecard } from '../../src/engine/bench';
import { interpretedValidator } from '../../src/grammar/interpretedValidator';
import { UsageError, limitedOption, positiveInteger, presetOption, rangeChecked, runCommand, type Values } from './args';
import { COMMANDS } from './commands';
import { loadPairOption, parsePairOption, type PairLocation } from './pair';

function parse(values: Values<typeof COMMANDS.scorecard>): { spec: ScorecardSpec; json: boolean; csv: boolean; failOnInvalid: boolean; pair: PairLocation | null } {
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method)) throw new UsageError(`--method must be one of ${DECODE_METHODS.join(', ')}`);
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
  return { spec, json: values.json, csv: values.csv, failOnInvalid: values['fail-on-invalid'], pair: values.pair === undefined ? null : parsePairOption(values.pair) };
}

const MARKDOWN_COLUMNS = ['preset', 'constrained', 'completions', 'schema_valid_rate', 'parse_errors', 'truncated', 'R', 'I', 'D', 'A', 'steps', 'grammar_survival', 'conditional_acceptance', 'draft_yield', 'mean_acceptance_length', 'mask_ms_per_step', 'tokens_per_second', 'speedup_over_free'] as const;

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.scorecard, argv, ({ values }) => runScorecard(rangeChecked(() => parse(values))));
}

async function runScorecard({ spec, json, csv, failOnInvalid, pair }: ReturnType<typeof parse>): Promise<number> {
  const { engine, dispose } = await setupNodeEngine('cpu', pair === null ? undefined : await loadPairOption(pair));
  try {
    const cards = await scorecard((params) => engine.run(params), interpretedValidator, spec, { onProgress: (done, total) => console.error(`scorecard: ${done}/${total} runs`) });
    const rows = cards.map(scorecardRowJson);
    if (csv) process.stdout.write(scorecardCsv(cards));
    else if (json) console.log(JSON.stringify({ schema_version: 1, samples: spec.seeds, token_budget: spec.tokenBudget, pair: pair ?? 'bundled', rows }, null, 2));
    else {
      const { method, K, L, temperature, maxTokens, seed } = spec.base;
      console.log(`${pair === null ? '' : `${pair.draft} → ${pair.target}: `}${method} (drafter ${spec.base.drafter ?? 'model'}), K = ${K}, L = ${L}, T = ${temperature}, at most ${maxTokens} tokens a run; per preset ${spec.seeds} samples on successive seeds from ${seed}, each run until the schema-on and schema-off decodes have output ${spec.tokenBudget} tokens\n`);
      console.log(`| ${MARKDOWN_COLUMNS.join(' | ')} |\n|${MARKDOWN_COLUMNS.map(() => '---').join('|')}|`);
      for (const row of rows) console.log(`| ${MARKDOWN_COLUMNS.map((column) => scorecardMarkdownCell(row, column)).join(' | ')} |`);
      console.log(`\ntokens/s: median over samples [95% bootstrap interval]; speedup_over_free: the schema-on decode's tokens/s over schema-off's on the same seeds; ≈ 1: its interval holds 1.0, so the schema's effect on speed is within noise.`);
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

/** A Markdown cell: tokens/s and the schema-on speed ratio with their intervals, the ratio marked "≈ 1" when within noise. */
function scorecardMarkdownCell(row: ReturnType<typeof scorecardRowJson>, column: (typeof MARKDOWN_COLUMNS)[number]): string {
  const interval = (ci: { low: number | null; high: number | null }) => ` [${ci.low}–${ci.high}]`;
  if (column === 'tokens_per_second') return `${row.tokens_per_second}${interval(row.tokens_per_second_ci95)}`;
  if (column === 'speedup_over_free') return row.speedup_over_free === null || row.speedup_over_free_ci95 === null ? '—' : `${row.speedup_over_free}×${interval(row.speedup_over_free_ci95)}${row.speedup_over_free_within_noise ? ' ≈ 1' : ''}`;
  return String(row[column] ?? '—');
}

/** --fail-on-invalid's one line: the constrained rows with outputs that are not schema-valid; null when there are none. */
export function invalidRows(rows: readonly ScorecardRow[]): string | null {
  const failed = rows.filter((row) => row.constrained && row.card.valid < row.card.completions);
  if (failed.length === 0) return null;
  const described = failed.map(({ preset, card }) => `${preset} ${card.valid}/${card.completions} valid (${card.invalid} invalid, ${card.truncated} cut short, ${card.deadEnds} dead ends)`);
  return `--fail-on-invalid: constrained outputs not schema-valid: ${described.join('; ')}`;
}
