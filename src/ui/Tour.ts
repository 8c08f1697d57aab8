/**
 * A short guided tour (driver.js) of the first screen. It opens by itself on a first visit only: once
 * dismissed or finished it is remembered in localStorage, and "Take the tour" reopens it. It never opens by
 * itself under automation (navigator.webdriver, as in the browser tests) or with ?tour=off, so that it
 * never covers what a test or a scripted demo is about to click.
 */
import { driver, type DriveStep } from 'driver.js';
import 'driver.js/dist/driver.css';
import { pageEmbed } from './embed';

export const TOUR_DISMISSED_KEY = 'speclab.tour.dismissed';

const STOPS: readonly DriveStep[] = [
  {
    element: '[data-tour="how-it-works"]',
    popover: { title: 'Start here', description: 'SpecLab runs speculative decoding for real, in your browser. “How it works” explains each idea with a worked example; the “?” buttons open the matching part.' },
  },
  { element: '.run-bar', popover: { title: 'Run, or one step at a time', description: 'Run generates to the end; Step runs one verification step and pauses, so you can look at it.' } },
  { element: '.controls', popover: { title: 'Method, K and L', description: 'Pick the verification method, the number of drafts K and their length L, and the JSON schema the output must follow.' } },
  { element: '.stream', popover: { title: 'The output', description: 'Every token is coloured by where it came from: an accepted draft token, a correction, or a bonus. Hover a token to see the decision behind it.' } },
  { element: '.counters', popover: { title: 'Counters', description: 'R drafted, I invalidated by the grammar, D eligible, A accepted; and the three ratios that keep them apart.' } },
  { element: '.charts', popover: { title: 'Charts', description: 'How the counters grow, the accepted-length histogram with its exact expected line, and acceptance by position.' } },
  { element: '.inspector', popover: { title: 'Every decision, and one step in slow motion', description: 'The inspector shows each test with its drawn u, the drafts as a tree, and “Play this step”.' } },
  { element: '.run-bar', popover: { title: 'Your turn', description: 'Press Step now: one verification step runs and pauses, and the inspector explains it.' } },
];

/** The tour showing now, if any: one at a time, however often it is asked for (React StrictMode runs effects twice). */
let current: ReturnType<typeof driver> | null = null;

function dismissed(): boolean {
  try {
    return localStorage.getItem(TOUR_DISMISSED_KEY) === '1';
  } catch {
    return false;
  }
}

function remember(): void {
  try {
    localStorage.setItem(TOUR_DISMISSED_KEY, '1');
  } catch {
    // Storage may be off (private mode): the tour then simply opens again next time.
  }
}

export function startTour(): void {
  if (current) return;
  const stops = STOPS.filter((stop) => typeof stop.element !== 'string' || document.querySelector(stop.element));
  // Every way out (Escape, the close button, the overlay, Done) passes here; driver.js's onDestroyed is
  // skipped when the tour closes before its first stop has settled.
  const tour = driver({
    showProgress: true,
    allowClose: true,
    steps: stops,
    popoverClass: 'speclab-tour',
    onDestroyStarted: () => {
      remember();
      tour.destroy();
      current = null;
    },
  });
  current = tour;
  tour.drive();
}

/** The first visit's tour, unless it was dismissed before, the page is automated, ?tour=off, or the page is a talk or an embed. */
export function maybeStartFirstTour(): void {
  const query = new URLSearchParams(location.search);
  if (navigator.webdriver || query.get('tour') === 'off' || query.has('talk') || pageEmbed() !== null || dismissed()) return;
  startTour();
}
