/**
 * npm run import:vllm -- <scrape> [--json] [--R n | --I n]
 * npm run import:vllm -- --before <scrape> --after <scrape> [--json] [--R n | --I n]
 * Reads a vLLM server's /metrics scrape (Prometheus text) and prints its speculative-decoding counters with
 * vLLM's names, summed over engines and models, and the figures derived from them (src/core/vllmMetrics.ts;
 * the app's vLLM view shows the same). Two scrapes give one benchmark window's delta. vLLM counts D and A,
 * not R or I: give --R or --I to see D/R and A/R. Bad input exits 2 with a message.
 */
import { parseArgs } from 'node:util';
import { ScrapeError, readScrape, scrapeDelta, vllmReport, type SuppliedDraftCounts } from '../src/core/vllmMetrics';
import { UsageError, numberOption, parseOrExit, readInputFile, terminalSafe } from './cli/options';

const read = (path: string) => readInputFile(path, 'cannot read');

function countOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = numberOption(name, text);
  if (!(Number.isInteger(value) && value >= 0)) throw new UsageError(`--${name} must be a whole number ≥ 0, got ${text}`);
  return value;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { before: { type: 'string' }, after: { type: 'string' }, R: { type: 'string' }, I: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const pair = values.before !== undefined || values.after !== undefined;
  if (pair && (values.before === undefined || values.after === undefined)) throw new UsageError('give both --before <scrape> and --after <scrape>');
  if (pair === (positionals.length > 0) || positionals.length > 1) throw new UsageError('give one scrape file, or --before <scrape> --after <scrape>');
  if (values.R !== undefined && values.I !== undefined) throw new UsageError('give --R or --I, not both (R = D + I)');
  const supplied: SuppliedDraftCounts = {};
  const R = countOption('R', values.R);
  const I = countOption('I', values.I);
  if (R !== undefined) supplied.R = R;
  if (I !== undefined) supplied.I = I;
  return { files: pair ? { before: values.before as string, after: values.after as string } : { single: positionals[0] as string }, supplied, json: values.json };
}

const shown = (value: number | null, digits = 3) => (value === null ? '—' : Number.isInteger(value) ? String(value) : value.toFixed(digits));

export function main(argv: string[]): number {
  const options = parseOrExit('import:vllm', () => parse(argv));
  if (typeof options === 'number') return options;
  const { files, supplied, json } = options;
  try {
    const counters =
      'single' in files ? readScrape(read(files.single), files.single) : scrapeDelta(readScrape(read(files.before), files.before), readScrape(read(files.after), files.after));
    const report = vllmReport(counters, supplied);
    if (json) console.log(JSON.stringify(report, null, 2));
    else {
      const rows: [string, string][] = [
        ['num_drafts (verification steps)', shown(report.num_drafts)],
        ['num_draft_tokens (D)', shown(report.num_draft_tokens)],
        ['num_accepted_tokens (A)', shown(report.num_accepted_tokens)],
        ['draft_acceptance_rate (A/D)', shown(report.draft_acceptance_rate)],
        ['mean_acceptance_length (1 + A/num_drafts)', shown(report.mean_acceptance_length)],
        ...report.per_position_acceptance.map((rate, i): [string, string] => [`acceptance at position ${i} (${report.num_accepted_tokens_per_pos[i]} / num_drafts)`, shown(rate)]),
        ['R raw draft tokens', shown(report.R)],
        ['I invalidated by the grammar', shown(report.I)],
        ['D/R grammar survival', shown(report.grammar_survival)],
        ['A/R draft yield', shown(report.draft_yield)],
      ];
      const width = Math.max(...rows.map(([name]) => name.length));
      for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
      console.log(report.note);
    }
  } catch (error) {
    if (!(error instanceof ScrapeError || error instanceof UsageError)) throw error;
    console.error(`import:vllm: ${terminalSafe(error.message, { maxChars: 2000 })}`);
    return 2;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
