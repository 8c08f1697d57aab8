/**
 * How every CLI reports a usage or input error: one line, `<tool>: <message>`, and exit status 2, before
 * any model is loaded. Anything else is a bug and keeps its stack trace (exit 1).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Runs `body`; a UsageError becomes `<tool>: <message>` on stderr and exit status 2. */
export async function withUsageErrors(tool: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${tool}: ${error.message}`);
    return 2;
  }
}

/** Runs an argument parser (node:util parseArgs), turning its complaint about an unknown or malformed option into a UsageError. */
export function parsingArguments<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
