import { Bar, BarChart, CartesianGrid, ErrorBar, XAxis, YAxis, type XAxisTickContentProps } from 'recharts';
import { DEFAULT_RACE_TOKEN_BUDGET, type RaceEntry } from '../contract/bench';
import { spreadsOverlap, type Spread } from '../core/fairTiming';
import { MIN_SAMPLES_FOR_VERDICT, VERDICT_TEXT } from '../core/verdict';
import { ChartCard } from './Charts';
import { PLOT } from './chartParts';
import { derivedRatios } from '../core/metrics';
import { describePositions, positionsPerStep } from '../contract/runReport';
import { medianRange } from './benchParts';
import { ScrollingTable } from './ScrollingTable';
import { PALETTE } from './palette';
import { fixed, METHOD_LABELS, METHOD_SHORT, percent, sig3 } from './format';
import { useSpec } from './storeContext';
import { RACE_EFFICIENCY_NOTE } from './howItWorksText';

const REPEAT_CHOICES = [1, 3, 5, 10];

/**
 * A method's name under its bar, every other one a row lower: seven names side by side overlap on a 1024 × 768
 * projector, where a bar is narrower than "ST-GBV".
 */
function StaggeredTick({ x, y, index, payload, className }: XAxisTickContentProps) {
  return (
    <text
      x={x}
      y={y}
      dy={index % 2 === 0 ? '0.71em' : '1.91em'}
      textAnchor="middle"
      fill="#222222"
      className={className}
    >
      {String(payload.value)}
    </text>
  );
}

const BUDGET_CHOICES = [50, 100, DEFAULT_RACE_TOKEN_BUDGET, 1000];

/** Pairs of methods whose speedup ranges overlap: the race cannot rank them. */
function overlapping(entries: readonly RaceEntry[]): string[] {
  const rated = entries.filter(
    (entry): entry is RaceEntry & { speedup: Spread } =>
      entry.method !== 'ar' && entry.speedup !== null && entry.speedup.n >= MIN_SAMPLES_FOR_VERDICT,
  );
  const pairs: string[] = [];
  rated.forEach((a, i) =>
    rated
      .slice(i + 1)
      .forEach(
        (b) =>
          spreadsOverlap(a.speedup, b.speedup) &&
          pairs.push(`${METHOD_LABELS[a.method]} and ${METHOD_LABELS[b.method]}`),
      ),
  );
  return pairs;
}

/** A label in full, and its short form, which a talk's race scene shows instead (app.css, html.talk). */
function Named(props: { long: string; short: string }) {
  return (
    <>
      <span className="long-name">{props.long}</span>
      <span className="short-name">{props.short}</span>
    </>
  );
}

export function RaceView() {
  const race = useSpec((s) => s.race);
  const setRaceRepeats = useSpec((s) => s.setRaceRepeats);
  const setRaceTokenBudget = useSpec((s) => s.setRaceTokenBudget);
  const result = race.result;
  const chart = (result?.entries ?? []).map((entry) => ({
    method: METHOD_SHORT[entry.method],
    median: entry.tokensPerSecond.median,
    range: [
      entry.tokensPerSecond.median - entry.tokensPerSecond.min,
      entry.tokensPerSecond.max - entry.tokensPerSecond.median,
    ],
  }));
  const ties = result ? overlapping(result.entries) : [];
  return (
    <section className="race" aria-labelledby="race-heading" data-testid="race">
      <h2 id="race-heading">
        Race: every method, same prompt and seeds{' '}
        {race.status === 'running'
          ? `(running… ${race.done} of ${race.total || '?'} samples)`
          : race.status === 'cancelled'
            ? '(cancelled)'
            : ''}
      </h2>
      <label className="field inline" htmlFor="race-repeats">
        <span>Timed rounds per race</span>
        <select
          id="race-repeats"
          value={race.repeats}
          onChange={(event) => setRaceRepeats(Number(event.target.value))}
          disabled={race.status === 'running'}
        >
          {REPEAT_CHOICES.map((repeats) => (
            <option key={repeats} value={repeats}>
              {repeats}
            </option>
          ))}
        </select>
      </label>
      <label className="field inline" htmlFor="race-budget">
        <span>Tokens per method per round</span>
        <select
          id="race-budget"
          value={race.tokenBudget}
          onChange={(event) => setRaceTokenBudget(Number(event.target.value))}
          disabled={race.status === 'running'}
        >
          {BUDGET_CHOICES.map((budget) => (
            <option key={budget} value={budget}>
              {budget}
            </option>
          ))}
        </select>
      </label>
      {race.status === 'cancelled' && (
        <p className="chart-note-dark" data-testid="race-cancelled">
          Cancelled {race.done > 0 ? `after ${race.done} of ${race.total} samples` : 'before its first sample'}: a race
          is ranked only whole, so it shows no rows.
        </p>
      )}
      {race.error && (
        <p className="error" role="alert">
          {race.error}
        </p>
      )}
      {result && (
        <>
          <p className="chart-note-dark" data-testid="race-repeats-note">
            Each method ran once untimed to warm up, then {result.repeats} timed{' '}
            {result.repeats === 1 ? 'round' : 'rounds'} with the order rotated every round, so no method always goes
            first. Each round times at least {result.tokenBudget} tokens per method (runs on the seed, then seed + 1, …
            until the budget is met). Times are medians over the {result.repeats}{' '}
            {result.repeats === 1 ? 'round' : 'rounds'} [min–max]; speedup compares each round with AR in the same
            round, on the same seeds. Against AR: the median speedup's 95% bootstrap interval over the rounds, faster or
            slower only when it lies wholly on one side of 1×, within noise when it holds 1×, too few samples under{' '}
            {MIN_SAMPLES_FOR_VERDICT} rounds. Tokens, forwards and the ratios are the timed runs' own, the runs the
            speed is measured on.
          </p>
          <div className="race-results" data-testid="race-results">
            <ScrollingTable cueId="race-scroll-cue">
              <table>
                <thead>
                  <tr>
                    <th scope="col">method</th>
                    <th scope="col" className="race-rate">
                      <Named long={`tokens/s, median [min–max] of ${result.repeats}`} short="tokens/s" />
                    </th>
                    <th scope="col">
                      <Named
                        long={`speedup over AR, median [min–max] of ${result.repeats}`}
                        short="speedup [min–max]"
                      />
                    </th>
                    <th scope="col">
                      <Named long="against AR [95% interval]" short="vs AR" />
                    </th>
                    <th scope="col" data-detail>
                      tokens timed (all rounds)
                    </th>
                    <th scope="col" data-detail>
                      target forwards (timed)
                    </th>
                    <th scope="col" data-detail>
                      block efficiency (tokens / forward)
                    </th>
                    <th scope="col" data-detail>
                      mean acceptance length 1 + A/steps
                    </th>
                    <th scope="col" data-detail>
                      A/D conditional acceptance
                    </th>
                    <th scope="col" data-detail>
                      target positions/step
                    </th>
                    <th scope="col" data-detail>
                      tokens timed per round (fewest)
                    </th>
                    <th scope="col" data-detail>
                      output (first run)
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {result.entries.map(
                    ({ method, report, timed, tokensPerSecond, speedup, speedupInterval, tokensTimed, verdict }) => (
                      <tr key={method} data-method={method}>
                        <th scope="row">
                          <Named long={METHOD_LABELS[method]} short={METHOD_SHORT[method]} />
                        </th>
                        <td className="race-rate" data-testid="race-rate">
                          {medianRange(tokensPerSecond)}
                        </td>
                        <td data-testid="race-speedup">{speedup ? medianRange(speedup, 2, '×') : '—'}</td>
                        <td data-testid="race-verdict">
                          {verdict ? (
                            <Named
                              long={`${VERDICT_TEXT[verdict]}${speedupInterval ? ` [${fixed(speedupInterval.low)}–${fixed(speedupInterval.high)}]` : ''}`}
                              short={verdict}
                            />
                          ) : (
                            'the baseline'
                          )}
                        </td>
                        <td data-detail>{timed.tokens}</td>
                        <td data-detail>{timed.forwards}</td>
                        <td data-detail>{fixed(timed.tokens / timed.forwards)}</td>
                        <td data-detail>{fixed(derivedRatios(timed.counters).meanAcceptanceLength)}</td>
                        <td data-detail>{percent(derivedRatios(timed.counters).conditionalAcceptance)}</td>
                        <td data-detail data-testid="race-positions">
                          {describePositions(positionsPerStep(report.scoring))}
                        </td>
                        <td data-detail>{tokensTimed}</td>
                        <td data-detail>{report.verdict?.kind ?? 'free text'}</td>
                      </tr>
                    ),
                  )}
                </tbody>
              </table>
            </ScrollingTable>
            <p className="chart-note-dark race-note" data-testid="race-efficiency-note">
              {RACE_EFFICIENCY_NOTE}
            </p>
            {ties.length > 0 && (
              <p className="chart-note-dark race-note" data-testid="race-ties">
                Within noise of each other (their speedup ranges overlap): {ties.join('; ')}.
              </p>
            )}
            <ChartCard
              id="race"
              title={`Tokens per second by method: median of ${result.repeats} timed rounds, whiskers min–max`}
              legend={[]}
              points={chart.length}
              waiting={false}
            >
              <BarChart {...PLOT} data={chart} margin={{ ...PLOT.margin, bottom: 24, left: 12 }}>
                <CartesianGrid strokeDasharray="3 3" />
                {/* Every method named under its bar (recharts would drop labels that crowd), on two rows. */}
                <XAxis
                  dataKey="method"
                  interval={0}
                  tick={StaggeredTick}
                  height={70}
                  label={{ value: 'method', position: 'insideBottom', offset: 2, fill: '#111111' }}
                />
                <YAxis
                  tick={{ fill: '#222222' }}
                  tickFormatter={sig3}
                  // Measured from the drawn ticks and title: a fast machine's "12,000" needs more room than "700".
                  width="auto"
                  // Every tick labelled, as in chartParts.tsx's axes.
                  interval={0}
                  label={{
                    value: 'tokens/s',
                    angle: -90,
                    position: 'insideLeft',
                    offset: 8,
                    style: { textAnchor: 'middle' },
                    fill: '#111111',
                  }}
                />
                <Bar dataKey="median" name="median tokens/s" fill={PALETTE.R} isAnimationActive={false}>
                  {/* Still, as the bars are: an animated whisker grows from the axis for 400 ms after every re-layout. */}
                  <ErrorBar dataKey="range" width={6} stroke={PALETTE.I} isAnimationActive={false} />
                </Bar>
              </BarChart>
            </ChartCard>
            <p className="race-names" data-testid="race-names">
              {result.entries.map(({ method }) => `${METHOD_SHORT[method]}: ${METHOD_LABELS[method]}`).join(' · ')}
            </p>
          </div>
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
