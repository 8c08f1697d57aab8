/** Command-line option parsing shared by the tools in tools/cli: numbers and lists checked against src/contract/limits.ts. */
import { LIMITS, type LimitedParam } from '../../src/contract/limits';

/** A mistake in the command line: the tool prints it and exits with status 2, before loading any model. */
export class UsageError extends Error {}

export function numberOption(name: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

/** A number within its parameter's range in LIMITS. */
export function limitedOption(param: LimitedParam, name: string, text: string | undefined): number {
  const value = numberOption(name, text);
  const limit = LIMITS[param];
  const low = 'minExclusive' in limit && limit.minExclusive ? value <= limit.min : value < limit.min;
  if ((limit.integer && !Number.isInteger(value)) || low || value > limit.max) {
    throw new UsageError(`--${name} must be ${limit.integer ? 'an integer' : 'a number'} in ${limit.min}..${limit.max} (${limit.label}), got ${text}`);
  }
  return value;
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
