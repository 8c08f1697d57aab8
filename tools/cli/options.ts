/** Command-line option parsing shared by the tools in tools/cli: numbers and lists checked against src/contract/limits.ts. */
import type { LimitedParam } from '../../src/contract/limits';
import { parseNumber } from '../../src/contract/validation';

/** A mistake in the command line: the tool prints it and exits with status 2, before loading any model. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function numberOption(name: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

/** A number within its parameter's range, read and checked by the app's own validation (src/contract/validation.ts). */
export function limitedOption(param: LimitedParam, name: string, text: string | undefined): number {
  const parsed = parseNumber(param, text ?? '');
  if ('error' in parsed) throw new UsageError(`--${name}: ${parsed.error}`);
  return parsed.value;
}

export function positiveInteger(name: string, text: string | undefined): number {
  const value = numberOption(name, text);
  if (!(Number.isInteger(value) && value >= 1)) throw new UsageError(`--${name} must be a positive integer, got ${text}`);
  return value;
}

/** Runs a tool's option parsing; a usage mistake prints "<tool>: <message>" and gives exit status 2. */
export function parseOrExit<T>(tool: string, parse: () => T): T | number {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof RangeError || error instanceof TypeError)) throw error;
    console.error(`${tool}: ${error.message}`);
    return 2;
  }
}

/** Runs a tool; a UsageError becomes `<tool>: <message>` on stderr and exit status 2. Anything else is a bug and keeps its stack. */
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
