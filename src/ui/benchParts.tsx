/** Pieces the live run's panels and the bench views share: the counter list, the per-position chart, progress. */
import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Label, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { Spread } from '../core/fairTiming';
import { derivedRatios, eligible, type Counters } from '../core/metrics';
import { PALETTE } from './palette';
import { download } from './download';
import { fixed, percent } from './format';

/** A median with its range, as read aloud: "12.3 [10.1–14.0]". */
export function medianRange(spread: Spread, digits = 1, unit = ''): string {
  return `${spread.median.toFixed(digits)}${unit} [${spread.min.toFixed(digits)}–${spread.max.toFixed(digits)}]`;
}

export type CounterEntry = readonly [label: string, value: ReactNode, key?: string];

/** Named counters as a definition list; `data-counter` lets tests and people point at each. `help` adds a "?" per counter. */
export function CounterList({ entries, testId, help }: { entries: readonly CounterEntry[]; testId?: string; help?: (key: string | undefined) => ReactNode }) {
  return (
    <dl className="counter-grid" data-testid={testId}>
      {entries.map(([label, value, key]) => (
        <div key={label}>
          <dt>
            {label}
            {help && <> {help(key)}</>}
          </dt>
          <dd data-counter={key}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A run's counters and ratios, as the counter panel, the history and the comparison show them. */
export function countersEntries(counters: Counters): CounterEntry[] {
  const ratios = derivedRatios(counters);
  return [
    ['R raw draft tokens', counters.raw, 'R'],
    ['I invalidated by grammar', counters.invalidated, 'I'],
    ['D = R − I', eligible(counters), 'D'],
    ['A accepted by target', counters.accepted, 'A'],
    ['steps (target forwards)', counters.steps, 'steps'],
    ['D/R grammar survival', percent(ratios.grammarSurvival)],
    ['A/D conditional acceptance (vLLM draft_acceptance_rate)', percent(ratios.conditionalAcceptance)],
    ['A/R draft yield', percent(ratios.draftYield)],
    ['mean acceptance length 1 + A/steps', fixed(ratios.meanAcceptanceLength, 3), 'mean-length'],
    ['accepted-length histogram 0..L', counters.histogram.join(' · '), 'histogram'],
  ];
}

const SERIES_COLOURS = [PALETTE.D, PALETTE.A, PALETTE.R, PALETTE.other];

/**
 * Per-position acceptance, one bar series per source (a live run, a vLLM scrape, two runs compared):
 * position i (1-based, as the draft reads) = steps that accepted at least i draft tokens / steps.
 */
export function PositionChart({ series, width = 460, height = 220 }: { series: readonly { name: string; rates: readonly (number | null)[] }[]; width?: number; height?: number }) {
  const positions = Math.max(0, ...series.map((entry) => entry.rates.length));
  const data = Array.from({ length: positions }, (_, i) => Object.fromEntries([['position', i + 1], ...series.map((entry, s) => [`s${s}`, entry.rates[i] ?? null])]));
  return (
    <BarChart width={width} height={height} data={data} margin={{ bottom: 24, left: 8 }}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="position">
        <Label value="draft position" position="insideBottom" offset={-16} />
      </XAxis>
      <YAxis domain={[0, 1]}>
        <Label value="share of steps" angle={-90} position="insideLeft" />
      </YAxis>
      <Tooltip />
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
