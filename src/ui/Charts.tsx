import { memo, useDeferredValue, useRef, type ReactElement, type ReactNode } from 'react';
import { RaceInCharts } from './RaceProgress';
import { Bar, ComposedChart, Line, LineChart } from 'recharts';
import {
  derivedRatios,
  perPositionAcceptance,
  proposedRatios,
  recordStep,
  emptyCounters,
  type Counters,
} from '../core/metrics';
import type { StepRecord } from '../contract/stepRecord';
import { PositionChart } from './benchParts';
import { chartSvgToPng, composeChartSvg, type LegendEntry } from './chartExport';
import { chartAxes, PLOT, stepTicks } from './chartParts';
import { download } from './download';
import { HelpButton } from './HowItWorks';
import type { HelpTopic } from '../store/store';
import { PALETTE } from './palette';
import { useSpec } from './storeContext';
import { useShownRun } from './replayView';

interface ChartProps {
  id: string;
  /** Names what is plotted and its denominator; it heads the card and every export. */
  title: string;
  legend: readonly LegendEntry[];
  points: number;
  waiting: boolean;
  children: ReactElement;
  note?: ReactNode;
}

/** The part of "How it works" each chart's "?" opens. */
const CHART_TOPICS: Readonly<Record<string, HelpTopic>> = {
  counters: 'counters',
  ratios: 'counters',
  'mean-length': 'mean-length',
  histogram: 'histogram',
  'per-position': 'verification',
  race: 'mean-length',
};

/**
 * One chart in a card: title, exports, an HTML legend outside the plot (it never covers data), and the
 * plot, which fills the card's width and the height the stylesheet gives `.chart-plot`.
 */
export function ChartCard(props: ChartProps) {
  const frame = useRef<HTMLDivElement>(null);
  const compose = () => {
    if (!frame.current) throw new Error(`${props.title}: the chart has not drawn yet`);
    return composeChartSvg(frame.current, props.title, props.legend);
  };
  return (
    <figure
      className="chart"
      data-chart={props.id}
      data-points={props.points}
      aria-labelledby={`chart-title-${props.id}`}
    >
      <figcaption>
        <span className="chart-title-row">
          <span id={`chart-title-${props.id}`} className="chart-title">
            {props.title}
          </span>{' '}
          <HelpButton topic={CHART_TOPICS[props.id] ?? 'counters'} />
        </span>
        <span className="chart-exports" data-snapshot="omit">
          <button
            type="button"
            aria-label={`${props.title}: export SVG`}
            disabled={props.waiting}
            onClick={() => download(`speclab-${props.id}.svg`, new Blob([compose().text], { type: 'image/svg+xml' }))}
          >
            SVG
          </button>
          <button
            type="button"
            aria-label={`${props.title}: export PNG at 2×`}
            disabled={props.waiting}
            onClick={() => void chartSvgToPng(compose()).then((blob) => download(`speclab-${props.id}.png`, blob))}
          >
            PNG
          </button>
        </span>
      </figcaption>
      {props.legend.length > 0 && (
        <ul className="chart-legend" aria-label="Legend">
          {props.legend.map((entry) => (
            <li key={entry.name}>
              <span
                className={`swatch swatch-${entry.kind}`}
                style={{
                  background:
                    entry.kind === 'dashed'
                      ? `repeating-linear-gradient(90deg, ${entry.color} 0 5px, transparent 5px 8px)`
                      : entry.color,
                }}
                aria-hidden="true"
              />
              {entry.name}
            </li>
          ))}
        </ul>
      )}
      <div ref={frame} className="chart-plot">
        {props.waiting ? <div className="chart-waiting">Waiting for the first verification step.</div> : props.children}
      </div>
      {props.note}
    </figure>
  );
}

/** The counters after each step, and the ratios over them. */
function cumulativeSeries(steps: readonly StepRecord[], L: number) {
  const points = [];
  let running = emptyCounters(L);
  for (const [index, step] of steps.entries()) {
    running = recordStep(running, step.counts);
    const ratios = derivedRatios(running);
    const proposed = proposedRatios(running);
    points.push({
      step: index + 1,
      R: running.raw,
      I: running.invalidated,
      D: running.raw - running.invalidated,
      A: running.accepted,
      survival: ratios.grammarSurvival,
      conditional: ratios.conditionalAcceptance,
      yield: ratios.draftYield,
      meanLength: ratios.meanAcceptanceLength,
      proposedConditional: proposed.conditionalAcceptance,
      proposedMeanLength: proposed.meanAcceptanceLength,
    });
  }
  return points;
}

/** Σ over steps of P(accepted = j | the step's drafts), or null when some step has no exact law. */
function expectedHistogram(steps: readonly StepRecord[], L: number): number[] | null {
  const expected = new Array<number>(L + 1).fill(0);
  for (const { lengthLaw } of steps) {
    if (!lengthLaw) return null;
    lengthLaw.forEach((p, j) => (expected[j] = (expected[j] as number) + p));
  }
  return expected;
}

type SeriesPoint = ReturnType<typeof cumulativeSeries>[number];

type LineSpec = { key: keyof SeriesPoint; name: string; color: string; dashed?: boolean };

const lineLegend = (lines: readonly LineSpec[]): LegendEntry[] =>
  lines.map(({ name, color, dashed }) => ({ name, color, kind: dashed ? 'dashed' : 'line' }));

/** Lines over verification steps, drawn without animation so that live updates stay cheap. */
function StepLines(props: {
  data: SeriesPoint[];
  lines: readonly LineSpec[];
  yTitle: string;
  domain?: [number, number];
}) {
  return (
    <LineChart {...PLOT} data={props.data}>
      {chartAxes(
        { key: 'step', title: 'verification step', ticks: stepTicks(props.data.length) },
        { title: props.yTitle, ...(props.domain ? { domain: props.domain } : {}) },
      )}
      {props.lines.map((line) => (
        <Line
          key={line.key}
          type="monotone"
          name={line.name}
          dataKey={line.key}
          stroke={line.color}
          strokeWidth={2}
          {...(line.dashed ? { strokeDasharray: '6 4' } : {})}
          dot={false}
          isAnimationActive={false}
        />
      ))}
    </LineChart>
  );
}

const COUNT_LINES: readonly LineSpec[] = [
  { key: 'R', name: 'R raw', color: PALETTE.R },
  { key: 'I', name: 'I invalidated', color: PALETTE.I },
  { key: 'D', name: 'D eligible', color: PALETTE.D },
  { key: 'A', name: 'A accepted', color: PALETTE.A },
];
const RATIO_LINES: readonly LineSpec[] = [
  { key: 'survival', name: 'D/R survival', color: PALETTE.D },
  { key: 'conditional', name: 'A/D acceptance', color: PALETTE.A },
  { key: 'yield', name: 'A/R yield', color: PALETTE.R },
];
const MEAN_LINES: readonly LineSpec[] = [{ key: 'meanLength', name: '1 + A/steps', color: PALETTE.other }];
/** Where the schema forced tokens (always accepted), the same ratios over the proposed tokens alone, dashed beside them. */
const PROPOSED_RATIO_LINE: LineSpec = {
  key: 'proposedConditional',
  name: 'A/D of proposed drafts',
  color: PALETTE.A,
  dashed: true,
};
const PROPOSED_MEAN_LINE: LineSpec = {
  key: 'proposedMeanLength',
  name: '1 + proposed A/steps',
  color: PALETTE.other,
  dashed: true,
};

export function Charts() {
  // Deferred: React draws the charts when the page is idle, so a run in progress never waits on them.
  const steps = useDeferredValue(useSpec((s) => s.run.steps));
  const counters = useDeferredValue(useSpec((s) => s.run.counters));
  // During a replay, the run as it stood before the replayed step (src/ui/replayView.ts).
  const shown = useShownRun(
    steps,
    counters,
    useSpec((s) => s.ui.replay),
  );
  // A race in flight takes the charts' place, where the room looks; the run's charts come back when it ends.
  const racing = useSpec((s) => s.race.status === 'running');
  if (racing) return <RaceInCharts />;
  return <ChartGrid steps={shown.steps} counters={shown.counters} />;
}

/**
 * Memoised on the deferred values, so the urgent render of every store update skips the charts: recharts
 * is the costliest part of the page to redraw, and its redraws would share the CPU with the engine.
 */
const ChartGrid = memo(function ChartGrid({ steps, counters }: { steps: readonly StepRecord[]; counters: Counters }) {
  const { L } = counters;
  const waiting = steps.length === 0;
  const series = cumulativeSeries(steps, L);
  const expected = expectedHistogram(steps, L);
  const histogram = counters.histogram.map((count, length) => ({
    length,
    steps: count,
    ...(expected ? { expected: expected[length] } : {}),
  }));
  const positions = perPositionAcceptance(counters);
  const forced = counters.bySource.grammar.drafted > 0;
  const ratioLines = forced ? [...RATIO_LINES, PROPOSED_RATIO_LINE] : RATIO_LINES;
  const meanLines = forced ? [...MEAN_LINES, PROPOSED_MEAN_LINE] : MEAN_LINES;
  const histogramLegend: LegendEntry[] = [
    { name: 'observed', color: PALETTE.R, kind: 'bar' },
    ...(expected ? [{ name: 'expected given the drafts', color: PALETTE.other, kind: 'line' } as const] : []),
  ];
  return (
    <section className="charts" aria-labelledby="charts-heading">
      <div className="section-head">
        <h2 id="charts-heading">Charts</h2>
        {/* Shown where the charts scroll in a region one row high (presentation mode under 1600 px). */}
        <span className="chart-scroll-hint">5 charts: scroll here for the next row ↓</span>
      </div>
      <div className="chart-grid">
        <ChartCard
          id="histogram"
          title="Steps by accepted draft tokens, bonus excluded (total = steps)"
          legend={histogramLegend}
          points={histogram.length}
          waiting={waiting}
          note={
            <p
              className="chart-note"
              data-testid="histogram-expectation"
              data-expected={expected?.map((count) => count.toFixed(6)).join(' ')}
            >
              {expected
                ? 'Expected: Σ over steps of P(length | that step’s drafts), every verifier choice enumerated. Bars above or below it are the verifier’s luck; the drafts set its shape.'
                : 'Expected line not drawn: a step had more verifier paths than exact enumeration allows (SpecTr at large K and L, or a large vocabulary).'}
            </p>
          }
        >
          <ComposedChart {...PLOT} data={histogram}>
            {chartAxes({ key: 'length', title: `accepted draft tokens, 0..${L}` }, { title: 'steps', integer: true })}
            <Bar dataKey="steps" name="observed" fill={PALETTE.R} isAnimationActive={false} />
            {expected && (
              <Line
                dataKey="expected"
                name="expected given the drafts"
                stroke={PALETTE.other}
                strokeWidth={2}
                isAnimationActive={false}
              />
            )}
          </ComposedChart>
        </ChartCard>
        <ChartCard
          id="ratios"
          title="Ratios of cumulative counts: D/R, A/D, A/R"
          legend={lineLegend(ratioLines)}
          points={series.length}
          waiting={waiting}
        >
          <StepLines data={series} domain={[0, 1]} lines={ratioLines} yTitle="ratio (0–1)" />
        </ChartCard>
        <ChartCard
          id="counters"
          title="Cumulative draft tokens R, I, D = R − I, A"
          legend={lineLegend(COUNT_LINES)}
          points={series.length}
          waiting={waiting}
        >
          <StepLines data={series} lines={COUNT_LINES} yTitle="draft tokens" />
        </ChartCard>
        <ChartCard
          id="mean-length"
          title="Mean acceptance length 1 + A/steps: tokens per target forward"
          legend={lineLegend(meanLines)}
          points={series.length}
          waiting={waiting}
        >
          <StepLines data={series} domain={[1, L + 1]} lines={meanLines} yTitle="tokens per step" />
        </ChartCard>
        <ChartCard
          id="per-position"
          title="Per-position acceptance: steps accepting ≥ i / steps"
          legend={[{ name: 'share of steps', color: PALETTE.D, kind: 'bar' }]}
          points={positions.length}
          waiting={waiting}
        >
          <PositionChart fill series={[{ name: 'share of steps', rates: positions }]} />
        </ChartCard>
      </div>
    </section>
  );
});
