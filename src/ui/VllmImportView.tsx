/**
 * A real deployment's numbers: paste or drop a vLLM /metrics scrape (or a before and an after) and see its
 * counters, ratios and per-position chart in the live run's components. Scrapes are untrusted text: parsed,
 * never rendered as HTML.
 */
import { useState, type DragEvent } from 'react';
import { CHART_POSITIONS, SCRAPE_LIMITS } from '../contract/limits';
import { ScrapeError, readScrape, scrapeDelta, vllmReport, type VllmReport } from '../core/vllmMetrics';
import { CounterList, PositionChart } from './benchParts';
import { fixed, percent } from './format';

function ScrapeBox({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (text: string) => void }) {
  const onDrop = (event: DragEvent<HTMLTextAreaElement>) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    // At most one byte past the limit is read, so that a huge file is refused by readScrape, not loaded whole.
    if (file) void file.slice(0, SCRAPE_LIMITS.bytes + 1).text().then(onChange);
  };
  return (
    <label className="field wide" htmlFor={id}>
      <span>{label}</span>
      <textarea id={id} rows={6} value={value} spellCheck={false} placeholder="# HELP vllm:spec_decode_num_drafts_total …" onChange={(event) => onChange(event.target.value)} onDragOver={(event) => event.preventDefault()} onDrop={onDrop} />
    </label>
  );
}

/** R or I as typed: empty for none, else a whole number. */
function parseCount(label: string, text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  if (!(Number.isInteger(value) && value >= 0)) throw new ScrapeError(`${label} must be a whole number ≥ 0, got ${JSON.stringify(text)}`);
  return value;
}

function importScrapes(after: string, before: string, R: string, I: string): VllmReport {
  const counters = before.trim() === '' ? readScrape(after, 'the scrape') : scrapeDelta(readScrape(before, 'the “before” scrape'), readScrape(after, 'the “after” scrape'));
  const supplied = { R: parseCount('R', R), I: parseCount('I', I) };
  if (supplied.R !== undefined && supplied.I !== undefined) throw new ScrapeError('give R or I, not both (R = D + I)');
  return vllmReport(counters, supplied.R !== undefined ? { R: supplied.R } : supplied.I !== undefined ? { I: supplied.I } : {});
}

export function VllmImportView() {
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const [R, setR] = useState('');
  const [I, setI] = useState('');
  const [result, setResult] = useState<{ report: VllmReport } | { error: string } | null>(null);
  const read = () => {
    try {
      setResult({ report: importScrapes(after, before, R, I) });
    } catch (error) {
      if (!(error instanceof ScrapeError)) throw error;
      setResult({ error: error.message });
    }
  };
  const report = result && 'report' in result ? result.report : null;
  return (
    <section className="vllm-import" aria-label="vLLM metrics import" data-testid="vllm-import">
      <h2>A real deployment’s numbers: vLLM /metrics</h2>
      <p>
        Paste (or drop a file of) the text a vLLM server serves at <code>/metrics</code>. Counters are summed over engines and models. With a “before” scrape too, you see the window between the two.
      </p>
      <div className="row">
        <ScrapeBox id="vllm-after" label="Scrape (or the “after” scrape)" value={after} onChange={setAfter} />
        <ScrapeBox id="vllm-before" label="“Before” scrape (optional)" value={before} onChange={setBefore} />
      </div>
      <div className="row">
        <label className="field" htmlFor="vllm-R">
          <span>R raw draft tokens, if you counted them</span>
          <input id="vllm-R" inputMode="numeric" value={R} onChange={(event) => setR(event.target.value)} />
        </label>
        <label className="field" htmlFor="vllm-I">
          <span>or I invalidated by the grammar</span>
          <input id="vllm-I" inputMode="numeric" value={I} onChange={(event) => setI(event.target.value)} />
        </label>
        <button type="button" onClick={read}>
          Read metrics
        </button>
      </div>
      {result && 'error' in result && (
        <p className="error" role="alert" data-testid="vllm-error">
          {result.error}
        </p>
      )}
      {report && (
        <>
          <CounterList
            testId="vllm-counters"
            entries={[
              ['num_drafts (verification steps)', report.num_drafts, 'num_drafts'],
              ['num_draft_tokens = D (grammar-invalidated drafts subtracted)', report.num_draft_tokens, 'D'],
              ['num_accepted_tokens = A', report.num_accepted_tokens, 'A'],
              ['draft_acceptance_rate A/D', percent(report.draft_acceptance_rate), 'acceptance-rate'],
              ['mean_acceptance_length 1 + A/num_drafts', fixed(report.mean_acceptance_length, 3), 'mean-length'],
              ['R raw draft tokens', report.R ?? 'not in vLLM’s counters', 'R'],
              ['I invalidated by grammar', report.I ?? 'not in vLLM’s counters', 'I'],
              ['D/R grammar survival', percent(report.grammar_survival)],
              ['A/R draft yield', percent(report.draft_yield)],
            ]}
          />
          <p>{report.note}</p>
          {report.per_position_acceptance.length > 0 && (
            <figure className="chart" data-chart="vllm-per-position">
              <figcaption>
                Per-position acceptance: num_accepted_tokens_per_pos / num_drafts
                {report.per_position_acceptance.length > CHART_POSITIONS &&
                  ` (the first ${CHART_POSITIONS} of ${report.per_position_acceptance.length} positions are drawn; “npm run import:vllm -- --json” lists them all)`}
              </figcaption>
              <PositionChart series={[{ name: 'vLLM', rates: report.per_position_acceptance.slice(0, CHART_POSITIONS) }]} />
            </figure>
          )}
        </>
      )}
    </section>
  );
}
