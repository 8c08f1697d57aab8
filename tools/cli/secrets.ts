/** API keys and other header values from a file, the environment or a URL: checked as one header-safe line, and never printed. */
import { UsageError } from './args';

/** What a printed secret becomes. */
export const SHOWN_SECRET = '***';

/** What an HTTP header value may hold: visible ASCII, spaces and tabs, on one line. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * The value, or a UsageError that does not show it: a second line or a control character made fetch echo the
 * value (a key) in its error, and a reachable server look unreachable.
 */
export function headerSafeValue(value: string, source: string): string {
  if (!HEADER_VALUE.test(value))
    throw new UsageError(
      `${source} (${SHOWN_SECRET}) is not one line of visible ASCII characters, so no HTTP header can carry it`,
    );
  return value;
}

/** An API key: one line of visible ASCII (no spaces), else a UsageError that does not show it. */
export function headerSafeKey(key: string, source: string): string {
  if (!/^[\x21-\x7e]+$/.test(key))
    throw new UsageError(
      `${source} holds a key (${SHOWN_SECRET}) that is not one line of visible ASCII characters, so no HTTP header can carry it`,
    );
  return key;
}
