/**
 * How the engine's worker words a failure for the page, and the event a trapped grammar engine adds. After a
 * wasm trap this realm's xgrammar is corrupt: every later call fails, a new GrammarEngine's included, so the
 * page replaces the worker, whose fresh xgrammar works (test/engine/grammarTrap.test.ts).
 */
import type { FromWorker } from '../contract/protocol';
import { isGrammarTrap } from '../grammar/engine';

/** What a trapped grammar engine's error adds; the page restarts the worker right after. */
const TRAP_NOTE = '. The grammar engine is restarted and the models reload; then the next run works.';

export const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)) + (isGrammarTrap(error) ? TRAP_NOTE : '');

/** The event that follows a job failed by `error`: 'engine-trapped' after a wasm trap (the page replaces the worker), else none. */
export function trapEvent(error: unknown): FromWorker | null {
  return isGrammarTrap(error) ? { type: 'engine-trapped' } : null;
}
