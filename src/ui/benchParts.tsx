/** Pieces the live run's panels and the bench views share: the counter list, the per-position chart, progress. */
import type { ReactNode } from 'react';
import { Bar, BarChart, Legend } from 'recharts';
import type { Spread } from '../core/fairTiming';
import {
  derivedRatios,
  eligible,
  proposedRatios,
  sourceRatios,
  type Counters,
  type SourceCounts,
} from '../core/metrics';
import { FREE_SOURCES, type DraftSource, type FreeSource } from '../core/draftLaw';
import { chartAxes, PLOT } from './chartParts';
import { PALETTE } from './palette';
import { download } from './download';
import { fixed, percent } from './format';
import { DISTINCT_ACCEPTANCE_NOTE, FREE_SOURCE_WORDS, SOURCE_MARKS } from './howItWorksText';

/** A median with its range, as read aloud: "12.3 [10.1–14.0]". */
export function medianRange(spread: Spread, digits = 1, unit = ''): string {
  return `${spread.median.toFixed(digits)}${unit} [${spread.min.toFixed(digits)}–${spread.max.toFixed(digits)}]`;
}

/**
 * `note`: a gloss (vLLM's name, the formula) shown small, and left out in presentation mode. `aside`: a second
 * value beside the first (R, I and A's part from the free drafters), in its own element so the value stays a number.
 */
export type CounterEntry = readonly [
  label: string,
  value: ReactNode,
  key?: string,
  note?: string | undefined,
  aside?: ReactNode,
];

/** Named counters as a definition list; `data-counter` lets tests and people point at each. `help` adds a "?" per counter. */
export function CounterList({
  entries,
  testId,
  help,
}: {
  entries: readonly CounterEntry[];
  testId?: string;
  help?: (key: string | undefined, label: string) => ReactNode;
}) {
  return (
    <dl className="counter-grid" data-testid={testId}>
      {entries.map(([label, value, key, note, aside]) => (
        <div key={label} className={key ? `counter counter-${key}` : 'counter'}>
          <dt>
            {label}
            {help && <> {help(key, label)}</>}
            {note && <small> ({note})</small>}
          </dt>
          <dd data-counter={key}>{value}</dd>
          {aside}
        </div>
      ))}
    </dl>
  );
}

type SourceCount = keyof SourceCounts;

/**
 * Beside R, I or A, the part the free drafters gave, "◆ 18 ↺ 1" (the draft model gave the rest): compact
 * enough for presentation mode's narrow column at 1024 × 768. `sources`: the free sources that drafted.
 */
function freeShares(count: SourceCount, bySource: Counters['bySource'], sources: readonly FreeSource[]): ReactNode {
  if (sources.length === 0) return undefined;
  const words = sources.map((source) => `${bySource[source][count]} ${FREE_SOURCE_WORDS[source]} (q = 1)`).join(', ');
  // The sampled rest came from the draft head where it drafted, else from the draft model.
  const rest = bySource.head.drafted > 0 ? 'the draft head' : 'the draft model';
  return (
    <dd className="source-shares" data-source-shares={count} title={`${words}; the rest from ${rest}`}>
      {sources.map((source) => (
        <span key={source} className="source-share">
          {SOURCE_MARKS[source].symbol} {bySource[source][count]}
        </span>
      ))}
    </dd>
  );
}

/** Who drafts, in the by-source line: the free sources by their marks. */
const SOURCE_NAMES: Readonly<Record<DraftSource, string>> = {
  model: 'model',
  head: 'head',
  grammar: `${SOURCE_MARKS.grammar.symbol} schema`,
  copy: `${SOURCE_MARKS.copy.symbol} copy`,
  lookup: `${SOURCE_MARKS.lookup.symbol} lookup`,
};

/**
 * Why a free source pays, one line: per source that drafted, its A/D and its accepted tokens a step
 * ("◆ schema 99% · 1.40 a step; ▣ copy 85% · 0.60; model 41% · 0.52"); the tokens a step sum to A/steps.
 */
function bySourceEntry(counters: Counters): CounterEntry {
  const parts = sourceRatios(counters).map(
    ({ source, conditionalAcceptance, tokensPerStep }, i) =>
      `${SOURCE_NAMES[source]} ${percent(conditionalAcceptance)} · ${fixed(tokensPerStep, 2)}${i === 0 ? ' a step' : ''}`,
  );
  return [
    'A/D and accepted tokens a step, by source',
    parts.join('; '),
    'by-source',
    'the tokens a step sum to A/steps',
  ];
}

/**
 * Where the schema forced tokens, A and A/D again over the proposed tokens alone, beside the forced share of A:
 * forced text (q = p = 1) is always accepted, so the plain A/D would read a step of it as 100% acceptance.
 */
function forcedApart(counters: Counters): CounterEntry[] {
  if (counters.bySource.grammar.drafted === 0) return [];
  const proposed = proposedRatios(counters);
  return [
    ['A of proposed drafts', proposed.accepted, 'A-proposed', 'forced tokens excluded'],
    [
      'A/D of proposed drafts',
      percent(proposed.conditionalAcceptance),
      'conditional-proposed',
      'forced tokens excluded',
    ],
    [`${SOURCE_MARKS.grammar.symbol} forced share of A`, percent(proposed.forcedShare), 'forced-share'],
    [
      'mean acceptance length of proposed drafts',
      fixed(proposed.meanAcceptanceLength, 3),
      'mean-length-proposed',
      '1 + proposed A/steps',
    ],
  ];
}

/** A run's counters and ratios, as the counter panel, the history and the comparison show them. */
export function countersEntries(counters: Counters): CounterEntry[] {
  const ratios = derivedRatios(counters);
  // Only the free sources that proposed tokens are shown beside R, I and A; with the draft model alone there are none.
  const sources = FREE_SOURCES.filter((source) => counters.bySource[source].drafted > 0);
  const shares = (count: SourceCount) => freeShares(count, counters.bySource, sources);
  const sourceNote =
    sources.length > 0
      ? `of which ${sources.map((source) => `${SOURCE_MARKS[source].symbol} ${FREE_SOURCE_WORDS[source]}`).join(', ')}`
      : undefined;
  return [
    ['R raw draft tokens', counters.raw, 'R', sourceNote, shares('drafted')],
    ['I invalidated by grammar', counters.invalidated, 'I', undefined, shares('invalidated')],
    ['D = R − I', eligible(counters), 'D'],
    ['A accepted by target', counters.accepted, 'A', undefined, shares('accepted')],
    ...forcedApart(counters),
    ['steps (target forwards)', counters.steps, 'steps'],
    ['D/R grammar survival', percent(ratios.grammarSurvival), 'survival'],
    ['A/D conditional acceptance', percent(ratios.conditionalAcceptance), 'conditional', 'vLLM draft_acceptance_rate'],
    [
      'A over distinct drafted tokens',
      percent(ratios.distinctConditionalAcceptance),
      'distinct',
      DISTINCT_ACCEPTANCE_NOTE,
    ],
    ['A/R draft yield', percent(ratios.draftYield), 'yield'],
    ['mean acceptance length', fixed(ratios.meanAcceptanceLength, 3), 'mean-length', '1 + A/steps'],
    ...(sources.length > 0 ? [bySourceEntry(counters)] : []),
    ['accepted-length histogram', counters.histogram.join(' · '), 'histogram', '0..L'],
  ];
}

const SERIES_COLOURS = [PALETTE.D, PALETTE.A, PALETTE.R, PALETTE.other];

/**
 * Per-position acceptance, one bar series per source (a live run, a vLLM scrape, two runs compared):
 * position i (1-based, as the draft reads) = steps that accepted at least i draft tokens / steps.
 * `fill`: take the parent box's size (the live dashboard) instead of a fixed one. A legend is drawn (above the
 * plot) only for two or more series.
 */
export function PositionChart(props: {
  series: readonly { name: string; rates: readonly (number | null)[] }[];
  width?: number;
  height?: number;
  fill?: boolean;
}) {
  const { series, width = 460, height = 220, fill = false } = props;
  const positions = Math.max(0, ...series.map((entry) => entry.rates.length));
  const data = Array.from({ length: positions }, (_, i) =>
    Object.fromEntries([['position', i + 1], ...series.map((entry, s) => [`s${s}`, entry.rates[i] ?? null])]),
  );
  const size = fill ? PLOT : { width, height, margin: PLOT.margin };
  return (
    <BarChart {...size} data={data}>
      {chartAxes({ key: 'position', title: 'draft position i' }, { title: 'share of steps', domain: [0, 1] })}
      {series.length > 1 && <Legend verticalAlign="top" />}
      {series.map((entry, s) => (
        <Bar
          key={entry.name}
          dataKey={`s${s}`}
          name={entry.name}
          fill={SERIES_COLOURS[s % SERIES_COLOURS.length] as string}
          isAnimationActive={false}
        />
      ))}
    </BarChart>
  );
}

/** A bench job's progress: a real progress bar with its count, and a Cancel button while it runs. */
export function JobProgress({
  label,
  done,
  total,
  running,
  onCancel,
}: {
  label: string;
  done: number;
  total: number;
  running: boolean;
  onCancel: () => void;
}) {
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
      <button
        type="button"
        onClick={() =>
          download(`${name}.json`, new Blob([JSON.stringify(json(), null, 2)], { type: 'application/json' }))
        }
      >
        Export JSON
      </button>
      <button type="button" onClick={() => download(`${name}.csv`, new Blob([csv()], { type: 'text/csv' }))}>
        Export CSV
      </button>
    </span>
  );
}
