/**
 * Where each named view (src/store/talk.ts `VIEWS`: what a talk's scene shows and what `?embed=` renders)
 * is on the page: a CSS selector for its element.
 */
import type { ViewName } from '../store/talk';

export const VIEW_SELECTORS: Record<ViewName, string> = {
  output: 'section.stream',
  counters: 'section.counters',
  inspector: 'section.inspector',
  tree: '[data-testid="draft-tree"]',
  grid: '.grid-scroll:has([data-testid="decision-grid"])',
  race: 'section.race',
  'chart-histogram': 'figure[data-chart="histogram"]',
  'chart-ratios': 'figure[data-chart="ratios"]',
  'chart-counters': 'figure[data-chart="counters"]',
  'chart-mean-length': 'figure[data-chart="mean-length"]',
  'chart-per-position': 'figure[data-chart="per-position"]',
};

/**
 * What a talk scene places in full above its caption bar (docs/presenting.md#talk-mode): the view's element,
 * except that a race scene shows its results (the table and the chart) rather than the whole race section.
 */
export const TALK_FOCUS: Record<ViewName, string> = { ...VIEW_SELECTORS, race: '[data-testid="race-results"]' };
