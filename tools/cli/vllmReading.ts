/**
 * One vLLM/SGLang reading (a scrape, or the window between two) as import:vllm's JSON, shared by that command
 * (tools/cli/importVllm.ts) and the server scorecard (tools/cli/serverScorecard.ts).
 */
import { UsageError } from './args';
import {
  ScrapeError,
  adviseDraftLength,
  suppliedPerModel,
  vllmReport,
  type ScrapeReading,
  type SuppliedEntry,
} from '../../src/core/vllmMetrics';

const SCHEMA_VERSION = 1;

/** --R and --I as given: per model (MODEL=N) or one bare N, resolved against the scrape's models once read. */
export type Supplied = { R: SuppliedEntry[]; I: SuppliedEntry[] };

/** A scrape the reader refuses (no speculative-decoding metrics, a counter that went down) is the user's input: one line, exit 2. */
export function scraped<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ScrapeError) throw new UsageError(error.message);
    throw error;
  }
}

/** The JSON for one reading (a scrape, or the window between two): one entry per model. */
export function readingJson(reading: ScrapeReading, supplied: Supplied, costRatio: number | null) {
  const perModel = scraped(() => suppliedPerModel([...reading.vllm.keys()], supplied.R, supplied.I));
  const reports = scraped(() =>
    [...reading.vllm].map(([model, counters]) => ({ model, report: vllmReport(counters, perModel.get(model)) })),
  );
  return {
    schema_version: SCHEMA_VERSION,
    models: reports.map(({ model, report }) => ({
      model_name: model,
      ...report,
      ...(costRatio === null
        ? {}
        : { advice: adviseDraftLength(report.per_position_acceptance, costRatio, report.num_drafts) }),
    })),
    sglang: [...reading.sglang].map(([model, figures]) => ({
      model_name: model,
      spec_accept_length: figures.acceptLength,
      spec_accept_rate: figures.acceptRate,
      spec_verify_calls: figures.verifyCalls,
      note: "SGLang's accept length and rate are gauges over its own last logging window (accept length counts the bonus token, like 1 + A/num_drafts); verify calls is a counter.",
    })),
    warnings: reading.warnings,
  };
}
