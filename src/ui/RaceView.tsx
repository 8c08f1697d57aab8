import { Bar, BarChart, CartesianGrid, ErrorBar, Label, XAxis, YAxis } from 'recharts';
import { derivedRatios } from '../core/metrics';
import { describePositions, positionsPerStep } from '../contract/runReport';
import { medianRange } from './benchParts';
import { PALETTE } from './palette';
import { fixed, METHOD_LABELS, percent } from './format';
import { useSpec } from './storeContext';
import { RACE_EFFICIENCY_NOTE } from './howItWorksText';

const REPEAT_CHOICES = [1, 3, 5, 10];


export function RaceView() {
  const race = useSpec((s) => s.race);
  const setRaceRepeats = useSpec((s) => s.setRaceRepeats);
  const result = race.result;
  const chart = (result?.entries ?? []).map((entry) => ({
    method: entry.method,
    median: entry.tokensPerSecond.median,
    range: [entry.tokensPerSecond.median - entry.tokensPerSecond.min, entry.tokensPerSecond.max - entry.tokensPerSecond.median],
  }));
  return (
    <section className="race" aria-labelledby="race-heading" data-testid="race">
      <h2 id="race-heading">Race: every method, same prompt and seed {race.status === 'running' ? `(running… ${race.done} of ${race.total || '?'} runs)` : race.status === 'cancelled' ? '(cancelled)' : ''}</h2>
      <label className="field inline" htmlFor="race-repeats">
        <span>Timed rounds per race</span>
        <select id="race-repeats" value={race.repeats} onChange={(event) => setRaceRepeats(Number(event.target.value))} disabled={race.status === 'running'}>
          {REPEAT_CHOICES.map((repeats) => (
            <option key={repeats} value={repeats}>
              {repeats}
            </option>
          ))}
        </select>
      </label>
      {race.error && (
        <p className="error" role="alert">
          {race.error}
        </p>
      )}
      {result && (
        <>
          <p className="chart-note" data-testid="race-repeats-note">
            Each method ran once untimed to warm up, then {result.repeats} timed {result.repeats === 1 ? 'round' : 'rounds'} with the order rotated every round, so no method always goes first. Times are
            medians over the {result.repeats} {result.repeats === 1 ? 'round' : 'rounds'} [min–max]; speedup compares each round with AR in the same round.
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">method</th>
                <th scope="col">tokens</th>
                <th scope="col">target forwards</th>
                <th scope="col">block efficiency (tokens / forward)</th>
                <th scope="col">mean acceptance length 1 + A/steps</th>
                <th scope="col">A/D conditional acceptance</th>
                <th scope="col">target positions/step</th>
                <th scope="col">tokens/s, median [min–max] of {result.repeats}</th>
                <th scope="col">speedup over AR, median [min–max] of {result.repeats}</th>
                <th scope="col">verdict</th>
              </tr>
            </thead>
            <tbody>
              {result.entries.map(({ method, report, tokensPerSecond, speedup }) => (
                <tr key={method} data-method={method}>
                  <th scope="row">{METHOD_LABELS[method]}</th>
                  <td>{report.tokens.length}</td>
                  <td>{report.steps}</td>
                  <td>{fixed(report.tokens.length / report.steps)}</td>
                  <td>{fixed(derivedRatios(report.counters).meanAcceptanceLength)}</td>
                  <td>{percent(derivedRatios(report.counters).conditionalAcceptance)}</td>
                  <td data-testid="race-positions">{describePositions(positionsPerStep(report.scoring))}</td>
                  <td data-testid="race-rate">{medianRange(tokensPerSecond)}</td>
                  <td>{speedup ? medianRange(speedup, 2, '×') : '—'}</td>
                  <td>{report.verdict?.kind ?? 'free text'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="chart-note" data-testid="race-efficiency-note">
            {RACE_EFFICIENCY_NOTE}
          </p>
          <figure className="chart" data-chart="race">
            <figcaption>Tokens per second by method: median of {result.repeats} timed rounds, whiskers min–max</figcaption>
            <BarChart width={560} height={240} data={chart} margin={{ bottom: 24, left: 12 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="method">
                <Label value="method" position="insideBottom" offset={-16} />
              </XAxis>
              <YAxis>
                <Label value="tokens/s" angle={-90} position="insideLeft" />
              </YAxis>
              <Bar dataKey="median" name="median tokens/s" fill={PALETTE.R} isAnimationActive={false}>
                <ErrorBar dataKey="range" width={6} stroke={PALETTE.I} />
              </Bar>
            </BarChart>
          </figure>
          <div className="race-texts">
            {result.entries.map(({ method, report }) => (
              <details key={method} data-method={method}>
                <summary>{METHOD_LABELS[method]}: output text</summary>
                <pre className="race-text">{report.text}</pre>
              </details>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
