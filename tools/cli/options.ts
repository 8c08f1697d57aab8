/** Command-line option parsing shared by the tools in tools/cli: numbers and lists checked against src/contract/limits.ts. */
import { closeSync, openSync, readSync } from 'node:fs';
import { CLI_LIMITS, type LimitedParam } from '../../src/contract/limits';
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

export function positiveInteger(name: string, text: string | undefined, max = Number.MAX_SAFE_INTEGER): number {
  const value = numberOption(name, text);
  if (!(Number.isInteger(value) && value >= 1 && value <= max)) throw new UsageError(`--${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}, got ${text}`);
  return value;
}

/**
 * Untrusted text (a scrape line, a schema, model output) made safe to print: control characters and escape
 * sequences are shown as \xNN / \u{NNNN} rather than sent to the terminal (newlines and tabs too unless
 * `keepLines`), and each line is cut at `maxChars`.
 */
export function terminalSafe(text: string, { maxChars = CLI_LIMITS.echoChars, keepLines = false }: { maxChars?: number; keepLines?: boolean } = {}): string {
  const escaped = (line: string) =>
    // eslint-disable-next-line no-control-regex
    line.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (char) => {
      if (keepLines && char === '\t') return char;
      const code = char.codePointAt(0) ?? 0;
      return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
    });
  const cut = (line: string) => (line.length > maxChars ? `${escaped(line.slice(0, maxChars))}… (${line.length - maxChars} more characters)` : escaped(line));
  return keepLines ? text.split('\n').map(cut).join('\n') : cut(text.replaceAll('\n', '\\n'));
}

/**
 * Reads an input file given on the command line, at most CLI_LIMITS.fileBytes: a larger file, or an endless
 * one (/dev/zero, a pipe that never closes its size), is refused once the limit is passed, before it is read whole.
 */
export function readInputFile(path: string, option: string, maxBytes: number = CLI_LIMITS.fileBytes): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new UsageError(`${option} ${terminalSafe(path)}: ${(error as Error).message}`);
  }
  try {
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, 1 << 20));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        throw new UsageError(`${option} ${terminalSafe(path)}: ${(error as Error).message}`);
      }
      if (read === 0) break;
      total += read;
      if (total > maxBytes) throw new UsageError(`${option} ${terminalSafe(path)} is larger than ${maxBytes / 2 ** 20} MiB, the most an input file may be`);
      chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Runs a tool's option parsing; a usage mistake prints "<tool>: <message>" and gives exit status 2. */
export function parseOrExit<T>(tool: string, parse: () => T): T | number {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof RangeError || error instanceof TypeError)) throw error;
    console.error(`${tool}: ${terminalSafe(error.message, { maxChars: 2000 })}`);
    return 2;
  }
}

/** Runs a tool; a UsageError becomes `<tool>: <message>` on stderr and exit status 2. Anything else is a bug and keeps its stack. */
export async function withUsageErrors(tool: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${tool}: ${terminalSafe(error.message, { maxChars: 2000 })}`);
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
