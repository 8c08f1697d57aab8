/**
 * A server's per-request speculative-decoding figures, from an imported file: vLLM or SGLang responses (one a
 * line) or AIPerf's profile_export.jsonl. Per model, the pooled figures (what vLLM's /metrics aggregate shows)
 * beside the median and p90 over requests, and a histogram of the requests' acceptance lengths. The file is
 * untrusted input: read and checked in src/core/requestSpecMetrics.ts, shown as text only.
 */
import { useState, type ChangeEvent } from 'react';
import { Bar, BarChart, ReferenceLine } from 'recharts';
import { percentile } from '../core/percentile';
import {
  acceptanceLengthBins,
  readResponses,
  requestDistribution,
  responsesSizeError,
  type RequestSpecRecord,
  type ResponsesReading,
} from '../core/requestSpecMetrics';
import { ScrapeError } from '../core/vllmMetrics';
import { chartAxes } from './chartParts';
import { ModelTable } from './ModelTable';
import { fixed, percent } from './format';
import { PALETTE } from './palette';

type Distribution = ReturnType<typeof requestDistribution>;
type Spread = Distribution['per_request']['acceptance_length'];

const spread = (value: Spread, show: (x: number | null) => string) => `${show(value.median)} / ${show(value.p90)}`;

const FIGURES: readonly [label: string, key: string, value: (d: Distribution) => string | number][] = [
  ['requests with counters', 'requests', (d) => d.requests],
  ['verification steps (summed)', 'steps', (d) => d.pooled.num_spec_steps],
  ['D draft tokens / A accepted (summed)', 'D-A', (d) => `${d.pooled.D} / ${d.pooled.A}`],
  ['A/D pooled (as vLLM’s /metrics shows it)', 'pooled-rate', (d) => percent(d.pooled.draft_acceptance_rate)],
  ['A/D per request: median / p90', 'request-rate', (d) => spread(d.per_request.draft_acceptance_rate, percent)],
  [
    'acceptance length pooled, 1 + ΣA / Σsteps (vLLM’s /metrics)',
    'pooled-length',
    (d) => fixed(d.pooled.mean_acceptance_length, 3),
  ],
  [
    'acceptance length per request: median / p90',
    'request-length',
    (d) => spread(d.per_request.acceptance_length, (x) => fixed(x, 3)),
  ],
  [
    'steps accepting 0, 1, … drafts (summed)',
    'histogram',
    (d) => d.pooled.acceptance_histogram?.join(', ') ?? 'not reported (SGLang sends no histogram)',
  ],
];

/** Requests by acceptance length, with the bins holding the pooled figure and the median marked. */
function LengthHistogram({ records }: { records: readonly RequestSpecRecord[] }) {
  const histogram = acceptanceLengthBins(records);
  if (histogram === null) return <p>No request ran a verification step: no acceptance length to chart.</p>;
  const steps = records.reduce((total, r) => total + r.steps, 0);
  const pooled = 1 + records.reduce((total, r) => total + r.accepted, 0) / steps;
  const median = percentile(
    records.filter((r) => r.steps > 0).map((r) => 1 + r.accepted / r.steps),
    50,
  ) as number;
  // Both lie between the shortest and the longest request's length, so within the bins.
  const at = (value: number) => (histogram.bins[histogram.binOf(value)] as { from: number }).from;
  return (
    <figure className="chart" data-chart="per-request-length">
      <figcaption>
        Requests by acceptance length (1 + A / steps of each request; bins of {histogram.width}); marked: the bin of the
        pooled figure ({fixed(pooled, 3)}, long requests weigh more) and of the median request ({fixed(median, 3)})
      </figcaption>
      <BarChart width={560} height={240} data={histogram.bins} margin={{ top: 24, right: 16, bottom: 4, left: 4 }}>
        {chartAxes({ key: 'from', title: 'acceptance length (bin start)' }, { title: 'requests', integer: true })}
        <Bar dataKey="requests" name="requests" fill={PALETTE.A} isAnimationActive={false} />
        <ReferenceLine
          x={at(pooled)}
          stroke={PALETTE.R}
          strokeWidth={2}
          label={{ value: 'pooled', position: 'insideTopRight', fill: PALETTE.R }}
        />
        <ReferenceLine
          x={at(median)}
          stroke={PALETTE.I}
          strokeDasharray="6 3"
          strokeWidth={2}
          label={{ value: 'median', position: 'top', fill: PALETTE.I }}
        />
      </BarChart>
    </figure>
  );
}

function ReadingTable({ reading }: { reading: ResponsesReading }) {
  const models = reading.models.map(({ model, records }) => ({ model, records, value: requestDistribution(records) }));
  return (
    <>
      <ModelTable
        testId="per-request-table"
        caption="Per request, one column per model (the response’s model field)"
        models={models}
        figures={FIGURES}
      />
      <p data-testid="per-request-lines">
        {reading.withCounters} requests with counters; {reading.withoutCounters} lines without them (stream chunks
        before the usage chunk, a server without --per-request-spec-decode-metrics, n &gt; 1, AIPerf requests with no
        verification step); {reading.failed} failed requests.
      </p>
      <p>
        Pooled figures weigh every step and draft token alike, so a long, poorly accepted completion pulls them down;
        the median and p90 weigh every request alike and show whether acceptance is even across requests.
      </p>
      {models.map(({ model, records }) => (
        <div key={model} data-model={model}>
          {models.length > 1 && <h4>{model}</h4>}
          <LengthHistogram records={records} />
        </div>
      ))}
    </>
  );
}

export function PerRequestView() {
  const [result, setResult] = useState<{ name: string; reading: ResponsesReading } | { error: string } | null>(null);
  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    const label = `the file ${JSON.stringify(file.name)}`;
    // Refused from its size, unread: a multi-gigabyte file would stall the page.
    const tooLarge = responsesSizeError(label, file.size);
    if (tooLarge !== null) {
      setResult({ error: tooLarge });
      return;
    }
    void file.text().then((text) => {
      try {
        setResult({ name: file.name, reading: readResponses(text, label) });
      } catch (error) {
        if (!(error instanceof ScrapeError)) throw error;
        setResult({ error: error.message });
      }
    });
  };
  return (
    <section aria-label="Per-request metrics import" data-testid="per-request-import">
      <h3>Per request: each response’s own counters</h3>
      <p>
        Import a file with one request a line: responses from a vLLM server started with{' '}
        <code>--per-request-spec-decode-metrics summary</code> (<code>metrics.speculative_decoding</code>), SGLang
        responses (<code>meta_info</code>), or AIPerf’s <code>profile_export.jsonl</code>.
      </p>
      <label className="field wide" htmlFor="per-request-file">
        <span>Per-request file (.jsonl)</span>
        <input id="per-request-file" type="file" accept=".jsonl,.json,.txt,.sse" onChange={onFile} />
      </label>
      {result && 'error' in result && (
        <p className="error" role="alert" data-testid="per-request-error">
          {result.error}
        </p>
      )}
      {result && 'reading' in result && (
        <>
          <p data-testid="per-request-source">From {result.name}:</p>
          <ReadingTable reading={result.reading} />
        </>
      )}
    </section>
  );
}
