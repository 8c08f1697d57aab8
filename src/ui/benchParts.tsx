/** Pieces the live run's panels and the bench views share: the counter list, the per-position chart, progress. */
import type { ReactNode } from 'react';
import { Bar, BarChart, Legend } from 'recharts';
import type { Spread } from '../core/fairTiming';
import { derivedRatios, eligible, type Counters } from '../core/metrics';
import { chartAxes, PLOT } from './chartParts';
import { PALETTE } from './palette';
import { download } from './download';
import { fixed, percent } from './format';
import { DISTINCT_ACCEPTANCE_NOTE } from './howItWorksText';

/** A median with its range, as read aloud: "12.3 [10.1–14.0]". */
export function medianRange(spread: Spread, digits = 1, unit = ''): string {
  return `${spread.median.toFixed(digits)}${unit} [${spread.min.toFixed(digits)}–${spread.max.toFixed(digits)}]`;
}

/** `note`: a gloss (vLLM's name, the formula) shown small, and left out in presentation mode. */
export type CounterEntry = readonly [label: string, value: ReactNode, key?: string, note?: string];

/** Named counters as a definition list; `data-counter` lets tests and people point at each. `help` adds a "?" per counter. */
export function CounterList({ entries, testId, help }: { entries: readonly CounterEntry[]; testId?: string; help?: (key: string | undefined, label: string) => ReactNode }) {
  return (
    <dl className="counter-grid" data-testid={testId}>
      {entries.map(([label, value, key, note]) => (
        <div key={label} className={key ? `counter counter-${key}` : 'counter'}>
          <dt>
            {label}
            {help && <> {help(key, label)}</>}
            {note && <small> ({note})</small>}
          </dt>
          <dd data-counter={key}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "model 12 · 0 · 7 | schema 9 · 0 · 9 | lookup 3 · 1 · 1": R, I and A split by where the draft tokens came from. */
export function sourceBreakdown({ bySource }: Counters): string {
  const names = { model: 'model', grammar: 'schema', lookup: 'lookup' } as const;
  return (['model', 'grammar', 'lookup'] as const).map((source) => `${names[source]} ${bySource[source].drafted} · ${bySource[source].invalidated} · ${bySource[source].accepted}`).join(' | ');
}

/** A run's counters and ratios, as the counter panel, the history and the comparison show them. */
export function countersEntries(counters: Counters): CounterEntry[] {
  const ratios = derivedRatios(counters);
  // The split by source says something only when a free drafter proposed tokens; with the draft model alone it repeats R, I and A.
  const freeDrafts = counters.bySource.grammar.drafted + counters.bySource.lookup.drafted > 0;
  return [
    ['R raw draft tokens', counters.raw, 'R'],
    ['I invalidated by grammar', counters.invalidated, 'I'],
    ['D = R − I', eligible(counters), 'D'],
    ['A accepted by target', counters.accepted, 'A'],
    ['steps (target forwards)', counters.steps, 'steps'],
    ['D/R grammar survival', percent(ratios.grammarSurvival), 'survival'],
    ['A/D conditional acceptance', percent(ratios.conditionalAcceptance), 'conditional', 'vLLM draft_acceptance_rate'],
    ['A over distinct drafted tokens', percent(ratios.distinctConditionalAcceptance), 'distinct', DISTINCT_ACCEPTANCE_NOTE],
    ['A/R draft yield', percent(ratios.draftYield), 'yield'],
    ['mean acceptance length', fixed(ratios.meanAcceptanceLength, 3), 'mean-length', '1 + A/steps'],
    ['accepted-length histogram', counters.histogram.join(' · '), 'histogram', '0..L'],
    ...(freeDrafts ? [['drafted · invalidated · accepted by source', sourceBreakdown(counters), 'by-source', 'model · schema (q = 1) · lookup (q = 1)'] satisfies CounterEntry] : []),
  ];
}

const SERIES_COLOURS = [PALETTE.D, PALETTE.A, PALETTE.R, PALETTE.other];

/**
 * Per-position acceptance, one bar series per source (a live run, a vLLM scrape, two runs compared):
 * position i (1-based, as the draft reads) = steps that accepted at least i draft tokens / steps.
 * `fill`: take the parent box's size (the live dashboard) instead of a fixed one. A legend is drawn (above the
 * plot) only for two or more series.
 */
export function PositionChart(props: { series: readonly { name: string; rates: readonly (number | null)[] }[]; width?: number; height?: number; fill?: boolean }) {
  const { series, width = 460, height = 220, fill = false } = props;
  const positions = Math.max(0, ...series.map((entry) => entry.rates.length));
  const data = Array.from({ length: positions }, (_, i) => Object.fromEntries([['position', i + 1], ...series.map((entry, s) => [`s${s}`, entry.rates[i] ?? null])]));
  const size = fill ? PLOT : { width, height, margin: PLOT.margin };
  return (
    <BarChart {...size} data={data}>
      {chartAxes({ key: 'position', title: 'draft position i' }, { title: 'share of steps', domain: [0, 1] })}
      {series.length > 1 && <Legend verticalAlign="top" />}
      {series.map((entry, s) => (
        <Bar key={entry.name} dataKey={`s${s}`} name={entry.name} fill={SERIES_COLOURS[s % SERIES_COLOURS.length] as string} isAnimationActive={false} />
      ))}
    </BarChart>
  );
}

/** A bench job's progress: a real progress bar with its count, and a Cancel button while it runs. */
export function JobProgress({ label, done, total, running, onCancel }: { label: string; done: number; total: number; running: boolean; onCancel: () => void }) {
  return (
    <div className="row job-progress">
      <label className="field inline">
        <span>
          {label}: {done} of {total || '?'} runs
        </span>
        <progress max={Math.max(total, 1)} value={done} />
      </label>
      <button type="button" onClick={onCancel} disabled={!running}>
        Cancel
      </button>
    </div>
  );
}

export function ExportButtons({ name, json, csv }: { name: string; json: () => unknown; csv: () => string }) {
  return (
    <span className="chart-exports">
      <button type="button" onClick={() => download(`${name}.json`, new Blob([JSON.stringify(json(), null, 2)], { type: 'application/json' }))}>
        Export JSON
      </button>
      <button type="button" onClick={() => download(`${name}.csv`, new Blob([csv()], { type: 'text/csv' }))}>
        Export CSV
      </button>
    </span>
  );
}
