/**
 * A real deployment's numbers: paste or drop a vLLM or SGLang /metrics scrape (or a before and an after), or
 * watch a live server (src/store/liveScrape.ts), and see its counters, ratios and per-position chart, one
 * column per model_name; below, a file of per-request records (PerRequestView). Scrapes are untrusted text:
 * parsed, never rendered as HTML.
 */
import { useEffect, useState, type DragEvent } from 'react';
import { CHART_POSITIONS } from '../contract/limits';
import {
  ScrapeError,
  modelReports,
  scrapeSizeError,
  readMetrics,
  readingDelta,
  type ScrapeReading,
  type SglangFigures,
  type SuppliedDraftCounts,
  type VllmReport,
} from '../core/vllmMetrics';
import { fetchScrape, liveScrapeUrl, nextLiveState, type LiveState } from '../store/liveScrape';
import { PositionChart } from './benchParts';
import { PerRequestView } from './PerRequestView';
import { fixed, percent } from './format';
import { ModelTable } from './ModelTable';

function ScrapeBox({
  id,
  label,
  value,
  onChange,
  onRefused,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  onRefused: (message: string) => void;
}) {
  const onDrop = (event: DragEvent<HTMLTextAreaElement>) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (!file) return;
    // A file past the limit is refused from its size, unread: 8 MiB of text in the box blocked the page for ~12 s.
    const tooLarge = scrapeSizeError(`the dropped file ${JSON.stringify(file.name)}`, file.size);
    if (tooLarge === null) void file.text().then(onChange);
    else onRefused(tooLarge);
  };
  return (
    <label className="field wide" htmlFor={id}>
      <span>{label}</span>
      <textarea
        id={id}
        rows={6}
        value={value}
        spellCheck={false}
        placeholder="# HELP vllm:spec_decode_num_drafts_total …"
        onChange={(event) => onChange(event.target.value)}
        onDragOver={(event) => event.preventDefault()}
        onDrop={onDrop}
      />
    </label>
  );
}

/** R or I as typed: empty for none, else a whole number. */
function parseCount(label: string, text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  if (!(Number.isInteger(value) && value >= 0))
    throw new ScrapeError(`${label} must be a whole number ≥ 0, got ${JSON.stringify(text)}`);
  return value;
}

function importScrapes(after: string, before: string): ScrapeReading {
  return before.trim() === ''
    ? readMetrics(after, 'the scrape')
    : readingDelta(readMetrics(before, 'the “before” scrape'), readMetrics(after, 'the “after” scrape'));
}

function suppliedCounts(R: string, I: string): SuppliedDraftCounts {
  const supplied = { R: parseCount('R', R), I: parseCount('I', I) };
  if (supplied.R !== undefined && supplied.I !== undefined) throw new ScrapeError('give R or I, not both (R = D + I)');
  return supplied.R !== undefined ? { R: supplied.R } : supplied.I !== undefined ? { I: supplied.I } : {};
}

type Figure = [label: string, key: string, value: (report: VllmReport) => string | number];

const VLLM_FIGURES: readonly Figure[] = [
  [
    'num_drafts (verification steps)',
    'num_drafts',
    (report) => report.num_drafts ?? 'unknown (vLLM v0 counts no drafts)',
  ],
  ['num_draft_tokens = D (grammar-invalidated drafts subtracted)', 'D', (report) => report.num_draft_tokens],
  ['num_accepted_tokens = A', 'A', (report) => report.num_accepted_tokens],
  ['draft_acceptance_rate A/D', 'acceptance-rate', (report) => percent(report.draft_acceptance_rate)],
  ['mean_acceptance_length 1 + A/num_drafts', 'mean-length', (report) => fixed(report.mean_acceptance_length, 3)],
  ['R raw draft tokens', 'R', (report) => report.R ?? 'not in vLLM’s counters'],
  ['I invalidated by grammar', 'I', (report) => report.I ?? 'not in vLLM’s counters'],
  ['D/R grammar survival', 'grammar-survival', (report) => percent(report.grammar_survival)],
  ['A/R draft yield', 'draft-yield', (report) => percent(report.draft_yield)],
];

const SGLANG_FIGURES: readonly [string, string, (figures: SglangFigures) => string | number][] = [
  [
    'spec_accept_length (SGLang’s last window, bonus token included)',
    'sglang-accept-length',
    (figures) => fixed(figures.acceptLength, 3),
  ],
  ['spec_accept_rate (last window)', 'sglang-accept-rate', (figures) => percent(figures.acceptRate)],
  ['spec_verify_calls (target verify forwards)', 'sglang-verify-calls', (figures) => figures.verifyCalls ?? '—'],
];

function ReadingView({ reading, supplied }: { reading: ScrapeReading; supplied: SuppliedDraftCounts }) {
  const reports = modelReports(reading, supplied);
  const sglang = [...reading.sglang].map(([model, value]) => ({ model, value }));
  const positions = Math.max(0, ...reports.map(({ report }) => report.per_position_acceptance.length));
  return (
    <>
      {reading.warnings.map((warning) => (
        <p key={warning} className="note" data-testid="vllm-warning">
          {warning}
        </p>
      ))}
      {reports.length > 0 && (
        <>
          <ModelTable
            testId="vllm-counters"
            caption="vLLM, one column per model_name (engines serving one model are summed; models never are)"
            models={reports.map(({ model, report }) => ({ model, value: report }))}
            figures={VLLM_FIGURES}
          />
          <p>{reports[0]?.report.note}</p>
        </>
      )}
      {positions > 0 && (
        <figure className="chart" data-chart="vllm-per-position">
          <figcaption>
            Per-position acceptance: num_accepted_tokens_per_pos / num_drafts, per model
            {positions > CHART_POSITIONS &&
              ` (the first ${CHART_POSITIONS} of ${positions} positions are drawn; “npm run import:vllm -- --json” lists them all)`}
          </figcaption>
          <PositionChart
            series={reports.map(({ model, report }) => ({
              name: model,
              rates: report.per_position_acceptance.slice(0, CHART_POSITIONS),
            }))}
          />
        </figure>
      )}
      {sglang.length > 0 && (
        <>
          <ModelTable
            testId="sglang-figures"
            caption="SGLang, one column per model_name"
            models={sglang}
            figures={SGLANG_FIGURES}
          />
          <p>
            SGLang’s accept length and rate are gauges over its own last logging window, not counters: two scrapes give
            the later window’s gauges and the verify calls’ delta.
          </p>
        </>
      )}
    </>
  );
}

const LIVE_INTERVALS = [2, 5, 10, 30] as const;

export function VllmImportView() {
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const [R, setR] = useState('');
  const [I, setI] = useState('');
  const [url, setUrl] = useState('');
  const [interval, setIntervalSeconds] = useState<number>(5);
  const [live, setLive] = useState<{ url: URL; supplied: SuppliedDraftCounts } | null>(null);
  const [result, setResult] = useState<
    { reading: ScrapeReading; supplied: SuppliedDraftCounts; source: string } | { error: string } | null
  >(null);
  const attempt = (work: () => void) => {
    try {
      work();
    } catch (error) {
      if (!(error instanceof ScrapeError)) throw error;
      setResult({ error: error.message });
      setLive(null);
    }
  };
  const refuse = (message: string) => setResult({ error: message });
  const read = () =>
    attempt(() =>
      setResult({
        reading: importScrapes(after, before),
        supplied: suppliedCounts(R, I),
        source: before.trim() === '' ? 'the scrape' : 'the window between the two scrapes',
      }),
    );
  const startLive = () =>
    attempt(() => setLive({ url: liveScrapeUrl(url, location.origin), supplied: suppliedCounts(R, I) }));
  // Scrapes at once, then every `interval` seconds, until stopped or a scrape fails; each window is the delta between two scrapes.
  useEffect(() => {
    if (live === null) return;
    let stopped = false;
    let state: LiveState | null = null;
    const failed = (error: unknown) => {
      if (stopped) return;
      if (!(error instanceof ScrapeError)) throw error;
      setResult({ error: error.message });
      setLive(null);
    };
    const poll = () => {
      fetchScrape(live.url).then((scrape) => {
        if (stopped) return;
        try {
          state = nextLiveState(state, scrape);
        } catch (error) {
          failed(error);
          return;
        }
        const source =
          state.window === null
            ? `${live.url.href}: the first scrape (totals since the server started); the first window follows in ${interval} s`
            : `${live.url.href}: the last window of ${interval} s (scrape ${state.scrapes})`;
        setResult({ reading: state.window ?? scrape, supplied: live.supplied, source });
      }, failed);
    };
    poll();
    const timer = setInterval(poll, interval * 1000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [live, interval]);
  return (
    <section className="vllm-import" aria-label="vLLM metrics import" data-testid="vllm-import">
      <h2>A real deployment’s numbers: vLLM and SGLang /metrics</h2>
      <p>
        Paste (or drop a file of) the text a vLLM or SGLang server serves at <code>/metrics</code>, or watch a live
        server. Figures are per model_name, one column each; engines serving one model are summed. With a “before”
        scrape too, you see the window between the two.
      </p>
      <div className="row">
        <ScrapeBox
          id="vllm-after"
          label="Scrape (or the “after” scrape)"
          value={after}
          onChange={setAfter}
          onRefused={refuse}
        />
        <ScrapeBox
          id="vllm-before"
          label="“Before” scrape (optional)"
          value={before}
          onChange={setBefore}
          onRefused={refuse}
        />
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
      <div className="row">
        <label className="field wide" htmlFor="vllm-url">
          <span>Live: a server’s /metrics URL (the server must allow this page’s origin: CORS)</span>
          <input
            id="vllm-url"
            type="url"
            value={url}
            placeholder="https://host:8000/metrics"
            onChange={(event) => setUrl(event.target.value)}
            disabled={live !== null}
          />
        </label>
        <label className="field" htmlFor="vllm-interval">
          <span>every</span>
          <select
            id="vllm-interval"
            value={interval}
            onChange={(event) => setIntervalSeconds(Number(event.target.value))}
            disabled={live !== null}
          >
            {LIVE_INTERVALS.map((seconds) => (
              <option key={seconds} value={seconds}>
                {seconds} s
              </option>
            ))}
          </select>
        </label>
        {live === null ? (
          <button type="button" onClick={startLive}>
            Watch live
          </button>
        ) : (
          <button type="button" onClick={() => setLive(null)}>
            Stop
          </button>
        )}
      </div>
      {result && 'error' in result && (
        <p className="error" role="alert" data-testid="vllm-error">
          {result.error}
        </p>
      )}
      {result && 'reading' in result && (
        <>
          <p data-testid="vllm-source">{result.source}</p>
          <ReadingView reading={result.reading} supplied={result.supplied} />
        </>
      )}
      <PerRequestView />
    </section>
  );
}
