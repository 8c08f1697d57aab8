/**
 * npm run sweep -- --preset <id> --method <id> --K 1,2,3 --L 2,4,6 --seeds N [--token-budget n] [--temperature T]
 *   [--max-tokens n] [--seed first] [--drafting validate|constrained] [--json|--csv]
 * A K × L sweep on the bundled models (src/engine/bench.ts, the app's Sweep view runs the same code): per
 * cell, the summed counters over N samples (each run to the token budget), the ratios, tokens/s and the
 * speedup over ar measured next to it, with its 95% bootstrap interval and noise marks.
 * --json prints {cells: [...]}; otherwise Markdown heatmaps, best cell in bold. Single-draft methods sweep L.
 * --cases FILE.jsonl [--buckets a,b]: one sweep per case of a case file (tools/cli/cases.ts) instead of the preset.
 */
import { setupNodeEngine } from '../nodeEngine';
import {
  bestCell,
  distinguishableBest,
  parseSweepList,
  sweepCellJson,
  sweepCsv,
  sweepMarkdown,
  type SweepCell,
  type SweepSpec,
} from '../../src/contract/bench';
import type { DrafterId } from '../../src/core/draftLaw';
import { DECODE_METHODS, isBaseline, presetParams, type DecodeMethod } from '../../src/contract/runParams';
import { sweep, sweepCells } from '../../src/engine/bench';
import {
  UsageError,
  limitedOption,
  positiveInteger,
  presetOption,
  rangeChecked,
  runCommand,
  type Values,
} from './args';
import { COMMANDS } from './commands';
import { caseParams, casesOption, type Case } from './cases';
import { errorSummary, validateRunParams } from '../../src/contract/validation';
import { loadPairOption, parsePairOption, type PairLocation } from './pair';

function parse(values: Values<typeof COMMANDS.sweep>): {
  spec: SweepSpec;
  preset: string;
  cases: { item: Case; spec: SweepSpec }[] | null;
  json: boolean;
  csv: boolean;
  pair: PairLocation | null;
} {
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method) || isBaseline(method))
    throw new UsageError(
      `--method must be one of ${DECODE_METHODS.filter((id) => !isBaseline(id)).join(', ')} (ar and ar+jump-forward are every cell's baselines)`,
    );
  if (values.buckets !== undefined && values.cases === undefined) throw new UsageError('--buckets goes with --cases');
  const base = presetParams(presetOption(values.preset), {
    method,
    temperature: limitedOption('temperature', 'temperature', values.temperature),
    maxTokens: limitedOption('maxTokens', 'max-tokens', values['max-tokens']),
    seed: limitedOption('seed', 'seed', values.seed),
    drafting: values.drafting,
    drafter: values.drafter as DrafterId,
    ...(values['top-p'] === undefined ? {} : { topP: limitedOption('topP', 'top-p', values['top-p']) }),
  });
  const spec: SweepSpec = {
    base,
    Ks: parseSweepList('K', values.K),
    Ls: parseSweepList('L', values.L),
    seeds: positiveInteger('seeds', values.seeds),
    tokenBudget: positiveInteger('token-budget', values['token-budget']),
  };
  sweepCells(spec);
  if (values.json && values.csv) throw new UsageError('give --json or --csv, not both');
  if (values.cases !== undefined && values.csv) throw new UsageError('--cases prints Markdown or --json, not --csv');
  const cases =
    values.cases === undefined
      ? null
      : casesOption(values.cases, values.buckets, values['allow-absolute-paths']).map((item) => {
          const checked = validateRunParams(caseParams(base, item));
          if (!checked.ok) throw new UsageError(`--cases line ${item.line}: ${errorSummary(checked.errors)}`);
          return { item, spec: { ...spec, base: checked.params } };
        });
  return {
    spec,
    preset: values.preset,
    cases,
    json: values.json,
    csv: values.csv,
    pair: values.pair === undefined ? null : parsePairOption(values.pair),
  };
}

/** The best speedup cell, and whether its interval overlaps no other cell's (if it does, the ranking is noise). */
function bestSpeedupJson(cells: readonly SweepCell[]) {
  const best = bestCell(cells, 'speedup');
  return best === null ? null : { K: best.K, L: best.L, distinguishable: distinguishableBest(cells, best) };
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.sweep, argv, ({ values }) => runSweep(rangeChecked(() => parse(values))));
}

async function runSweep({ spec, preset, cases, json, csv, pair }: ReturnType<typeof parse>): Promise<number> {
  const { engine, dispose } = await setupNodeEngine('cpu', pair === null ? undefined : await loadPairOption(pair));
  try {
    const total = sweepCells(spec).length;
    if (cases !== null) {
      const swept = [];
      for (const { item, spec: caseSpec } of cases) {
        const cells = await sweep((params) => engine.run(params), caseSpec, {
          onCell: (cell) =>
            console.error(`sweep: ${item.bucket} line ${item.line}: K=${cell.K} L=${cell.L} done (${total} cells)`),
        });
        swept.push({ item, cells });
        if (!json) {
          console.log(`## ${item.bucket} (line ${item.line})\n`);
          for (const metric of ['meanAcceptanceLength', 'speedup', 'draftYield'] as const)
            console.log(`${sweepMarkdown(cells, metric)}\n`);
        }
      }
      if (json)
        console.log(
          JSON.stringify(
            {
              schema_version: 1,
              method: spec.base.method,
              temperature: spec.base.temperature,
              top_p: spec.base.topP ?? null,
              drafter: spec.base.drafter ?? 'model',
              max_tokens: spec.base.maxTokens,
              seeds: spec.seeds,
              token_budget: spec.tokenBudget,
              pair: pair ?? 'bundled',
              cases: swept.map(({ item, cells }) => ({
                bucket: item.bucket,
                case_line: item.line,
                best_speedup: bestSpeedupJson(cells),
                cells: cells.map(sweepCellJson),
              })),
            },
            null,
            2,
          ),
        );
      return 0;
    }
    const cells = await sweep((params) => engine.run(params), spec, {
      onCell: (cell) => console.error(`sweep: K=${cell.K} L=${cell.L} done (${total} cells)`),
    });
    if (csv) process.stdout.write(sweepCsv(cells));
    else if (json)
      console.log(
        JSON.stringify(
          {
            schema_version: 1,
            preset: preset,
            method: spec.base.method,
            temperature: spec.base.temperature,
            top_p: spec.base.topP ?? null,
            drafter: spec.base.drafter ?? 'model',
            max_tokens: spec.base.maxTokens,
            seeds: spec.seeds,
            token_budget: spec.tokenBudget,
            pair: pair ?? 'bundled',
            best_speedup: bestSpeedupJson(cells),
            cells: cells.map(sweepCellJson),
          },
          null,
          2,
        ),
      );
    else {
      console.log(
        `${spec.base.method} (drafter ${spec.base.drafter ?? 'model'}) on the ${preset} preset${pair === null ? '' : ` with ${pair.draft} → ${pair.target}`}, T = ${spec.base.temperature}, at most ${spec.base.maxTokens} tokens a run; per cell ${spec.seeds} samples on successive seeds from ${spec.base.seed}, each run until ar and the method have output ${spec.tokenBudget} tokens; each method warmed up once untimed, ar and the method alternate per seed.\n`,
      );
      for (const metric of ['meanAcceptanceLength', 'speedup', 'draftYield'] as const)
        console.log(`${sweepMarkdown(cells, metric)}\n`);
    }
  } finally {
    await dispose();
  }
  return 0;
}
