import { memo, useDeferredValue, useRef, type ReactNode } from 'react';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { derivedRatios, perPositionAcceptance, recordStep, emptyCounters, type Counters } from '../core/metrics';
import type { StepRecord } from '../contract/stepRecord';
import { PositionChart } from './benchParts';
import { download } from './download';
import { HelpButton } from './HowItWorks';
import type { HelpTopic } from '../store/store';
import { PALETTE } from './palette';
import { useSpec } from './storeContext';

const WIDTH = 460;
const HEIGHT = 220;

async function svgToPng(svgText: string, width: number, height: number): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = width * 2;
    canvas.height = height * 2;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2D canvas to draw the PNG on');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The part of "How it works" each chart's "?" opens. */
const CHART_TOPICS: Readonly<Record<string, HelpTopic>> = { counters: 'counters', ratios: 'counters', 'mean-length': 'mean-length', histogram: 'histogram', 'per-position': 'verification' };

/** `waiting`: no step yet, so a light placeholder stands where recharts would draw empty axes. */
function ChartCard(props: { id: string; title: string; children: ReactNode; points: number; waiting: boolean }) {
  const frame = useRef<HTMLDivElement>(null);
  const svgText = () => {
    const svg = frame.current?.querySelector('svg.recharts-surface');
    if (!svg) throw new Error(`${props.title}: the chart has not drawn yet`);
    const copy = svg.cloneNode(true) as SVGSVGElement;
    copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    return new XMLSerializer().serializeToString(copy);
  };
  return (
    <figure className="chart" data-chart={props.id} data-points={props.points}>
      <figcaption>
        <span>
          {props.title} <HelpButton topic={CHART_TOPICS[props.id] ?? 'counters'} />
        </span>
        <span className="chart-exports">
          <button type="button" onClick={() => download(`${props.id}.svg`, new Blob([svgText()], { type: 'image/svg+xml' }))}>
            SVG
          </button>
          <button type="button" onClick={() => void svgToPng(svgText(), WIDTH, HEIGHT).then((blob) => download(`${props.id}.png`, blob))}>
            PNG
          </button>
        </span>
      </figcaption>
      <div ref={frame}>
        {props.waiting ? (
          <div className="chart-waiting" style={{ width: WIDTH, height: HEIGHT }}>
            Waiting for the first verification step.
          </div>
        ) : (
          props.children
        )}
      </div>
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

/** Lines over verification steps, drawn without animation so that live updates stay cheap. */
function StepLines(props: { data: SeriesPoint[]; lines: { key: keyof SeriesPoint; name: string; color: string }[]; domain?: [number, number] }) {
  return (
    <LineChart width={WIDTH} height={HEIGHT} data={props.data}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="step" />
      <YAxis {...(props.domain ? { domain: props.domain } : {})} />
      <Tooltip />
      <Legend />
      {props.lines.map((line) => (
        <Line key={line.key} type="monotone" name={line.name} dataKey={line.key} stroke={line.color} strokeWidth={2} dot={false} isAnimationActive={false} />
      ))}
    </LineChart>
  );
}

export function Charts() {
  // Deferred: React draws the charts when the page is idle, so a run in progress never waits on them.
  const steps = useDeferredValue(useSpec((s) => s.run.steps));
  const counters = useDeferredValue(useSpec((s) => s.run.counters));
  return <ChartGrid steps={steps} counters={counters} />;
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
  const histogram = counters.histogram.map((count, length) => ({ length, steps: count, ...(expected ? { expected: expected[length] } : {}) }));
  const positions = perPositionAcceptance(counters).map((rate, i) => ({ position: i + 1, rate }));
  return (
    <section className="charts" aria-labelledby="charts-heading">
      <h2 id="charts-heading">Counters</h2>
      <div className="chart-grid">
        <ChartCard id="counters" title="Cumulative draft tokens: R raw, I invalidated, D = R − I, A accepted" points={series.length} waiting={waiting}>
          <StepLines data={series} lines={(['R', 'I', 'D', 'A'] as const).map((key) => ({ key, name: key, color: PALETTE[key] }))} />
        </ChartCard>
        <ChartCard id="ratios" title="Ratios: D/R grammar survival, A/D conditional acceptance, A/R draft yield" points={series.length} waiting={waiting}>
          <StepLines
            data={series}
            domain={[0, 1]}
            lines={[
              { key: 'survival', name: 'D/R survival', color: PALETTE.D },
              { key: 'conditional', name: 'A/D conditional', color: PALETTE.A },
              { key: 'yield', name: 'A/R yield', color: PALETTE.R },
            ]}
          />
        </ChartCard>
        <ChartCard id="mean-length" title="Mean acceptance length 1 + A/steps (tokens per target forward)" points={series.length} waiting={waiting}>
          <StepLines data={series} domain={[1, L + 1]} lines={[{ key: 'meanLength', name: '1 + A/steps', color: PALETTE.other }]} />
        </ChartCard>
        <ChartCard id="histogram" title={`Accepted length per step, 0..${L} (bonus token excluded); total = steps`} points={histogram.length} waiting={waiting}>
          <ComposedChart width={WIDTH} height={HEIGHT} data={histogram}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="length" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            <Bar dataKey="steps" name="observed steps" fill={PALETTE.R} isAnimationActive={false} />
            {expected && <Line dataKey="expected" name="expected given the drafts (exact)" stroke={PALETTE.other} strokeWidth={2} isAnimationActive={false} />}
          </ComposedChart>
          <p className="chart-note" data-testid="histogram-expectation" data-expected={expected?.map((count) => count.toFixed(6)).join(' ')}>
            {expected
              ? 'Expected: Σ over steps of P(length | that step’s drafts), every verifier choice enumerated. Bars above or below it are the verifier’s luck; the drafts set its shape.'
              : 'Expected line not drawn: a step had more verifier paths than exact enumeration allows (SpecTr at large K and L, or a large vocabulary).'}
          </p>
        </ChartCard>
        <ChartCard id="per-position" title="Per-position acceptance: steps accepting ≥ i tokens / steps" points={positions.length} waiting={waiting}>
          <PositionChart series={[{ name: 'this run', rates: perPositionAcceptance(counters) }]} width={WIDTH} height={HEIGHT} />
        </ChartCard>
      </div>
    </section>
  );
});
