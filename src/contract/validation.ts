/**
 * The one validation of a run's parameters, for the form, share links, the CLI and the worker. Ranges come
 * from limits.ts. Every check returns messages by field and never throws: a caller shows them next to the
 * field (form, link), prints them (CLI) or sends them back (worker).
 */
import { DRAFTER_IDS, DRAFT_SOURCES, isDrafterId, type DraftSource, type DrafterId } from '../core/draftLaw';
import { LIMITS, type LimitedParam, type NumericLimit } from './limits';
import { DECODE_METHODS, type DecodeMethod, type DraftingMode, type RunParams } from './runParams';

/** Every field a message can be attached to. */
export type RunField = LimitedParam | 'method' | 'drafting' | 'drafter' | 'prompt' | 'schemaText' | 'trigger';
export type FieldErrors = Partial<Record<RunField, string>>;

export const DRAFTING_MODES: readonly DraftingMode[] = ['validate', 'constrained'];

/** "from 1 to 8", "above 0 and at most 1": the allowed range in words. */
export function describeRange(limit: NumericLimit): string {
  const low = limit.minExclusive ? `above ${limit.min}` : `from ${limit.min}`;
  const high = limit.minExclusive ? `and at most ${limit.max}` : `to ${limit.max}`;
  return `${limit.integer ? 'an integer' : 'a number'} ${low} ${high}`;
}

/** The message for a value outside its range (or not a number), or null when it is allowed. */
export function checkNumber(name: LimitedParam, value: unknown): string | null {
  const limit: NumericLimit = LIMITS[name];
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  const problem = `${limit.label} must be ${describeRange(limit)}; got ${shown}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) return problem;
  if (limit.integer && !Number.isInteger(value)) return problem;
  if (limit.minExclusive ? value <= limit.min : value < limit.min) return problem;
  return value > limit.max ? problem : null;
}

/** A decimal number, with an optional sign, fraction and exponent ("3", "-0.5", ".5", "1e9"). */
const DECIMAL = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;

/**
 * Reads a number as a person typed it (form field, link, command line): the whole text must be a
 * number; "", "1e", "3 drafts" are refused rather than half-read.
 */
export function parseNumber(name: LimitedParam, text: string): { value: number } | { error: string } {
  const trimmed = text.trim();
  // Decimal only: Number() would also read "0x3", "0b11" and "0o3" as 3.
  const value = DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
  const error = checkNumber(name, Number.isNaN(value) ? text : value);
  return error === null ? { value } : { error };
}

/** A run's parameters from untrusted parts (a link, the command line, a worker message), checked field by field. */
export type RunParamsInput = { [K in keyof RunParams]?: unknown };

export type Validated = { ok: true; params: RunParams } | { ok: false; errors: FieldErrors };

/** Checks every field; all problems are reported at once, each next to its field. */
export function validateRunParams(input: RunParamsInput): Validated {
  const errors: FieldErrors = {};
  const numbers = {} as Record<LimitedParam, number>;
  const numeric: [LimitedParam, unknown, boolean][] = [
    ['K', input.K, true],
    ['L', input.L, true],
    ['temperature', input.temperature, true],
    ['topP', input.topP, false],
    ['topK', input.topK, false],
    ['seed', input.seed, true],
    ['maxTokens', input.maxTokens, true],
  ];
  for (const [name, value, required] of numeric) {
    if (value === undefined && !required) continue;
    const error = checkNumber(name, value);
    if (error === null) numbers[name] = value as number;
    else errors[name] = error;
  }
  if (!DECODE_METHODS.includes(input.method as DecodeMethod))
    errors.method = `unknown method ${JSON.stringify(input.method)}; use one of ${DECODE_METHODS.join(', ')}`;
  if (!DRAFTING_MODES.includes(input.drafting as DraftingMode))
    errors.drafting = `drafting must be ${DRAFTING_MODES.join(' or ')}; got ${JSON.stringify(input.drafting)}`;
  if (input.drafter !== undefined && !isDrafterId(input.drafter))
    errors.drafter = `drafter must be one of ${DRAFTER_IDS.join(', ')}; got ${JSON.stringify(input.drafter)}`;
  if (typeof input.prompt !== 'string' || input.prompt.trim().length === 0) errors.prompt = 'the prompt is empty';
  if (input.schemaText !== null && typeof input.schemaText !== 'string')
    errors.schemaText = 'the schema must be JSON-schema text, or none for free text';
  if (input.trigger !== undefined && (typeof input.trigger !== 'string' || input.trigger === ''))
    errors.trigger = 'the trigger must be non-empty text';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const params: RunParams = {
    method: input.method as DecodeMethod,
    K: numbers.K,
    L: numbers.L,
    temperature: numbers.temperature,
    seed: numbers.seed,
    maxTokens: numbers.maxTokens,
    drafting: input.drafting as DraftingMode,
    prompt: input.prompt as string,
    schemaText: input.schemaText as string | null,
    ...(input.topP === undefined ? {} : { topP: numbers.topP }),
    ...(input.topK === undefined ? {} : { topK: numbers.topK }),
    ...(input.trigger === undefined ? {} : { trigger: input.trigger as string }),
    ...(input.drafter === undefined ? {} : { drafter: input.drafter as DrafterId }),
  };
  return { ok: true, params };
}

/** The absolute URL of a model directory, or a message saying why the text is not one. */
export function modelDirectoryUrl(text: string): { url: URL } | { error: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return {
      error: `${JSON.stringify(text)} is not a URL: give the full address of a model directory, such as https://huggingface.co/<owner>/<model>/resolve/main/`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    // The address is not repeated: it holds a password.
    return {
      error: `the address of ${url.host} holds a user name or password (user:password@); give the address without them`,
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { error: `${url.href} is not a web address (http:// or https://)` };
  return { url };
}

/** All of a run's problems on one line, field by field, for a log or the command line. */
export function errorSummary(errors: FieldErrors): string {
  return Object.values(errors).join('; ');
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isCountList = (value: unknown, length?: number): boolean =>
  Array.isArray(value) && (length === undefined || value.length === length) && value.every(isCount);
const VERDICT_KINDS = ['valid', 'invalid', 'truncated', 'dead-end'];
/** Draft sources added after reports were first stored: a stored report may lack them (it drafted none). */
export const LATER_SOURCES: readonly DraftSource[] = ['head', 'copy'];

/**
 * What is wrong with a run report read back from storage (the history in IndexedDB), or null when every
 * field the app reads is there with the right type: its parameters (checked like a link's), tokens, text,
 * verdict, counters and metrics. A stored record is untrusted: another version, another tab or a person
 * with the developer tools may have written it.
 */
export function checkRunReport(value: unknown): string | null {
  if (!isRecord(value)) return 'the report is missing';
  if (!isRecord(value.params)) return 'the run parameters are missing';
  const params = validateRunParams(value.params as RunParamsInput);
  if (!params.ok) return `the run parameters are invalid (${errorSummary(params.errors)})`;
  if (!isCountList(value.tokens)) return 'the tokens are not a list of token ids';
  if (typeof value.text !== 'string') return 'the output text is missing';
  const verdict = value.verdict;
  if (verdict !== null && !(isRecord(verdict) && VERDICT_KINDS.includes(verdict.kind as string)))
    return 'the verdict is not one of valid, invalid, truncated, dead-end';
  const counters = value.counters;
  if (!isRecord(counters)) return 'the counters are missing';
  const L = counters.L;
  if (!(isCount(L) && L >= 1 && L <= LIMITS.L.max)) return 'the counters have no draft length L';
  for (const name of ['steps', 'raw', 'invalidated', 'accepted', 'distinctRaw', 'distinctEligible']) {
    if (!isCount(counters[name])) return `the counter ${name} is not a count`;
  }
  if (!isCountList(counters.histogram, L + 1) || !isCountList(counters.acceptedAtLeast, L))
    return 'the accepted-length histogram does not match L';
  // The comparison reads the counts per draft source (a record without them passed here once and threw in the panel).
  const bySource = counters.bySource;
  // 'head' and 'copy' may be absent: a report stored before those drafters existed (the history reads them as zeros).
  const sourceCounted = (source: string) =>
    isRecord(bySource) &&
    isRecord(bySource[source]) &&
    ['drafted', 'invalidated', 'accepted'].every((name) =>
      isCount((bySource[source] as Record<string, unknown>)[name]),
    );
  if (!(
    isRecord(bySource) &&
    DRAFT_SOURCES.every(
      (source) => sourceCounted(source) || (LATER_SOURCES.includes(source) && bySource[source] === undefined),
    )
  )) {
    return 'the counters by draft source are missing';
  }
  if (typeof value.tokensPerSecond !== 'number' || !Number.isFinite(value.tokensPerSecond))
    return 'tokens/s is not a number';
  const speclab = isRecord(value.metrics) ? value.metrics.speclab : undefined;
  if (!isRecord(speclab)) return 'the exported metrics are missing';
  const mean = speclab.mean_acceptance_length;
  if (!(mean === null || (typeof mean === 'number' && Number.isFinite(mean))))
    return 'the mean acceptance length is not a number';
  return null;
}

/** Says why a compile was stopped: the schema's size, or the nested repetition in a pattern that made it slow. */
export function compileTimeoutMessage(budgetMs: number, properties: number, pattern: string | null): string {
  const seconds = budgetMs / 1000;
  const size = `${properties.toLocaleString('en-US')} ${properties === 1 ? 'property' : 'properties'}`;
  return pattern === null
    ? `this schema has ${size}; compiling it took more than ${seconds} s and was stopped (simplify the schema: fewer properties, smaller enums)`
    : `compiling this schema took more than ${seconds} s and was stopped: its pattern ${JSON.stringify(pattern.slice(0, 200))} repeats a group that itself repeats, which can take exponential time (rewrite the pattern without the nested repetition)`;
}
