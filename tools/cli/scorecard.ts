/**
 * npm run scorecard -- --presets a,b,… --seeds N [--method id] [--K n] [--L n] [--temperature T]
 *   [--max-tokens n] [--seed first] [--drafting validate|constrained] [--json] [--fail-on-invalid]
 * The structured-output scorecard on the bundled models (src/engine/bench.ts; the app's Scorecard view runs
 * the same code): one row per preset and constraint state, the schema on and the same prompt decoded
 * without it. Validity is ajv against the full schema; an output cut short (token limit, context) counts as
 * not valid. --json prints {rows: [...]}; otherwise a Markdown table. --fail-on-invalid: exit 1, with a
 * one-line reason, when any constrained output is not schema-valid (the unconstrained rows are the contrast).
 */
import { parseArgs } from 'node:util';
import { setupNodeEngine } from '../nodeEngine';
import { scorecardRowJson, type ScorecardRow, type ScorecardSpec } from '../../src/contract/bench';
import { DECODE_METHODS, findPreset, type DecodeMethod } from '../../src/contract/runParams';
import { scorecard } from '../../src/engine/bench';
import { ajvValidator } from '../../src/grammar/ajvValidator';
import { UsageError, limitedOption, parseOrExit, positiveInteger } from './options';

function parse(argv: string[]): { spec: ScorecardSpec; json: boolean; failOnInvalid: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      presets: { type: 'string', default: 'sentiment,person' },
      seeds: { type: 'string', default: '2' },
      seed: { type: 'string', default: '1' },
      method: { type: 'string', default: 'spectr-gbv' },
      K: { type: 'string', default: '3' },
      L: { type: 'string', default: '4' },
      temperature: { type: 'string', default: '1' },
      'max-tokens': { type: 'string', default: '64' },
      drafting: { type: 'string', default: 'validate' },
      json: { type: 'boolean', default: false },
      'fail-on-invalid': { type: 'boolean', default: false },
    },
  });
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method)) throw new UsageError(`--method must be one of ${DECODE_METHODS.join(', ')}`);
  if (values.drafting !== 'validate' && values.drafting !== 'constrained') throw new UsageError(`--drafting must be validate or constrained, got ${values.drafting}`);
  const presets = values.presets.split(',').map((id) => findPreset(id.trim()).id);
  const spec: ScorecardSpec = {
    presets,
    seeds: positiveInteger('seeds', values.seeds),
    base: {
      method,
      K: limitedOption('K', 'K', values.K),
      L: limitedOption('L', 'L', values.L),
      temperature: limitedOption('temperature', 'temperature', values.temperature),
      maxTokens: limitedOption('maxTokens', 'max-tokens', values['max-tokens']),
      seed: limitedOption('seed', 'seed', values.seed),
      drafting: values.drafting,
    },
  };
  return { spec, json: values.json, failOnInvalid: values['fail-on-invalid'] };
}

const MARKDOWN_COLUMNS = ['preset', 'constrained', 'schema_valid_rate', 'parse_errors', 'truncated', 'R', 'I', 'D', 'A', 'steps', 'grammar_survival', 'conditional_acceptance', 'draft_yield', 'mean_acceptance_length', 'mask_ms_per_step', 'tokens_per_second'] as const;

export async function main(argv: string[]): Promise<number> {
  const options = parseOrExit('scorecard', () => parse(argv));
  if (typeof options === 'number') return options;
  const { spec, json, failOnInvalid } = options;
  const { engine, dispose } = await setupNodeEngine();
  try {
    const cards = await scorecard((params) => engine.run(params), ajvValidator, spec, { onProgress: (done, total) => console.error(`scorecard: ${done}/${total} runs`) });
    const rows = cards.map(scorecardRowJson);
    if (json) console.log(JSON.stringify({ rows }, null, 2));
    else {
      const { method, K, L, temperature, maxTokens, seed } = spec.base;
      console.log(`${method}, K = ${K}, L = ${L}, T = ${temperature}, seeds ${seed}..${seed + spec.seeds - 1}, at most ${maxTokens} tokens\n`);
      console.log(`| ${MARKDOWN_COLUMNS.join(' | ')} |\n|${MARKDOWN_COLUMNS.map(() => '---').join('|')}|`);
      for (const row of rows) console.log(`| ${MARKDOWN_COLUMNS.map((column) => String(row[column] ?? '—')).join(' | ')} |`);
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

/** --fail-on-invalid's one line: the constrained rows with outputs that are not schema-valid; null when there are none. */
export function invalidRows(rows: readonly ScorecardRow[]): string | null {
  const failed = rows.filter((row) => row.constrained && row.card.valid < row.card.completions);
  if (failed.length === 0) return null;
  const described = failed.map(({ preset, card }) => `${preset} ${card.valid}/${card.completions} valid (${card.invalid} invalid, ${card.truncated} cut short, ${card.deadEnds} dead ends)`);
  return `--fail-on-invalid: constrained outputs not schema-valid: ${described.join('; ')}`;
}
