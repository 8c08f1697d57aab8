/** API keys from a file or the environment: checked as one header-safe line, and never printed. */
import { UsageError } from './args';

/** What a printed key becomes. */
export const SHOWN_SECRET = '***';

/**
 * The key, or a UsageError that does not show it: a key must be one line of visible ASCII, which is what an
 * HTTP header value can carry (a second line or a control character made fetch echo the key in its error, and
 * a reachable server look unreachable).
 */
export function headerSafeKey(key: string, source: string): string {
  if (!/^[\x21-\x7e]+$/.test(key))
    throw new UsageError(
      `${source} holds a key (${SHOWN_SECRET}) that is not one line of visible ASCII characters, so no HTTP header can carry it`,
    );
  return key;
}
