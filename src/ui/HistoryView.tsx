/**
 * The last runs (kept in IndexedDB across reloads), and any two of them side by side: their settings,
 * counters and ratios, with their per-position acceptance and accepted-length histograms overlaid.
 */
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Label, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { perPositionAcceptance } from '../core/metrics';
import type { HistoryEntry } from '../store/state';
import { CounterList, countersEntries, PositionChart } from './benchParts';
import { PALETTE } from './palette';
import { fixed, METHOD_LABELS } from './format';
import { useSpec } from './storeContext';

const describe = ({ report }: HistoryEntry) =>
  `${METHOD_LABELS[report.params.method]} K=${report.params.K} L=${report.params.L} T=${report.params.temperature} seed ${report.params.seed}`;

function Compare({ pair }: { pair: readonly [HistoryEntry, HistoryEntry] }) {
  const names = ['A', 'B'].map((letter, i) => `${letter}: ${describe(pair[i] as HistoryEntry)}`);
  const lengths = Math.max(...pair.map((entry) => entry.report.counters.histogram.length));
  const histogram = Array.from({ length: lengths }, (_, length) => ({
    length,
    a: pair[0].report.counters.histogram[length] ?? 0,
    b: pair[1].report.counters.histogram[length] ?? 0,
  }));
  return (
    <div className="compare" data-testid="history-compare">
      <div className="compare-columns">
        {pair.map((entry, i) => (
          <div key={entry.id}>
            <h3>{names[i]}</h3>
            <p>
              {entry.report.tokens.length} tokens, {fixed(entry.report.tokensPerSecond, 1)} tokens/s,{' '}
              {entry.report.verdict?.kind ?? 'free text'}
            </p>
            <CounterList entries={countersEntries(entry.report.counters)} />
            <details>
              <summary>Output text</summary>
              <pre className="race-text">{entry.report.text}</pre>
            </details>
          </div>
        ))}
      </div>
      <div className="chart-grid">
        <figure className="chart" data-chart="compare-per-position">
          <figcaption>Per-position acceptance, A and B overlaid</figcaption>
          <PositionChart
            series={pair.map((entry, i) => ({
              name: names[i] as string,
              rates: perPositionAcceptance(entry.report.counters),
            }))}
          />
        </figure>
        <figure className="chart" data-chart="compare-histogram">
          <figcaption>Accepted length per step (bonus token excluded), A and B overlaid</figcaption>
          <BarChart width={460} height={220} data={histogram} margin={{ bottom: 24, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="length">
              <Label value="draft tokens accepted" position="insideBottom" offset={-16} />
            </XAxis>
            <YAxis allowDecimals={false}>
              <Label value="steps" angle={-90} position="insideLeft" />
            </YAxis>
            <Tooltip />
            <Legend verticalAlign="top" />
            <Bar dataKey="a" name="A" fill={PALETTE.D} isAnimationActive={false} />
            <Bar dataKey="b" name="B" fill={PALETTE.A} isAnimationActive={false} />
          </BarChart>
        </figure>
      </div>
    </div>
  );
}

export function HistoryView() {
  const history = useSpec((s) => s.history);
  const clearHistory = useSpec((s) => s.clearHistory);
  const notice = useSpec((s) => s.historyNotice);
  const [chosen, setChosen] = useState<string[]>([]);
  const toggle = (id: string) =>
    setChosen(chosen.includes(id) ? chosen.filter((kept) => kept !== id) : [...chosen, id].slice(-2));
  const pair = chosen
    .map((id) => history.find((entry) => entry.id === id))
    .filter((entry): entry is HistoryEntry => entry !== undefined);
  return (
    <section className="history" aria-label="Run history" data-testid="history">
      <div className="section-head">
        <h2>Run history: the last {history.length} runs (kept across reloads)</h2>
        <button
          type="button"
          onClick={() => {
            setChosen([]);
            clearHistory();
          }}
          disabled={history.length === 0}
        >
          Clear history
        </button>
      </div>
      {notice !== null && (
        <p className="error" role="status" data-testid="history-notice">
          {notice}
        </p>
      )}
      {history.length === 0 ? (
        <p>No finished runs yet. Every run you finish is kept here (the last 20); tick two to compare them.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">compare</th>
              <th scope="col">finished</th>
              <th scope="col">run</th>
              <th scope="col">tokens</th>
              <th scope="col">mean acceptance length</th>
              <th scope="col">verdict</th>
            </tr>
          </thead>
          <tbody>
            {history.map((entry) => (
              <tr key={entry.id} data-history-id={entry.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`compare ${describe(entry)}`}
                    checked={chosen.includes(entry.id)}
                    onChange={() => toggle(entry.id)}
                  />
                </td>
                <td>{new Date(entry.finishedAt).toLocaleTimeString()}</td>
                <td>{describe(entry)}</td>
                <td>{entry.report.tokens.length}</td>
                <td>{fixed(entry.report.metrics.speclab.mean_acceptance_length, 3)}</td>
                <td>{entry.report.verdict?.kind ?? 'free text'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pair.length === 2 && <Compare pair={pair as [HistoryEntry, HistoryEntry]} />}
    </section>
  );
}
