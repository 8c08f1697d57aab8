/**
 * npm run import:vllm -- <scrape> [--cost-ratio C] [--json] [--R MODEL=N,… | --I MODEL=N,…]
 * npm run import:vllm -- --before <scrape> --after <scrape> [...]
 * npm run import:vllm -- --url http://host:port/metrics [--interval 5] [--count N] [...]
 * npm run import:vllm -- --responses FILE [--json]
 * Reads a vLLM or SGLang server's /metrics (Prometheus text) and prints its speculative-decoding figures per
 * model (model_name; engines, the replicas of one model, are summed), with vLLM's names and the figures
 * derived from them (src/core/vllmMetrics.ts; the app's vLLM view shows the same for one model). Two scrapes
 * give one window's delta; --url polls a live server and prints each window until stopped or --count
 * windows, and starts a new baseline, saying so, where a counter went down (a server restart). --cost-ratio
 * advises the draft length L from the per-position acceptance, with 95% intervals over the window's drafts,
 * preferring the smaller L within noise of the best. vLLM counts D and A, not R or I: give --R or --I per
 * model (MODEL=N) to see D/R and A/R. --responses reads per-request counters instead (a JSONL file of vLLM or
 * SGLang responses, or AIPerf's profile_export.jsonl; src/core/requestSpecMetrics.ts): per model, the pooled
 * figures vLLM's /metrics would show beside the median and p90 over requests. `--help` lists every option
 * (tools/cli/commands.ts).
 */
import { realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { SCRAPE_BYTE_LIMIT } from '../../src/store/liveScrape';
import { boundedFetch, shownUrl, shownUrlText } from '../../src/contract/boundedFetch';
import { MIN_SAMPLES_FOR_VERDICT, VERDICT_TEXT, type Verdict } from '../../src/core/verdict';
import {
  CounterResetError,
  ScrapeError,
  adviseOverWindows,
  readMetrics,
  readingDelta,
  type ScrapeReading,
  type SuppliedEntry,
} from '../../src/core/vllmMetrics';
import { UsageError, runCommand, secondsOption, type Parsed } from './args';
import { RESPONSES_LIMITS } from '../../src/contract/limits';
import { readResponses, requestDistribution } from '../../src/core/requestSpecMetrics';
import { readInputFile } from './input';
import { terminalSafe } from './terminalSafe';
import { COMMANDS } from './commands';
import { readingJson, scraped, type Supplied } from './vllmReading';

const read = (path: string) => readInputFile(path, 'cannot read');

/** `big=1200,small=300` or `1200`: each count a whole number ≥ 0, checked before anything is read. */
function suppliedEntries(key: 'R' | 'I', text: string | undefined): SuppliedEntry[] {
  if (text === undefined) return [];
  return text.split(',').map((entry) => {
    const at = entry.lastIndexOf('=');
    const model = at === -1 ? null : entry.slice(0, at).trim();
    const count = (at === -1 ? entry : entry.slice(at + 1)).trim();
    const value = Number(count);
    if (model === '' || count === '' || !(Number.isInteger(value) && value >= 0))
      throw new UsageError(`--${key}: ${JSON.stringify(entry)} is not MODEL=N or N with N a whole number ≥ 0`);
    return { model, value };
  });
}

type Source =
  | { single: string }
  | { before: string; after: string }
  | { url: URL; intervalMs: number; count: number | null }
  | { responses: string };

function parse({ values, positionals }: Parsed<(typeof COMMANDS)['import:vllm']>) {
  const pair = values.before !== undefined || values.after !== undefined;
  if (pair && (values.before === undefined || values.after === undefined))
    throw new UsageError('give both --before <scrape> and --after <scrape>');
  const sources = [pair, positionals.length > 0, values.url !== undefined, values.responses !== undefined].filter(
    Boolean,
  ).length;
  if (sources !== 1)
    throw new UsageError(
      'give one scrape file, or --before <scrape> --after <scrape>, or --url <metrics URL>, or --responses <JSONL file>',
    );
  if (values.count !== undefined && values.url === undefined) throw new UsageError('--count goes with --url');
  if (values.responses !== undefined) {
    const scrapeOnly = (['R', 'I', 'cost-ratio'] as const).filter((name) => values[name] !== undefined);
    if (scrapeOnly.length > 0)
      throw new UsageError(
        `--${scrapeOnly[0]} goes with a scrape, not --responses (per-request records carry R and I where the server counts them, and no per-position counters)`,
      );
  }
  const supplied: Supplied = { R: suppliedEntries('R', values.R), I: suppliedEntries('I', values.I) };
  let source: Source;
  if (values.responses !== undefined) source = { responses: values.responses };
  else if (values.url !== undefined) {
    let url: URL;
    try {
      url = new URL(values.url);
    } catch {
      throw new UsageError(
        `--url: ${JSON.stringify(shownUrlText(values.url))} is not a URL such as http://localhost:8000/metrics`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new UsageError(`--url must be http or https, got ${url.protocol}`);
    if (url.username !== '' || url.password !== '')
      throw new UsageError(
        `--url must not carry a user name or password (${shownUrl(url)}): fetch refuses such a URL; put the metrics endpoint behind no login, or scrape it to a file and pass the file`,
      );
    source = {
      url,
      intervalMs: secondsOption(values.interval),
      count: values.count === undefined ? null : Number(values.count),
    };
  } else
    source = pair
      ? { before: values.before as string, after: values.after as string }
      : { single: positionals[0] as string };
  const costRatio = values['cost-ratio'] === undefined ? null : Number(values['cost-ratio']);
  return { source, supplied, json: values.json, costRatio };
}

const shown = (value: number | string | null, digits = 3) =>
  value === null ? '—' : typeof value === 'string' || Number.isInteger(value) ? String(value) : value.toFixed(digits);

/** A table, one column per model. */
function printReading(json: ReturnType<typeof readingJson>): void {
  for (const warning of json.warnings) console.error(`import:vllm: ${warning}`);
  const table = (title: string, names: string[], rows: [string, (number | string | null)[]][]) => {
    const width = Math.max(title.length, ...rows.map(([name]) => name.length));
    // Model names are the scrape's labels: untrusted text, escaped before it reaches the terminal.
    const safeNames = names.map((name) => terminalSafe(name, { maxChars: 60 }));
    const cells = (values: string[]) =>
      values.map((value, i) => value.padStart(Math.max(12, (safeNames[i] as string).length))).join('  ');
    console.log(`${title.padEnd(width)}  ${cells(safeNames)}`);
    for (const [name, values] of rows)
      console.log(`${name.padEnd(width)}  ${cells(values.map((value) => shown(value)))}`);
  };
  if (json.models.length > 0) {
    const models = json.models;
    const positions = Math.max(...models.map((m) => m.per_position_acceptance.length));
    // v0's figures, where any model runs it; a figure an engine does not count reads "unknown", never 0.
    const v0Rows: [string, (number | string | null)[]][] = models.some((m) => m.engine === 'v0')
      ? [
          ['engine', models.map((m) => m.engine)],
          [
            'num_emitted_tokens (v0)',
            models.map((m) => ('num_emitted_tokens' in m ? (m.num_emitted_tokens ?? 'unknown') : null)),
          ],
          [
            'steps (v0: emitted / efficiency − D)',
            models.map((m) => ('verification_steps' in m ? (m.verification_steps ?? 'unknown') : null)),
          ],
          [
            'mean acceptance length (v0: emitted / steps)',
            models.map((m) =>
              'emitted_mean_acceptance_length' in m ? (m.emitted_mean_acceptance_length ?? 'unknown') : null,
            ),
          ],
        ]
      : [];
    table(
      'vLLM, per model_name',
      models.map((m) => m.model_name),
      [
        ...v0Rows,
        ['num_drafts (verification steps)', models.map((m) => m.num_drafts ?? 'unknown')],
        ['num_draft_tokens (D)', models.map((m) => m.num_draft_tokens)],
        ['num_accepted_tokens (A)', models.map((m) => m.num_accepted_tokens)],
        ['draft_acceptance_rate (A/D)', models.map((m) => m.draft_acceptance_rate)],
        [
          'mean_acceptance_length (1 + A/num_drafts)',
          models.map((m) => (m.num_drafts === null ? 'unknown' : m.mean_acceptance_length)),
        ],
        ...Array.from({ length: positions }, (_, i): [string, (number | null)[]] => [
          `acceptance at position ${i} (accepted / num_drafts)`,
          models.map((m) => m.per_position_acceptance[i] ?? null),
        ]),
        ['R raw draft tokens', models.map((m) => m.R)],
        ['I invalidated by the grammar', models.map((m) => m.I)],
        ['D/R grammar survival', models.map((m) => m.grammar_survival)],
        ['A/R draft yield', models.map((m) => m.draft_yield)],
      ],
    );
    console.log((models[0] as (typeof models)[number]).note);
    for (const model of models)
      if ('unknown_in_v0' in model)
        console.log(
          `${terminalSafe(model.model_name, { maxChars: 60 })}: vLLM's v0 engine (no num_drafts counter): A/D and the emitted-token mean acceptance length are measured; v0 cannot give ${model.unknown_in_v0.join('; ')}`,
        );
    for (const model of models) {
      if (!('advice' in model) || model.advice === undefined) continue;
      const { advice } = model;
      console.log(
        `\n${model.model_name}: expected speedup per draft length L at C = ${advice.cost_ratio} (tokens per step 1 + Σ a_i, over 1 + L·C target forwards), [95% interval over the window's ${advice.num_drafts} drafts]`,
      );
      for (const row of advice.rows) {
        const interval =
          row.expected_speedup_ci95 === null
            ? ''
            : ` [${row.expected_speedup_ci95.low.toFixed(3)}–${row.expected_speedup_ci95.high.toFixed(3)}]`;
        const mark =
          row.L === advice.recommended_L
            ? '  ← recommended'
            : row.L === advice.best_L
              ? '  ← highest, but not measurably above the recommended L'
              : row.within_noise_of_best
                ? '  (within noise of the highest)'
                : '';
        console.log(
          `  L = ${row.L}: ${row.expected_tokens_per_step.toFixed(3)} tokens per step, ${row.expected_speedup.toFixed(3)}×${interval}${mark}`,
        );
      }
      console.log(
        advice.recommended_L === null
          ? '  no per-position counters: no advice'
          : `  recommended L = ${advice.recommended_L}: the smallest L whose difference from the highest (L = ${advice.best_L}) is within noise over these drafts (only L up to the ${advice.rows.length} positions measured can be advised)`,
      );
    }
  }
  if (json.sglang.length > 0) {
    if (json.models.length > 0) console.log('');
    table(
      'SGLang, per model_name',
      json.sglang.map((m) => m.model_name),
      [
        ['spec_accept_length (last window, gauge)', json.sglang.map((m) => m.spec_accept_length)],
        ['spec_accept_rate (last window, gauge)', json.sglang.map((m) => m.spec_accept_rate)],
        ['spec_verify_calls (counter)', json.sglang.map((m) => m.spec_verify_calls)],
      ],
    );
    console.log((json.sglang[0] as (typeof json.sglang)[number]).note);
  }
}

/** One scrape, bounded like the app's live mode (src/store/liveScrape.ts): too large, endless or silent is refused. */
async function scrapeUrl(url: URL): Promise<ScrapeReading> {
  let text: string;
  try {
    const bytes = await boundedFetch(url, {
      limit: SCRAPE_BYTE_LIMIT,
      checkResponse: (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      },
    });
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    throw new UsageError(`cannot scrape ${shownUrl(url)}: ${(error as Error).message}`);
  }
  return scraped(() => readMetrics(text, shownUrl(url)));
}

/** Polls the URL: each window is the delta between two consecutive scrapes. */
async function watch(
  source: { url: URL; intervalMs: number; count: number | null },
  supplied: Supplied,
  json: boolean,
  costRatio: number | null,
): Promise<number> {
  let previous = await scrapeUrl(source.url);
  // Each model's per-position acceptance, window by window since the baseline (a restart starts it again).
  const history = new Map<string, (number | null)[][]>();
  let previousAt = performance.now();
  if (!json)
    console.log(
      `watching ${shownUrl(source.url)} every ${source.intervalMs / 1000} s${source.count === null ? ' (Ctrl-C to stop)' : `, ${source.count} windows`}; each window is the delta between two scrapes`,
    );
  for (let window = 1; source.count === null || window <= source.count; window++) {
    await sleep(source.intervalMs);
    const current = await scrapeUrl(source.url);
    const now = performance.now();
    const seconds = (now - previousAt) / 1000;
    let reading: ScrapeReading;
    try {
      reading = readingDelta(previous, current);
    } catch (error) {
      if (!(error instanceof CounterResetError))
        throw error instanceof ScrapeError ? new UsageError(error.message) : error;
      // A server restart zeroes its counters: this scrape becomes the new baseline, and the window is not a figure.
      const note = `counters went down (${error.message.split(':')[0]}): the server restarted; starting a new baseline from this scrape`;
      if (json) console.log(JSON.stringify({ window, seconds, reset: true, note }));
      else console.log(`\nwindow ${window} (${seconds.toFixed(1)} s): ${note}`);
      previous = current;
      previousAt = now;
      history.clear();
      continue;
    }
    const delta = readingJson(reading, supplied, costRatio);
    for (const model of delta.models)
      history.set(model.model_name, [...(history.get(model.model_name) ?? []), model.per_position_acceptance]);
    const overWindows =
      costRatio === null
        ? []
        : [...history].map(([model, windows]) => ({ model_name: model, ...adviseOverWindows(windows, costRatio) }));
    if (json)
      console.log(
        JSON.stringify({
          window,
          seconds,
          ...delta,
          ...(costRatio === null ? {} : { advice_over_windows: overWindows }),
        }),
      );
    else {
      console.log(`\nwindow ${window} (${seconds.toFixed(1)} s)`);
      printReading(delta);
      for (const advice of overWindows) {
        const against = (verdict: Verdict) =>
          verdict === 'within noise'
            ? `within noise of L = ${advice.best_L}`
            : verdict === 'too few samples'
              ? VERDICT_TEXT[verdict]
              : `${verdict} than L = ${advice.best_L}`;
        const rows = advice.rows.map(
          (row) =>
            `L = ${row.L}: ${row.median_speedup.toFixed(3)}× [${row.speedup_ci95.low.toFixed(3)}–${row.speedup_ci95.high.toFixed(3)}] ${row.against_best === null ? 'highest' : against(row.against_best)}`,
        );
        const why = advice.measured
          ? 'the smallest not measurably slower than the highest'
          : `the highest: under ${MIN_SAMPLES_FOR_VERDICT} windows no difference is measured`;
        console.log(
          `${terminalSafe(advice.model_name, { maxChars: 60 })} over the ${advice.windows} windows since the baseline (median [95% interval]; each L against the highest, window by window): ${rows.join('; ')}; recommended L = ${advice.recommended_L ?? '—'}, ${why}`,
        );
      }
    }
    previous = current;
    previousAt = now;
  }
  return 0;
}

/** A file of per-request records as JSON: per model, the pooled counters beside the distribution over requests. */
function responsesJson(path: string) {
  const reading = scraped(() =>
    readResponses(readInputFile(path, '--responses', RESPONSES_LIMITS.bytes), terminalSafe(path, { maxChars: 80 })),
  );
  return {
    schema_version: 1,
    lines: { with_counters: reading.withCounters, without_counters: reading.withoutCounters, failed: reading.failed },
    models: reading.models.map(({ model, records }) => ({ model_name: model, ...requestDistribution(records) })),
    note: "Pooled figures weigh every step and draft token alike, as vLLM's /metrics aggregate does, so long completions weigh more; median and p90 (nearest rank) weigh every request alike.",
  };
}

function printResponses(path: string, report: ReturnType<typeof responsesJson>): void {
  const pair = (p: { median: number | null; p90: number | null }) => `${shown(p.median)} / ${shown(p.p90)}`;
  const { lines } = report;
  const rows = report.models.map(({ model_name, requests, sources, pooled: p, per_request }) =>
    [
      terminalSafe(model_name, { maxChars: 60 }),
      requests,
      sources.join(', '),
      p.num_spec_steps,
      shown(p.R),
      shown(p.I),
      p.D,
      p.A,
      shown(p.draft_acceptance_rate),
      pair(per_request.draft_acceptance_rate),
      shown(p.mean_acceptance_length),
      pair(per_request.acceptance_length),
      p.acceptance_histogram?.join(', ') ?? '—',
    ].join(' | '),
  );
  console.log(
    [
      `${terminalSafe(path, { maxChars: 80 })}: ${lines.with_counters} requests with per-request counters; ${lines.without_counters} JSON lines without them (stream chunks before the one with usage, a server without --per-request-spec-decode-metrics, n > 1, AIPerf requests with no verify step); ${lines.failed} failed requests`,
      '',
      '| model | requests | source | steps | R | I | D | A | A/D pooled (vLLM /metrics) | A/D median / p90 | acceptance length pooled (vLLM /metrics) | acceptance length median / p90 | histogram (steps accepting 0, 1, … drafts) |',
      `|${'---|'.repeat(13)}`,
      ...rows.map((row) => `| ${row} |`),
      '',
      report.note,
    ].join('\n'),
  );
}

export function main(argv: string[]): Promise<number> {
  return runCommand(COMMANDS['import:vllm'], argv, (parsed) => {
    const { source, supplied, json, costRatio } = parse(parsed);
    if ('responses' in source) {
      const report = responsesJson(source.responses);
      if (json) console.log(JSON.stringify(report, null, 2));
      else printResponses(source.responses, report);
      return 0;
    }
    if ('url' in source) return watch(source, supplied, json, costRatio);
    const reading = scraped(() =>
      'single' in source
        ? readMetrics(read(source.single), source.single)
        : readingDelta(readMetrics(read(source.before), source.before), readMetrics(read(source.after), source.after)),
    );
    const report = readingJson(reading, supplied, costRatio);
    if (json) console.log(JSON.stringify(report, null, 2));
    else printReading(report);
    return 0;
  });
}

// Run as the command; a test imports main and calls it in-process.
const script = process.argv[1];
if (script !== undefined && pathToFileURL(realpathSync(script)).href === import.meta.url)
  process.exitCode = await main(process.argv.slice(2));
