/**
 * The one argument parser of every tool (tools/cli/commands.ts declares each command): node:util parseArgs
 * behind a declarative spec, so that every command has `--help` (usage, each option with its default, an
 * example) and answers a mistake with one line, `<tool>: <message>`, and exit status 2, before it loads
 * anything. Values are checked here by kind (integer, number, choice); what needs the app's rules (the
 * ranges of src/contract/limits.ts) is checked by the tool with `limitedOption`, still before any model loads.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LimitedParam } from '../../src/contract/limits';
import { parseNumber } from '../../src/contract/validation';
import { findPreset } from '../../src/contract/runParams';
import { terminalSafe } from './terminalSafe';
import type { SchemaPreset } from '../../src/contract/presets';

/** A mistake in the command line: the tool prints it and exits with status 2, before loading any model. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The longest delay Node's timers hold, 2^31 − 1 ms (about 24.8 days): a longer one fires after 1 ms, so a
 * `--timeout 3000000` would time out every request at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A `seconds` option's value in milliseconds (checked by the shared parser: 1 ms to MAX_TIMER_MS). */
export const secondsOption = (text: string): number => Math.round(Number(text) * 1000);

/** What a string option must hold: checked before anything loads. */
export type ValueKind =
  'text' | 'file' | 'number' | 'positive-number' | 'seconds' | 'integer' | 'count' | 'list' | readonly string[];

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly description: string;
  readonly default?: string | boolean;
  /** For string options: what the value must be (default 'text', anything). */
  readonly value?: ValueKind;
  /** The value's name in the usage line, e.g. N, FILE, URL. */
  readonly placeholder?: string;
  /** For 'integer' and 'count' options: the largest value accepted (CLI_LIMITS); the help says it. */
  readonly max?: number;
}

export interface CommandSpec {
  /** The npm script, e.g. `bench:verify`. */
  readonly name: string;
  /** The file npm runs (through tools/cli/runInVite.ts where `viaVite`). */
  readonly entry: string;
  readonly viaVite?: boolean;
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly positionals?: { readonly name: string; readonly description: string; readonly max: number };
  readonly examples: readonly string[];
  /**
   * The smallest arguments test/cli/scripts.smoke.test.ts runs it with ({tmp}: a temporary folder, {dist}: the
   * test run's production build); null where its smallest run is too slow for the suite (the test says why).
   */
  readonly smoke?: readonly string[] | null;
}

type Text<O extends OptionSpec> = O extends { value: readonly (infer C extends string)[] } ? C : string;
type ValueOf<O extends OptionSpec> = O['type'] extends 'boolean'
  ? boolean
  : O extends { default: string }
    ? Text<O>
    : Text<O> | undefined;
export type Values<S extends CommandSpec> = { -readonly [K in keyof S['options']]: ValueOf<S['options'][K]> };
export interface Parsed<S extends CommandSpec> {
  values: Values<S>;
  positionals: string[];
}

function placeholder(option: OptionSpec): string {
  if (option.placeholder) return option.placeholder;
  const kind = option.value;
  if (Array.isArray(kind)) return kind.join('|');
  return kind === 'file'
    ? 'FILE'
    : kind === 'list'
      ? 'a,b'
      : kind === 'seconds'
        ? 'S'
        : kind === 'number' || kind === 'positive-number' || kind === 'integer' || kind === 'count'
          ? 'N'
          : 'TEXT';
}

/** The widest flag, with its placeholder, that shares a line with its description in --help. */
const HELP_NAME_COLUMN = 40;
/** --help's text wraps at this many columns, so that it reads whole in a 100-column terminal. */
export const HELP_COLUMNS = 100;

/** `units` joined by spaces into lines of at most `columns` characters (a longer unit keeps a line of its own). */
function wrapUnits(units: readonly string[], columns: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const unit of units) {
    if (line !== '' && line.length + 1 + unit.length > columns) {
      lines.push(line);
      line = unit;
    } else line = line === '' ? unit : `${line} ${unit}`;
  }
  return [...lines, line];
}

export function helpText(spec: CommandSpec): string {
  const entries = Object.entries(spec.options);
  const positional = spec.positionals ? ` [${spec.positionals.name}]` : '';
  const rows = [
    ...entries.map(([name, option]): [string, string[]] => {
      const shown =
        option.default === undefined || option.default === false
          ? ''
          : ` (default ${option.default === true ? 'on' : option.default})`;
      const most = option.max === undefined ? '' : `, at most ${option.max}`;
      const words = option.description.split(' ');
      // The range and the default stay whole, on the line of the description's last word.
      words.push(`${words.pop() ?? ''}${most}${shown}`);
      if (option.type === 'boolean') return [`--${name}`, words];
      const flag = `--${name} ${placeholder(option)}`;
      // A flag listing more choices than the name column holds (`--drafter`) lists them in its text, where they wrap.
      if (flag.length <= HELP_NAME_COLUMN || !Array.isArray(option.value)) return [flag, words];
      const choices = option.value.map((choice, index, all) => `${choice}${index < all.length - 1 ? ',' : ':'}`);
      return [`--${name} ID`, ['one', 'of', ...choices, ...words]];
    }),
    ['--help, -h', ['print this help and exit']],
  ] as [string, string[]][];
  if (spec.positionals) rows.unshift([spec.positionals.name, spec.positionals.description.split(' ')]);
  const width = Math.max(...rows.map(([name]) => name.length));
  const indent = ' '.repeat(2 + width + 2);
  const row = ([name, words]: [string, string[]]) => {
    const [first, ...rest] = wrapUnits(words, HELP_COLUMNS - indent.length);
    return [`  ${name.padEnd(width)}  ${first}`, ...rest.map((line) => `${indent}${line}`)].join('\n');
  };
  return [
    `usage: npm run ${spec.name} --${positional} [options]`,
    '',
    ...wrapUnits(spec.summary.split(' '), HELP_COLUMNS),
    '',
    'options:',
    ...rows.map(row),
    '',
    'examples:',
    ...spec.examples.map((example) => `  ${example}`),
  ].join('\n');
}

function checkValue(name: string, kind: ValueKind, text: string, max = Number.MAX_SAFE_INTEGER): void {
  if (Array.isArray(kind)) {
    if (!kind.includes(text))
      throw new UsageError(`--${name} must be one of ${kind.join(', ')}, got ${JSON.stringify(text)}`);
    return;
  }
  if (kind === 'text') return;
  if (kind === 'file') {
    if (text.trim() === '') throw new UsageError(`--${name} needs a file name`);
    return;
  }
  if (kind === 'list') {
    if (text.split(',').some((item) => item.trim() === ''))
      throw new UsageError(`--${name} must be a comma-separated list, got ${JSON.stringify(text)}`);
    return;
  }
  const value = numberOption(name, text);
  if (kind === 'seconds' && !(value * 1000 >= 1 && value * 1000 <= MAX_TIMER_MS))
    throw new UsageError(
      `--${name} must be a number of seconds from 0.001 to ${MAX_TIMER_MS / 1000} (what Node's timers hold), got ${text}`,
    );
  if (kind === 'positive-number' && !(value > 0))
    throw new UsageError(`--${name} must be a number above 0, got ${text}`);
  if (kind === 'integer') positiveInteger(name, text, max);
  if (kind === 'count' && !(Number.isInteger(value) && value >= 0 && value <= max))
    throw new UsageError(
      `--${name} must be a whole number ≥ 0${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}, got ${text}`,
    );
}

/** A value that starts with a dash but is a number: -1, -0.5, -.5, -1e3. */
const NEGATIVE_NUMBER = /^-(?:\d|\.\d)/;

/**
 * `--temperature -1` as `--temperature=-1`: node's parseArgs takes a value starting with a dash for an option
 * ("argument is ambiguous"), so a negative number reaches the option's own check and its usual message.
 */
function joinNegativeValues(spec: CommandSpec, argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return [...joined, ...argv.slice(i)];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null;
    const next = argv[i + 1];
    if (
      name !== null &&
      Object.hasOwn(spec.options, name) &&
      spec.options[name]?.type === 'string' &&
      next !== undefined &&
      NEGATIVE_NUMBER.test(next)
    ) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/** Parses argv against the spec; 'help' when --help or -h was given. Throws UsageError on any mistake. */
export function parseCommand<S extends CommandSpec>(spec: S, argv: readonly string[]): Parsed<S> | 'help' {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, option] of Object.entries(spec.options)) options[name] = { type: option.type };
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(spec, argv),
      options,
      allowPositionals: spec.positionals !== undefined,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] as string;
    throw new UsageError(`${message.replace(/\. To specify a positional argument.*$/, '')}; see --help`);
  }
  if (parsed.values.help === true) return 'help';
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    const given = parsed.values[name] as string | boolean | undefined;
    if (typeof given === 'string') checkValue(name, option.value ?? 'text', given, option.max);
    values[name] = given ?? option.default ?? (option.type === 'boolean' ? false : undefined);
  }
  const max = spec.positionals?.max ?? 0;
  if (parsed.positionals.length > max)
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[max])}; see --help`);
  return { values: values as Values<S>, positionals: parsed.positionals };
}

/** Prints a usage mistake as one line and gives the exit status (2); anything else is a bug and keeps its stack. */
function refused(spec: CommandSpec, error: unknown): number {
  if (!(error instanceof UsageError)) throw error;
  console.error(`${spec.name}: ${terminalSafe(error.message, { maxChars: 2000 })}`);
  return 2;
}

/**
 * Runs a command: --help prints the help (exit 0); a mistake in the options, or a UsageError the body throws
 * (a value out of the app's range, an unreadable file), prints `<tool>: <message>` (exit 2).
 */
export async function runCommand<S extends CommandSpec>(
  spec: S,
  argv: readonly string[],
  body: (parsed: Parsed<S>) => Promise<number> | number,
): Promise<number> {
  let parsed: Parsed<S> | 'help';
  try {
    parsed = parseCommand(spec, argv);
  } catch (error) {
    return refused(spec, error);
  }
  if (parsed === 'help') {
    console.log(helpText(spec));
    return 0;
  }
  try {
    return await body(parsed);
  } catch (error) {
    return refused(spec, error);
  }
}

/** For scripts that run at the top level: parses, or prints the help or the mistake and exits (0 or 2). */
export function parseOrExit<S extends CommandSpec>(spec: S, argv: readonly string[]): Parsed<S> {
  let parsed: Parsed<S> | 'help';
  try {
    parsed = parseCommand(spec, argv);
  } catch (error) {
    process.exit(refused(spec, error));
  }
  if (parsed === 'help') {
    console.log(helpText(spec));
    process.exit(0);
  }
  return parsed;
}

/** Runs more checks on parsed values at the top level; a UsageError prints one line and exits 2. */
export function checkOrExit<T>(spec: CommandSpec, check: () => T): T {
  try {
    return check();
  } catch (error) {
    process.exit(refused(spec, error));
  }
}

export function numberOption(name: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`--${name} must be a number, got ${JSON.stringify(text)}`);
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
  if (!(Number.isInteger(value) && value >= 1 && value <= max))
    throw new UsageError(
      `--${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}, got ${text}`,
    );
  return value;
}

/** A K×L grid (`--grid 1x4,3x4`), each K and L within the app's ranges. */
export function gridOption(text: string): { K: number; L: number }[] {
  return text.split(',').map((entry) => {
    const match = /^\s*(\d+)x(\d+)\s*$/.exec(entry);
    if (!match) throw new UsageError(`--grid: ${JSON.stringify(entry)} is not KxL, such as 3x4`);
    return { K: limitedOption('K', 'grid', match[1]), L: limitedOption('L', 'grid', match[2]) };
  });
}

/** A production build of the app to serve (`--dist`): a folder holding index.html, as an absolute path. */
export function distOption(text: string): string {
  const dir = resolve(text);
  if (!existsSync(join(dir, 'index.html')))
    throw new UsageError(`--dist: ${JSON.stringify(text)} holds no index.html (build it with npm run build)`);
  return dir;
}

/** A schema preset by id; an unknown one is a usage mistake that names the presets. */
export function presetOption(id: string): SchemaPreset {
  try {
    return findPreset(id);
  } catch (error) {
    throw new UsageError(`--preset: ${(error as Error).message}`);
  }
}

/** Runs a check from the app's own code that throws RangeError on a bad value (src/contract), as a usage mistake. */
export function rangeChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}
