/**
 * npm run bench -- [--seeds 2] [--node-only] [--provider wasm|webgpu] [--verifier cpu|gpu] [--scoring tree|batched] [--out bench-results/decode]
 *                   [--methods tokenwise,spectr-gbv] [--grid 1x4,3x4] [--rounds 3] [--threads n]
 *                   [--drafters model,model+grammar+lookup,head+grammar | --drafter head+grammar] [--draft-ahead]
 * The paper's table on the bundled models: in Node (wasm EP, CPU verifier) and in headless Chromium (the
 * models on --provider, steps verified on --verifier; the defaults are the app's choices on a machine
 * whose WebGPU is software), then each section's per-phase profile and its excess over the ideal.
 * --scoring batched forces K batched target rows instead of the token tree. --methods and --grid pick rows
 * (ar and ar+jump-forward always run); --drafters runs each row with each drafter (src/core/draftLaw.ts; model by
 * default). --draft-ahead (Node only) runs each row that can draft ahead (one draft, a drafter that samples) a second
 * time drafting each next block while the target, on a worker thread of its own, scores this one
 * (src/engine/draftAhead.ts); the target's thread takes one of --threads where there are two or more. Each
 * preset runs --rounds timed rounds of ar and every row, in an order that rotates
 * and alternates between rounds; a row's speedup is the median over rounds of its tokens/s over the same
 * round's ar, with its 95% bootstrap interval over rounds and the shared verdict (src/core/verdict.ts); each
 * section ends with the median over presets and the goal lines, judged by the same rule. Writes <out>.md and <out>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setupNodeEngine } from '../nodeEngine';
import { createServer } from 'vite';
import { launchChromium } from '../../test/support/browser';
import {
  DECODE_TABLE_HEADER,
  decodeRowJson,
  describeScoring,
  formatDecodeRow,
  GRID,
  runDecodeBench,
  SPECULATIVE,
  aheadSummary,
  type DecodeRow,
} from '../bench/decodeBench';
import { profileMarkdown } from '../bench/decodeStatistics';
import { summaryMarkdown } from '../bench/decodeGoals';
import type { MethodId } from '../../src/core/verify';
import { DEFAULT_DRAFTER, DRAFTER_IDS, isDrafterId, type DrafterId } from '../../src/core/draftLaw';
import { costRatio as measureCostRatio, formatCostRatio } from '../bench/modelsBench';
import { availableParallelism } from 'node:os';
import { BUNDLED_TARGET_DIR, loadBundledPair, ort } from '../bundled';
import { startTargetThread } from '../targetThread';
import { loadPairOption, parsePairOption } from './pair';
import { pairForPage } from './pairServer';
import { UsageError, gridOption, positiveInteger, runCommand, type Values } from './args';
import { COMMANDS } from './commands';
import { snakeKeys, toCsv } from './csv';
import type { Spread } from '../../src/core/fairTiming';
import { VERDICT_RULE } from '../../src/core/verdict';

interface Section {
  where: string;
  adapter: string;
  /** c, the median over alternating rounds, and its spread. */
  costRatio: number;
  costRatioSpread: Spread;
  /** How the target scored drafts, and why when batched. */
  scoring: string;
  rows: DecodeRow[];
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS.bench, argv, ({ values }) => bench(parse(values)));
}

function parse(values: Values<typeof COMMANDS.bench>) {
  const { provider, verifier, scoring } = values;
  const seeds = positiveInteger('seeds', values.seeds);
  const rounds = positiveInteger('rounds', values.rounds);
  const tokenBudget = positiveInteger('token-budget', values['token-budget']);
  const methods = values.methods === undefined ? SPECULATIVE : values.methods.split(',').map((name) => name.trim());
  const unknown = methods.filter((name) => !(SPECULATIVE as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new UsageError(`--methods: unknown ${unknown.join(', ')}; the methods are ${SPECULATIVE.join(', ')}`);
  const grid = values.grid === undefined ? GRID : gridOption(values.grid);
  if (values.drafter !== undefined && values.drafters !== DEFAULT_DRAFTER)
    throw new UsageError('give --drafter or --drafters, not both');
  const drafters = (values.drafter ?? values.drafters).split(',').map((name) => name.trim());
  const unknownDrafters = drafters.filter((name) => !isDrafterId(name));
  if (unknownDrafters.length > 0)
    throw new UsageError(
      `--drafters: unknown ${unknownDrafters.join(', ')}; the drafters are ${DRAFTER_IDS.join(', ')}`,
    );
  const pair = values.pair === undefined ? null : parsePairOption(values.pair);
  const threads = positiveInteger('threads', values.threads);
  const draftAhead = values['draft-ahead'] === true;
  if (draftAhead && !values['node-only'])
    throw new UsageError('--draft-ahead runs in Node only (the page has no target thread): add --node-only');
  return {
    values,
    pair,
    threads,
    seeds,
    provider,
    verifier,
    treeScoring: scoring === 'tree',
    rounds,
    selection: {
      methods: methods as MethodId[],
      grid,
      rounds,
      tokenBudget,
      drafters: drafters as DrafterId[],
      draftAhead,
    },
  } as const;
}

/** Process CPU time (user + system) in ms: every thread onnxruntime and V8 use, and nothing the neighbours do. */
const cpuClock = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function bench({
  values,
  pair: location,
  seeds,
  rounds,
  provider,
  verifier: verifying,
  treeScoring,
  selection,
  threads,
}: ReturnType<typeof parse>): Promise<number> {
  // Before any session is made: every row, the baselines included, runs under the same thread count.
  ort.env.wasm.numThreads = threads;
  const threading = `${threads} thread${threads === 1 ? '' : 's'} of ${availableParallelism()} cores`;
  const sections: Section[] = [];
  // Both sections name the pair they timed.
  const ofPair = location === null ? '' : `: ${location.draft} → ${location.target}`;

  const pair = location === null ? await loadBundledPair() : await loadPairOption(location);
  const costRatioSpread = await measureCostRatio(pair.draft.session, pair.target.session);
  const costRatio = costRatioSpread.median;
  // Drafting ahead takes a thread of its own for the target: within the thread count where there are two or more.
  const targetThreads = Math.max(1, threads - 1);
  const thread = selection.draftAhead
    ? await startTargetThread(location?.target ?? BUNDLED_TARGET_DIR, targetThreads)
    : null;
  // A worker thread keeps Node running: it ends with the section, whatever happens in it.
  try {
    const { engine, dispose } = await setupNodeEngine('cpu', pair, treeScoring, thread?.client);
    const scoring = describeScoring(engine.scoring);
    const inAll = threads + targetThreads;
    const ahead = thread
      ? `; rows drafting ahead: the target on a thread of its own (${targetThreads} onnxruntime thread${targetThreads === 1 ? '' : 's'}) beside the drafting thread's ${threads}, ${inAll} in all on ${availableParallelism()} cores`
      : '';
    console.log(
      `Node, wasm EP (${threading}), CPU verifier${ofPair}${ahead}; c = draft/target forward = ${formatCostRatio(costRatioSpread)}; ${scoring}; ${rounds} timed rounds per preset, speedups the median over rounds [95% bootstrap interval] with the verdict against ar\n${DECODE_TABLE_HEADER}`,
    );
    sections.push({
      where: `Node (onnxruntime-web wasm, ${threading}; CPU verifier${ahead})${ofPair}`,
      adapter: 'cpu',
      costRatio,
      costRatioSpread,
      scoring,
      rows: await runDecodeBench(engine, seeds, costRatio, console.log, { ...selection, cpuClock }),
    });
    console.log(
      `\n${summaryMarkdown((sections[0] as Section).rows)}\n\n${profileMarkdown((sections[0] as Section).rows, costRatio)}`,
    );
    await dispose();
  } finally {
    await thread?.terminate();
  }
  const taken = aheadSummary((sections[0] as Section).rows);
  if (taken) console.log(`\n${taken}`);

  if (!values['node-only']) {
    const pagePair = location === null ? null : pairForPage(location);
    const server = await createServer({
      logLevel: 'warn',
      server: { port: 0, host: '127.0.0.1' },
      plugins: pagePair === null ? [] : [pagePair.plugin],
    });
    await server.listen();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.resolvedUrls?.local[0]}tools/bench/decode.html`);
      const report = await page.evaluate(
        ([n, models, verifying, tree, picked, pairUrls]) =>
          window.speclabDecodeBench(n, models, verifying, tree, picked, pairUrls),
        [seeds, provider, verifying, treeScoring, selection, pagePair?.page ?? null] as const,
      );
      if ('error' in report) throw new Error(`the Chromium run failed: ${report.error}`);
      const verifier = values.verifier === 'gpu' ? `WGSL verifier on ${report.adapter}` : 'CPU verifier';
      const scoring = describeScoring(report.scoring);
      console.log(
        `\nChromium, ${values.provider} EP, ${verifier}${ofPair}; c = ${formatCostRatio(report.costRatioSpread)}; ${scoring}; ${rounds} timed rounds per preset\n${DECODE_TABLE_HEADER}`,
      );
      for (const row of report.rows) console.log(formatDecodeRow(row));
      console.log(`\n${summaryMarkdown(report.rows)}\n\n${profileMarkdown(report.rows, report.costRatio)}`);
      sections.push({
        where: `Chromium (onnxruntime-web ${values.provider} EP, 1 thread; ${verifier})${ofPair}`,
        adapter: report.adapter,
        costRatio: report.costRatio,
        costRatioSpread: report.costRatioSpread,
        scoring,
        rows: report.rows,
      });
    } finally {
      await browser.close();
      await server.close();
    }
  }

  const markdown = sections
    .map(
      (section) =>
        `### ${section.where}\n\nc = draft/target forward time (batch 1, sequence 1) = ${formatCostRatio(section.costRatioSpread)}; ${seeds} seeds per row (more until a round has output ${selection.tokenBudget} tokens), T = 1; ${section.scoring}. ${rounds} timed rounds per preset in alternating order after an untimed warm-up; tokens/s and speedup are medians over rounds, each round's speedup against the same round's ar, with its 95% bootstrap interval over rounds and the verdict: ${VERDICT_RULE}.\n\n${DECODE_TABLE_HEADER}\n${section.rows.map(formatDecodeRow).join('\n')}\n\n${summaryMarkdown(section.rows)}\n\n${profileMarkdown(section.rows, section.costRatio)}\n${aheadSummary(section.rows) ? `\n${aheadSummary(section.rows)}\n` : ''}`,
    )
    .join('\n');
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(`${values.out}.md`, markdown);
  const json = sections.map((section) => ({
    where: section.where,
    adapter: section.adapter,
    cost_ratio: section.costRatio,
    cost_ratio_spread: section.costRatioSpread,
    scoring: section.scoring,
    rows: section.rows.map(decodeRowJson),
  }));
  writeFileSync(`${values.out}.json`, JSON.stringify(snakeKeys({ schema_version: 1, sections: json }), null, 2));
  if (values.csv)
    writeFileSync(
      `${values.out}.csv`,
      toCsv(
        json.flatMap((section) =>
          section.rows.map((row) => ({ adapter: section.adapter, cost_ratio: section.cost_ratio, ...row })),
        ),
      ),
    );
  console.log(`\nwrote ${values.out}.md${values.csv ? `, ${values.out}.csv` : ''} and ${values.out}.json`);
  return 0;
}
