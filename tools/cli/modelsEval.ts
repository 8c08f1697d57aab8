/**
 * npm run models:eval -- [--seed 3] [--records 40] [--acceptance-records 10] [--draft DIR] [--target DIR] [--json FILE]
 * Evaluates the bundled pair through the real engine and grammar mask (onnxruntime-web, wasm EP) on held-out
 * prompts: records of the training corpus generator (tools/train/corpus.ts) drawn from a seed neither the
 * training (seed 1) nor its stopping rule (seed 2) ever read, for every preset and for random custom schemas.
 * - At T = 0 (the greedy target, `ar`): field exact-match against the record's JSON, the schema-valid rate
 *   (the JSON-schema validator on every output), and for the reasoning preset how often the free text reaches its trigger.
 * - At T = 1 with one draft (tokenwise, L = 4): A/D, the share of drafted tokens the target accepts; from the
 *   draft model, and from the draft head (drafter `head`) where the target exports features and the head loads.
 * - At T = 1 with spectr-gbv, K = 3, L = 4: A/D (vLLM's draft_acceptance_rate, over every draft's tokens,
 *   so at most about 1/3 when the drafts differ), A over distinct prefix-tree nodes, and the mean
 *   acceptance length 1 + A/steps.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { addCounters, eligible, emptyCounters, type Counters } from '../../src/core/metrics';
import { setupNodeEngine } from '../nodeEngine';
import type { RunParams } from '../../src/contract/runParams';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { UsageError, runCommand, type Values } from './args';
import { COMMANDS } from './commands';
import { snakeKeys } from './csv';
import { loadPairOption, parsePairOption } from './pair';
import { BUNDLED_HEAD_DIR } from '../bundled';
import { CYCLE_LENGTH, generateCorpus, type CorpusKind, type CorpusRecord } from '../train/corpus';

const KINDS: readonly CorpusKind[] = [...SCHEMA_PRESETS.map((preset) => preset.id), 'custom'];

export interface KindEvaluation {
  kind: CorpusKind;
  records: number;
  fields: number;
  fieldsExact: number;
  schemaValid: number;
  /** One draft at T = 1 (tokenwise): accepted over drafted grammar-valid tokens. */
  singleDraft: { A: number; D: number };
  /** The same with the draft head drafting (drafter `head`); null where the pair offers no head. */
  headSingleDraft: { A: number; D: number } | null;
  /** Outputs whose free text reached the trigger (presets with a trigger only). */
  reachedTrigger: number | null;
  acceptance: { runs: number; A: number; D: number; distinctD: number; steps: number };
}

/** `perKind` held-out records of each kind whose prompt and reference completion fit the context. */
function heldOut(
  seed: number,
  perKind: number,
  fits: (record: CorpusRecord) => boolean,
): Map<CorpusKind, CorpusRecord[]> {
  const byKind = new Map<CorpusKind, CorpusRecord[]>(KINDS.map((kind) => [kind, []]));
  // Each cycle of the generator holds every preset once and custom schemas four times; draw a few spare cycles.
  for (const record of generateCorpus(seed, CYCLE_LENGTH * perKind * 2)) {
    const own = byKind.get(record.preset) as CorpusRecord[];
    if (own.length < perKind && fits(record)) own.push(record);
  }
  return byKind;
}

function paramsOf(record: CorpusRecord, overrides: Partial<RunParams>): RunParams {
  const trigger = SCHEMA_PRESETS.find((preset) => preset.id === record.preset)?.trigger;
  return {
    method: 'ar',
    K: 1,
    L: 4,
    temperature: 0,
    seed: 1,
    maxTokens: 96,
    drafting: 'validate',
    prompt: record.prompt,
    schemaText: JSON.stringify(record.schema),
    ...(trigger === undefined ? {} : { trigger }),
    ...overrides,
  };
}

/** How many of the expected object's fields the written JSON holds with exactly the same value. */
function exactFields(expected: Record<string, unknown>, writtenText: string): number {
  let written: unknown;
  try {
    written = JSON.parse(writtenText);
  } catch {
    return 0;
  }
  if (written === null || typeof written !== 'object') return 0;
  return Object.entries(expected).filter(
    ([key, value]) => JSON.stringify((written as Record<string, unknown>)[key]) === JSON.stringify(value),
  ).length;
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const ratio = (value: number | null) => (value === null ? '—' : value.toFixed(2));

export function formatEvaluation(rows: readonly KindEvaluation[]): string {
  const lines = [
    '| preset | prompts | field exact-match (T = 0) | schema-valid | reaches "Answer: " | A/D, K = 1 (T = 1) | A/D, K = 1, draft head (T = 1) | A/D, K = 3 | A/distinct D, K = 3 | mean acceptance length, K = 3 |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const { A, D, distinctD, steps } = row.acceptance;
    const single = row.singleDraft;
    lines.push(
      `| ${row.kind} | ${row.records} | ${percent(row.fieldsExact, row.fields)} (${row.fieldsExact}/${row.fields}) | ${percent(row.schemaValid, row.records)} | ${row.reachedTrigger === null ? '—' : percent(row.reachedTrigger, row.records)} | ${ratio(single.D ? single.A / single.D : null)} | ${ratio(row.headSingleDraft?.D ? row.headSingleDraft.A / row.headSingleDraft.D : null)} | ${ratio(D ? A / D : null)} | ${ratio(distinctD ? A / distinctD : null)} | ${ratio(steps ? 1 + A / steps : null)} |`,
    );
  }
  return lines.join('\n');
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS['models:eval'], argv, ({ values }) => {
    if (values.seed === '1' || values.seed === '2')
      throw new UsageError('--seed: seeds 1 and 2 are the training and stopping seeds; evaluate on another');
    return evaluate(values);
  });
}

async function evaluate(values: Values<(typeof COMMANDS)['models:eval']>): Promise<number> {
  const seed = Number(values.seed);
  const perKind = Number(values.records);
  const acceptanceRecords = Number(values['acceptance-records']);
  // The bundled head beside --draft/--target: loaded where the target exports features (else the head column is —).
  const location =
    values.pair === undefined
      ? { draft: values.draft, target: values.target, head: BUNDLED_HEAD_DIR }
      : parsePairOption(values.pair);
  const pair = await loadPairOption(location);
  const { engine, dispose } = await setupNodeEngine('cpu', pair);
  const fits = (record: CorpusRecord) =>
    pair.tokenizer.encode(record.prompt + record.completion).length + 1 <= engine.contextLength;
  const rows: KindEvaluation[] = [];
  try {
    for (const [kind, records] of heldOut(seed, perKind, fits)) {
      const row: KindEvaluation = {
        kind,
        records: records.length,
        fields: 0,
        fieldsExact: 0,
        schemaValid: 0,
        reachedTrigger: null,
        acceptance: { runs: 0, A: 0, D: 0, distinctD: 0, steps: 0 },
        singleDraft: { A: 0, D: 0 },
        headSingleDraft: null,
      };
      let counters: Counters = emptyCounters(4);
      let singleDraftCounters: Counters = emptyCounters(4);
      let headCounters: Counters | null = engine.headUnavailable === null ? emptyCounters(4) : null;
      for (const [index, record] of records.entries()) {
        const params = paramsOf(record, {});
        const report = await engine.run(params);
        const trigger = params.trigger;
        const reached = trigger === undefined || report.text.includes(trigger);
        if (trigger !== undefined) row.reachedTrigger = (row.reachedTrigger ?? 0) + Number(reached);
        const json =
          trigger === undefined
            ? report.text
            : reached
              ? report.text.slice(report.text.indexOf(trigger) + trigger.length)
              : '';
        const expected = JSON.parse(record.json) as Record<string, unknown>;
        row.fields += Object.keys(expected).length;
        const exact = exactFields(expected, json);
        row.fieldsExact += exact;
        row.schemaValid += Number(report.verdict?.kind === 'valid');
        // Each miss on stderr, so that a figure below 100% can be read record by record.
        if (report.verdict?.kind !== 'valid' || exact < Object.keys(expected).length) {
          console.error(
            `  ${kind} miss: ${JSON.stringify(record.prompt)} → ${JSON.stringify(report.text)} (${report.verdict?.kind ?? 'no verdict'}; expected ${record.json})`,
          );
        }
        if (index < acceptanceRecords) {
          const sampled = await engine.run(
            paramsOf(record, { method: 'spectr-gbv', K: 3, L: 4, temperature: 1, seed: index + 1 }),
          );
          counters = addCounters(counters, sampled.counters);
          const single = await engine.run(
            paramsOf(record, { method: 'tokenwise', K: 1, L: 4, temperature: 1, seed: index + 1 }),
          );
          singleDraftCounters = addCounters(singleDraftCounters, single.counters);
          if (headCounters)
            headCounters = addCounters(
              headCounters,
              (
                await engine.run(
                  paramsOf(record, {
                    method: 'tokenwise',
                    K: 1,
                    L: 4,
                    temperature: 1,
                    seed: index + 1,
                    drafter: 'head',
                  }),
                )
              ).counters,
            );
          row.acceptance.runs++;
        }
      }
      row.acceptance = {
        runs: row.acceptance.runs,
        A: counters.accepted,
        D: eligible(counters),
        distinctD: counters.distinctEligible,
        steps: counters.steps,
      };
      row.singleDraft = { A: singleDraftCounters.accepted, D: eligible(singleDraftCounters) };
      row.headSingleDraft = headCounters && { A: headCounters.accepted, D: eligible(headCounters) };
      rows.push(row);
      console.error(`${kind}: ${percent(row.fieldsExact, row.fields)} of fields exact`);
    }
  } finally {
    await dispose();
  }
  console.log(
    `${location.draft} → ${location.target}. Held-out records of tools/train/corpus.ts, seed ${seed}; T = 0 greedy target (ar) with the grammar mask; T = 1 tokenwise (K = 1) and spectr-gbv (K = 3), L = 4, ${acceptanceRecords} prompts a preset.\n`,
  );
  console.log(formatEvaluation(rows));
  if (values.json) {
    mkdirSync(dirname(values.json), { recursive: true });
    writeFileSync(values.json, JSON.stringify(snakeKeys({ schema_version: 1, seed, rows }), null, 2));
  }
  return 0;
}
