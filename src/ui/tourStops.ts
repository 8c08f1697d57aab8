/**
 * The tour's stops (./Tour.ts), apart from driver.js itself, so that the docs test can count them against
 * what the README and docs/teaching.md say.
 */
import type { DriveStep } from 'driver.js';

export const TOUR_STOPS: readonly DriveStep[] = [
  {
    element: '[data-tour="how-it-works"]',
    popover: {
      title: 'Start here',
      description:
        'SpecLab runs speculative decoding for real, in your browser. “How it works” explains each idea with a worked example; the “?” buttons open the matching part.',
    },
  },
  {
    element: '.run-bar',
    popover: {
      title: 'Run, or one step at a time',
      description: 'Run generates to the end; Step runs one verification step and pauses, so you can look at it.',
    },
  },
  {
    element: '.controls',
    popover: {
      title: 'Method, K and L',
      description:
        'Pick the verification method, the number of drafts K and their length L, and the JSON schema the output must follow.',
    },
  },
  {
    element: '.stream',
    popover: {
      title: 'The output',
      description:
        'Every token is coloured by where it came from: an accepted draft token, a correction, or a bonus. Hover a token to see the decision behind it.',
    },
  },
  {
    element: '.counters',
    popover: {
      title: 'Counters',
      description:
        'R drafted, I invalidated by the grammar, D eligible, A accepted; and the three ratios that keep them apart.',
    },
  },
  {
    element: '.charts',
    popover: {
      title: 'Charts',
      description:
        'How the counters grow, the accepted-length histogram with its exact expected line, and acceptance by position.',
    },
  },
  {
    element: '.inspector',
    popover: {
      title: 'Every decision, and one step in slow motion',
      description: 'The inspector shows each test with its drawn u, the drafts as a tree, and “Play this step”.',
    },
  },
  {
    element: '.run-bar',
    popover: {
      title: 'Your turn',
      description:
        'Press Step now: one verification step runs and pauses, and the inspector explains it. A first step the schema forces whole says so (nothing to verify): press Step again for one that branches, rejects and draws a correction.',
    },
  },
];
