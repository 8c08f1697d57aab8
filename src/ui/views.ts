/**
 * Where each named view (src/store/talk.ts `VIEWS`: what a talk's scene shows and what `?embed=` renders)
 * is on the page: a CSS selector for its element.
 */
import type { SceneClaim } from '../contract/sceneClaims';
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

/**
 * The element that shows a scene's claim (src/contract/sceneClaims.ts) inside the views it may use
 * (src/store/talk.ts `CLAIM_VIEWS`): what the talk test finds in view above the caption, scene by scene. A
 * counter shows its claim only when it is above zero, a chart's bar only when it has a height.
 */
export const CLAIM_SELECTORS: Record<SceneClaim, string> = {
  'target-alone': '[data-testid="token-stream"] [data-position]',
  // Where the schema forced tokens, the counters show acceptance by the proposed drafts' A (presentation mode: their
  // A/D), as a forced token is no acceptance; the histogram's first bar counts steps that accepted no draft token.
  acceptance: [
    '[data-status="accepted"]:not([data-source="grammar"])',
    '[data-counter="A-proposed"]',
    '[data-counter="conditional-proposed"]',
    '.counters:not(:has([data-counter="A-proposed"])) [data-counter="A"]',
    '[data-chart="histogram"] .recharts-bar-rectangle:not(:first-child)',
    '[data-chart]:not([data-chart="histogram"]) .recharts-bar-rectangle',
    '.recharts-line-curve',
  ].join(', '),
  invalidation: '[data-status="invalid"], [data-counter="I"]',
  rejection: '[data-status="rejected"]:not([data-source="grammar"])',
  residual: '.final-correction, [data-testid="final-law"]',
  branching: '[data-branching]',
  'block-acceptance': '[data-kept-by-block]',
  race: '[data-testid="race-results"]',
};
