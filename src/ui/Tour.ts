/**
 * A short guided tour (driver.js) of the first screen. It opens by itself on a first visit only: once
 * dismissed or finished it is remembered in localStorage, and "Take the tour" reopens it. It never opens by
 * itself under automation (navigator.webdriver, as in the browser tests) or with ?tour=off, so that it
 * never covers what a test or a scripted demo is about to click.
 */
import { driver } from 'driver.js';
import 'driver.js/dist/driver.css';
import { pageEmbed } from './embed';
import { TOUR_STOPS as STOPS } from './tourStops';

export const TOUR_DISMISSED_KEY = 'speclab.tour.dismissed';

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
  if (navigator.webdriver || query.get('tour') === 'off' || query.has('talk') || pageEmbed() !== null || dismissed())
    return;
  startTour();
}
