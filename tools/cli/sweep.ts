/**
 * npm run sweep -- --preset <id> --method <id> --K 1,2,3 --L 2,4,6 --seeds N [--temperature T]
 *   [--max-tokens n] [--seed first] [--drafting validate|constrained] [--json]
 * A K × L sweep on the bundled models (src/engine/bench.ts, the app's Sweep view runs the same code): per
 * cell, the summed counters over N seeds, the ratios, tokens/s and the speedup over ar measured next to it.
 * --json prints {cells: [...]}; otherwise Markdown heatmaps, best cell in bold. Single-draft methods sweep L.
 */
import { parseArgs } from 'node:util';
import { setupNodeEngine } from '../nodeEngine';
import { parseSweepList, sweepCellJson, sweepMarkdown, type SweepSpec } from '../../src/contract/bench';
import { DECODE_METHODS, findPreset, presetParams, type DecodeMethod } from '../../src/contract/runParams';
import { sweep, sweepCells } from '../../src/engine/bench';
import { UsageError, limitedOption, parseOrExit, positiveInteger } from './options';

function parse(argv: string[]): { spec: SweepSpec; preset: string; json: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      preset: { type: 'string', default: 'person' },
      method: { type: 'string', default: 'spectr-gbv' },
      K: { type: 'string', default: '1,2,3' },
      L: { type: 'string', default: '2,4,6' },
      seeds: { type: 'string', default: '2' },
      seed: { type: 'string', default: '1' },
      temperature: { type: 'string', default: '1' },
      'max-tokens': { type: 'string', default: '48' },
      drafting: { type: 'string', default: 'validate' },
      json: { type: 'boolean', default: false },
    },
  });
  const method = values.method as DecodeMethod;
  if (!DECODE_METHODS.includes(method) || method === 'ar') throw new UsageError(`--method must be one of ${DECODE_METHODS.filter((id) => id !== 'ar').join(', ')} (ar is every cell's baseline)`);
  if (values.drafting !== 'validate' && values.drafting !== 'constrained') throw new UsageError(`--drafting must be validate or constrained, got ${values.drafting}`);
  const base = presetParams(findPreset(values.preset), {
    method,
    temperature: limitedOption('temperature', 'temperature', values.temperature),
    maxTokens: limitedOption('maxTokens', 'max-tokens', values['max-tokens']),
    seed: limitedOption('seed', 'seed', values.seed),
    drafting: values.drafting,
  });
  const spec: SweepSpec = { base, Ks: parseSweepList('K', values.K), Ls: parseSweepList('L', values.L), seeds: positiveInteger('seeds', values.seeds) };
  sweepCells(spec);
  return { spec, preset: values.preset, json: values.json };
}

export async function main(argv: string[]): Promise<number> {
  const options = parseOrExit('sweep', () => parse(argv));
  if (typeof options === 'number') return options;
  const { spec, preset, json } = options;
  const { engine, dispose } = await setupNodeEngine();
  try {
    const total = sweepCells(spec).length;
    const cells = await sweep((params) => engine.run(params), spec, { onCell: (cell) => console.error(`sweep: K=${cell.K} L=${cell.L} done (${total} cells)`) });
    if (json) console.log(JSON.stringify({ preset: preset, method: spec.base.method, temperature: spec.base.temperature, max_tokens: spec.base.maxTokens, seeds: spec.seeds, cells: cells.map(sweepCellJson) }, null, 2));
    else {
      console.log(`${spec.base.method} on the ${preset} preset, T = ${spec.base.temperature}, ${spec.seeds} seeds from ${spec.base.seed}, at most ${spec.base.maxTokens} tokens; each method warmed up once untimed, ar and the method alternate per seed.\n`);
      for (const metric of ['meanAcceptanceLength', 'speedup', 'draftYield'] as const) console.log(`${sweepMarkdown(cells, metric)}\n`);
    }
  } finally {
    await dispose();
  }
  return 0;
}

