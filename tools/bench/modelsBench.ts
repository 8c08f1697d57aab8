/**
 * Per-forward cost of the bundled draft and target at the shapes the loop uses: batch 1 and K, sequence 1
 * (drafting, AR) and L + 1 (scoring), after a past of PAST tokens; and the pair's load time. Runs the same
 * in Node and in a browser page; the caller supplies onnxruntime and the file readers.
 */
import type { ModelPairHandle } from '../../src/models/loader';
import type { ExecutionProvider } from '../../src/contract/protocol';
import type { ModelSession } from '../../src/models/session';
import type { KvCache } from '../../src/models/kvCache';
import { spreadOf, type Spread } from '../../src/core/fairTiming';

export const PAST = 40;
export const SHAPES: readonly { batch: number; seq: number }[] = [
  { batch: 1, seq: 1 },
  { batch: 3, seq: 1 },
  { batch: 1, seq: 5 },
  { batch: 3, seq: 5 },
];

export interface ForwardRow {
  provider: ExecutionProvider;
  batch: number;
  seq: number;
  /** Medians over the repeats, with their range. */
  draftMs: number;
  targetMs: number;
  draftRange: [number, number];
  targetRange: [number, number];
  /** target / draft at this shape. */
  ratio: number;
}

export interface ModelsBenchReport {
  provider: ExecutionProvider;
  /** The pair timed: which target (and why, where not the bundled int8 one), or the --pair locations. */
  target: string;
  repeats: number;
  loadMs: number;
  rows: ForwardRow[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function timeForward(session: ModelSession, batch: number, seq: number, repeats: number): Promise<number> {
  return median(await timeForwards(session, batch, seq, repeats));
}

/** Each timed forward's ms, after two untimed warm-up forwards. */
async function timeForwards(session: ModelSession, batch: number, seq: number, repeats: number): Promise<number[]> {
  const prompt = Array.from({ length: PAST }, (_, i) => 32 + (i % 90));
  const prefill = await session.forward(prompt, 1, PAST, session.emptyCache(1));
  const past = prefill.cache.broadcast(batch);
  prefill.cache.dispose();
  const ids = Array.from({ length: batch * seq }, (_, i) => 40 + (i % 50));
  const times: number[] = [];
  for (let i = 0; i < repeats + 2; i++) {
    const started = performance.now();
    const { cache } = await session.forward(ids, batch, seq, past);
    const elapsed = performance.now() - started;
    cache.dispose();
    // The first two runs warm up kernels and allocators.
    if (i >= 2) times.push(elapsed);
  }
  past.dispose();
  return times;
}

/** Forwards timed back to back on each side of one of c's pairs. */
const FORWARDS_PER_SIDE = 4;

/** Untimed forwards of each model before c's pairs: the target's first forwards after a load run several times slower. */
export const COST_RATIO_WARM_UP = 20;

/**
 * c = draft / target forward time at batch 1, sequence 1, the ideal speedup's cost ratio: the median over
 * `pairs` forward pairs of each pair's ratio, with its spread. A pair is FORWARDS_PER_SIDE draft forwards and as
 * many target forwards run back to back (which goes first alternates pair by pair), so a burst of load on a shared machine
 * hits both sides of a pair rather than one model. Both models first run COST_RATIO_WARM_UP untimed rounds of those:
 * timed straight after the load, the target's first forwards took 3–6× its settled time here, which is how c
 * once printed 0.009 against 0.092.
 */
export async function costRatio(
  draft: ModelSession,
  target: ModelSession,
  pairs = 41,
  warmUp = COST_RATIO_WARM_UP,
): Promise<Spread> {
  const prompt = Array.from({ length: PAST }, (_, i) => 32 + (i % 90));
  const pasts = new Map<ModelSession, KvCache>();
  for (const model of [draft, target]) {
    const prefill = await model.forward(prompt, 1, PAST, model.emptyCache(1));
    pasts.set(model, prefill.cache);
  }
  // One side of a pair: FORWARDS_PER_SIDE forwards back to back (a draft forward alone is ~0.15 ms, near the timer's jitter).
  const once = async (model: ModelSession): Promise<number> => {
    let elapsed = 0;
    for (let i = 0; i < FORWARDS_PER_SIDE; i++) {
      const started = performance.now();
      const { cache } = await model.forward([40], 1, 1, pasts.get(model) as KvCache);
      elapsed += performance.now() - started;
      cache.dispose();
    }
    return elapsed;
  };
  for (let i = 0; i < warmUp; i++) for (const model of [draft, target]) await once(model);
  const ratios: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const ms = new Map<ModelSession, number>();
    for (const model of pair % 2 === 0 ? [draft, target] : [target, draft]) ms.set(model, await once(model));
    ratios.push((ms.get(draft) as number) / (ms.get(target) as number));
  }
  for (const past of pasts.values()) past.dispose();
  return spreadOf(ratios);
}

/** c as a report prints it: the median [interquartile range] over its forward pairs. */
export const formatCostRatio = (c: Spread): string =>
  `${c.median.toFixed(3)} [${c.q1.toFixed(3)}–${c.q3.toFixed(3)} interquartile, median of ${c.n} alternated forward pairs]`;

/** `load` loads the pair on `provider` (its time is the load time); `target` says which pair it is. */
export async function runModelsBench(
  load: () => Promise<ModelPairHandle>,
  provider: ExecutionProvider,
  repeats = 15,
  target = 'bundled int8 target',
): Promise<ModelsBenchReport> {
  const started = performance.now();
  const pair = await load();
  const loadMs = performance.now() - started;
  const rows: ForwardRow[] = [];
  for (const { batch, seq } of SHAPES) {
    // Interleaved, so that drift in machine load hits both models alike.
    const draft = await timeForwards(pair.draft.session, batch, seq, repeats);
    const targetTimes = await timeForwards(pair.target.session, batch, seq, repeats);
    const draftMs = median(draft);
    const targetMs = median(targetTimes);
    rows.push({
      provider,
      batch,
      seq,
      draftMs,
      targetMs,
      draftRange: [Math.min(...draft), Math.max(...draft)],
      targetRange: [Math.min(...targetTimes), Math.max(...targetTimes)],
      ratio: targetMs / draftMs,
    });
  }
  await pair.draft.session.release();
  await pair.target.session.release();
  return { provider, target, repeats, loadMs, rows };
}

export function formatModelsReport(where: string, report: ModelsBenchReport): string {
  const lines = [
    `\n${where}, ${report.provider}, ${report.target}: pair loaded in ${report.loadMs.toFixed(0)} ms; forward times are medians [min–max] over ${report.repeats} repeats`,
    '| provider | batch | seq | draft ms | target ms | target/draft |',
    '|---|---|---|---|---|---|',
  ];
  const spread = (ms: number, [min, max]: [number, number]) => `${ms.toFixed(2)} [${min.toFixed(2)}–${max.toFixed(2)}]`;
  for (const row of report.rows)
    lines.push(
      `| ${row.provider} | ${row.batch} | ${row.seq} | ${spread(row.draftMs, row.draftRange)} | ${spread(row.targetMs, row.targetRange)} | ${row.ratio.toFixed(1)}× |`,
    );
  return lines.join('\n');
}
