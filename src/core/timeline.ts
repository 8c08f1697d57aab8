/**
 * Start-up phases as User Timing entries named 'speclab:<phase>', in the page and in the engine's worker;
 * `npm run bench:load` reads them from both (tools/cli/benchLoad.ts). Node has the same API, so the CLI and
 * the benches record them too, at no cost worth counting.
 */
export const TIMELINE_PREFIX = 'speclab:';

/** Runs `work` and records it as a measure named `phase`, also when it throws. */
export async function timed<T>(phase: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    performance.measure(TIMELINE_PREFIX + phase, { start, end: performance.now() });
  }
}

/** Records the synchronous `work` as a measure named `phase`. */
export function timedSync<T>(phase: string, work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    performance.measure(TIMELINE_PREFIX + phase, { start, end: performance.now() });
  }
}

/** Records an instant named `phase`. */
export function markPhase(phase: string): void {
  performance.mark(TIMELINE_PREFIX + phase);
}

/** Records an instant named `phase` unless this page or worker has recorded it already (its first time only). */
export function markPhaseOnce(phase: string): void {
  if (performance.getEntriesByName(TIMELINE_PREFIX + phase, 'mark').length === 0) markPhase(phase);
}
