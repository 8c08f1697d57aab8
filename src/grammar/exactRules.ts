/**
 * Exact grammar rules for what xgrammar's JSON-schema grammars get wrong, measured on 0.1.27:
 * - numeric bounds: its range grammar for `maximum: 120` also admits 121–129, for `minimum: -1` a lone "-",
 *   and for a decimal bound it writes a rule that admits any character between digits;
 * - enums of numbers: its matcher lets "-21" and "11" through an enum of -20..10 (literal alternatives where
 *   one is a prefix of another, such as "1" | "10", go wrong).
 * Such a sub-schema is replaced, before xgrammar sees it, by a placeholder string constant, and the
 * placeholder's literal in xgrammar's EBNF by a rule written here: a digit-level range grammar (the
 * regex-range construction, over a number's digits with its fraction padded to k places), or a trie of the
 * enum's JSON texts (no literal is then a prefix of another alternative). The grammar is compiled from that
 * EBNF, so the matcher, and every mask it hands out (target, drafts, bonus row, WGSL path), reads the exact rule.
 *
 * Property names go the same way: xgrammar writes a name into its grammar text unescaped, so a quote, a
 * backslash or a control character in it would end the literal early (and be read as grammar). Such a name is
 * renamed to a placeholder (in `properties`, `required` and local `$ref`s) and the placeholder key's literal
 * replaced by the JSON-escaped name, so the output spells the name exactly as JSON writes it (`"a\"b"`).
 *
 * Bounded numbers are written without an exponent and with at most k = max(6, the bounds' own decimals, ≤ 20)
 * fraction digits: a subset of the valid outputs, each of which ajv accepts (the decimal value lies in the
 * range, and rounding to a double is monotonic; an exclusive bound is replaced by the next double inward).
 */
import { SchemaError } from './schemaError';
import { hasOwnKey } from '../contract/ownKeys';
import { RE2JS } from 're2js';

export interface GrammarPlan {
  /** The schema as xgrammar is given it: rewritten sub-schemas are placeholder constants. */
  schema: unknown;
  /** Each placeholder's literal as xgrammar's EBNF writes it, and the rule that replaces it. */
  placeholders: { literal: string; rule: string }[];
  /** The EBNF lines defining those rules. */
  lines: string[];
  /** Each renamed property name's key literal as xgrammar's EBNF writes it, and the literal of the name JSON-escaped. */
  keys: { literal: string; escaped: string }[];
  /** What every key placeholder starts with: none may be left in the grammar once the keys are restored. */
  keyPrefix: string;
}

const NUMERIC_BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
const MAX_FRACTION_DIGITS = 20;

/** A finite double as an exact decimal: digits × 10^exponent (the shortest text that reads back as it). */
function decimalOf(value: number): { digits: bigint; exponent: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(value));
  if (!match) throw new SchemaError(`the bound ${value} is not a finite number`);
  const fraction = match[3] ?? '';
  const digits = BigInt(`${match[1]}${match[2]}${fraction}`);
  return { digits, exponent: Number(match[4] ?? 0) - fraction.length };
}

const fractionDigits = (value: number) => Math.max(0, -decimalOf(value).exponent);

/** value × 10^k, rounded up or down to an integer. */
function scaled(value: number, k: number, round: 'up' | 'down'): bigint {
  const { digits, exponent } = decimalOf(value);
  const shift = exponent + k;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  const quotient = digits / divisor;
  if (digits % divisor === 0n) return quotient;
  if (round === 'up') return digits > 0n ? quotient + 1n : quotient;
  return digits < 0n ? quotient - 1n : quotient;
}

/** The next double above `value` (toward +∞). */
function nextUp(value: number): number {
  if (value === 0) return Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([value]).buffer);
  bits[0] = (bits[0] as bigint) + (value > 0 ? 1n : -1n);
  return new Float64Array(bits.buffer)[0] as number;
}

const nextDown = (value: number) => -nextUp(-value);

/** Writes rules under a unique prefix. */
class RuleWriter {
  readonly lines: string[] = [];
  private count = 0;
  constructor(private readonly prefix: string) {}
  add(body: string): string {
    const name = `${this.prefix}_${this.count++}`;
    this.lines.push(`${name} ::= ${body}`);
    return name;
  }
}

const digitClass = (from: number, to: number) => (from === to ? `"${from}"` : `[${from}-${to}]`);
const intLength = (n: bigint, k: number) => Math.max(1, String(n / 10n ** BigInt(k)).length);

/**
 * Non-negative numbers whose value × 10^k lies in [low, high] (high null: no upper bound), written with an
 * integer part without leading zeros and an optional fraction of 1..k digits.
 */
function nonNegativeRange(rules: RuleWriter, low: bigint, high: bigint | null, k: number): string[] {
  const freeFraction = k > 0 ? ` ("." [0-9]{1,${k}})?` : '';
  const alternatives: string[] = [];
  const lowLength = intLength(low, k);
  const highLength = high === null ? lowLength : intLength(high, k);
  for (let length = lowLength; length <= highLength; length++) {
    const classLow = length === 1 ? 0n : 10n ** BigInt(length - 1 + k);
    const classHigh = 10n ** BigInt(length + k) - 1n;
    const from = low > classLow ? low : classLow;
    const to = high === null || high > classHigh ? classHigh : high;
    if (from > to) continue;
    alternatives.push(
      fixedLength(rules, length, k, from.toString().padStart(length + k, '0'), to.toString().padStart(length + k, '0')),
    );
  }
  if (high === null) alternatives.push(`[1-9] [0-9]{${lowLength}} [0-9]*${freeFraction}`);
  return alternatives;
}

/** Numbers with an integer part of `length` digits whose digits (fraction padded to k) lie in [low, high], compared digit by digit. */
function fixedLength(rules: RuleWriter, length: number, k: number, low: string, high: string): string {
  const total = length + k;
  const free = (position: number): string => {
    const parts: string[] = [];
    if (position < length) parts.push(`[0-9]{${length - position}}`);
    if (position <= length) {
      if (k > 0) parts.push(`("." [0-9]{1,${k}})?`);
    } else if (position < total) parts.push(`[0-9]{0,${total - position}}`);
    return parts.length ? parts.join(' ') : '""';
  };
  const memo = new Map<string, string>();
  const state = (position: number, tightLow: boolean, tightHigh: boolean): string => {
    if (!tightLow && !tightHigh) return free(position);
    const key = `${position}${tightLow}${tightHigh}`;
    const known = memo.get(key);
    if (known) return known;
    const alternatives: string[] = [];
    if (position >= length && (!tightLow || /^0*$/.test(low.slice(position)))) alternatives.push('""');
    if (position < total) {
      const dot = position === length ? '"." ' : '';
      const lo = tightLow ? Number(low[position]) : 0;
      const hi = tightHigh ? Number(high[position]) : 9;
      if (tightLow && tightHigh && lo === hi) alternatives.push(`${dot}"${lo}" ${state(position + 1, true, true)}`);
      else {
        let first = lo;
        let last = hi;
        if (tightLow) alternatives.push(`${dot}"${first++}" ${state(position + 1, true, false)}`);
        if (tightHigh) alternatives.push(`${dot}"${last--}" ${state(position + 1, false, true)}`);
        if (first <= last) alternatives.push(`${dot}${digitClass(first, last)} ${free(position + 1)}`);
      }
    }
    const name = rules.add(alternatives.join(' | '));
    memo.set(key, name);
    return name;
  };
  return state(0, true, true);
}

/** The bounds of a numeric schema scaled by 10^k, exclusive ones moved to the next double inward; null where unbounded. */
function scaledBounds(record: Record<string, unknown>, k: number): { low: bigint | null; high: bigint | null } {
  const lows: bigint[] = [];
  const highs: bigint[] = [];
  if (typeof record.minimum === 'number') lows.push(scaled(record.minimum, k, 'up'));
  if (typeof record.exclusiveMinimum === 'number')
    lows.push(scaled(nextUp(record.exclusiveMinimum), k, 'up'), scaled(record.exclusiveMinimum, k, 'down') + 1n);
  if (typeof record.maximum === 'number') highs.push(scaled(record.maximum, k, 'down'));
  if (typeof record.exclusiveMaximum === 'number')
    highs.push(scaled(nextDown(record.exclusiveMaximum), k, 'down'), scaled(record.exclusiveMaximum, k, 'up') - 1n);
  const low = lows.length ? lows.reduce((a, b) => (a > b ? a : b)) : null;
  const high = highs.length ? highs.reduce((a, b) => (a < b ? a : b)) : null;
  return { low, high };
}

/** The EBNF for a bounded integer (k = 0) or number: a negative branch and a non-negative one, "-0" never. */
function rangeRule(rules: RuleWriter, record: Record<string, unknown>, path: string): string {
  const isInteger = record.type === 'integer';
  const written = NUMERIC_BOUNDS.map((key) => record[key]).filter(
    (value): value is number => typeof value === 'number',
  );
  const k = isInteger ? 0 : Math.min(MAX_FRACTION_DIGITS, Math.max(6, ...written.map(fractionDigits)));
  const { low, high } = scaledBounds(record, k);
  if (low !== null && high !== null && low > high) {
    throw new SchemaError(
      `${path}: no ${isInteger ? 'integer' : `number with at most ${k} decimals`} lies within its bounds`,
    );
  }
  const alternatives: string[] = [];
  if (low === null || low < 0n) {
    const from = high === null || high >= 0n ? 1n : -high;
    const to = low === null ? null : -low;
    if (to === null || to >= from) alternatives.push(`"-" (${nonNegativeRange(rules, from, to, k).join(' | ')})`);
  }
  if (high === null || high >= 0n)
    alternatives.push(...nonNegativeRange(rules, low === null || low < 0n ? 0n : low, high, k));
  return rules.add(alternatives.join(' | '));
}

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** JSON Schema's `\\uXXXX` as RE2 writes it (`\\x{XXXX}`); an escaped backslash before it is left alone. */
const re2Syntax = (pattern: string) => pattern.replace(/(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})/g, '$1\\x{$2}');

/**
 * Whether `value` matches a schema's `pattern` (anywhere in it, as JSON Schema reads a pattern), by RE2: in
 * time linear in the value, never by backtracking, so that `^(a+)+$` against "aaa…a!" answers at once in the
 * CLIs and the worker alike. A pattern RE2 cannot read (a lookahead, a backreference) is named in a SchemaError.
 */
export function patternMatches(pattern: string, value: string): boolean {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(re2Syntax(pattern));
  } catch (error) {
    throw new SchemaError(
      `the pattern ${JSON.stringify(pattern.slice(0, 200))} cannot be matched in linear time (${(error as Error).message}); write it without lookarounds or backreferences`,
    );
  }
  return compiled.test(value);
}

/** Whether an enum value can pass the rest of its sub-schema (type, bounds, lengths in code points, pattern, const). */
function admits(record: Record<string, unknown>, value: Scalar): boolean {
  const types =
    record.type === undefined ? null : Array.isArray(record.type) ? (record.type as unknown[]) : [record.type];
  const typeOf = value === null ? 'null' : typeof value;
  if (
    types &&
    !types.some(
      (type) =>
        type === typeOf ||
        (type === 'integer' && Number.isInteger(value)) ||
        (type === 'number' && typeOf === 'number'),
    )
  )
    return false;
  if ('const' in record && record.const !== value) return false;
  if (typeof value === 'number') {
    if (typeof record.minimum === 'number' && value < record.minimum) return false;
    if (typeof record.maximum === 'number' && value > record.maximum) return false;
    if (typeof record.exclusiveMinimum === 'number' && value <= record.exclusiveMinimum) return false;
    if (typeof record.exclusiveMaximum === 'number' && value >= record.exclusiveMaximum) return false;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof record.minLength === 'number' && length < record.minLength) return false;
    if (typeof record.maxLength === 'number' && length > record.maxLength) return false;
    if (typeof record.pattern === 'string' && !patternMatches(record.pattern, value)) return false;
  }
  return true;
}

const ebnfLiteral = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

interface Trie {
  end: boolean;
  next: Map<string, Trie>;
}

/** The enum's JSON texts as a trie, so that no alternative's literal is a prefix of another's. */
function enumRule(rules: RuleWriter, values: readonly Scalar[]): string {
  const root: Trie = { end: false, next: new Map() };
  for (const value of values) {
    let node = root;
    for (const char of JSON.stringify(value)) {
      let child = node.next.get(char);
      if (!child) node.next.set(char, (child = { end: false, next: new Map() }));
      node = child;
    }
    node.end = true;
  }
  const write = (node: Trie): string => {
    const alternatives = node.end ? ['""'] : [];
    for (const [char, start] of node.next) {
      let text = char;
      let child = start;
      while (!child.end && child.next.size === 1) {
        const [[nextChar, grandchild]] = [...child.next] as [[string, Trie]];
        text += nextChar;
        child = grandchild;
      }
      alternatives.push(child.next.size === 0 ? ebnfLiteral(text) : `${ebnfLiteral(text)} (${write(child)})`);
    }
    return alternatives.join(' | ');
  };
  return rules.add(write(root));
}

const isBoundedNumber = (record: Record<string, unknown>) =>
  (record.type === 'integer' || record.type === 'number') &&
  NUMERIC_BOUNDS.some((key) => typeof record[key] === 'number') &&
  !('const' in record);

/** Keywords beside which a sub-schema is not rewritten (xgrammar combines them; the bounds stay listed as not enforced). */
const COMBINING = ['anyOf', 'oneOf', 'allOf', '$ref', 'not', 'if'];

/** Whether the sub-schema is rewritten into an exact rule (the other bounded ones lose their bounds and are listed as not enforced). */
export function exactKind(record: Record<string, unknown>): 'enum' | 'range' | null {
  if (COMBINING.some((key) => hasOwnKey(record, key))) return null;
  if (Array.isArray(record.enum) && record.enum.every(isScalar)) return 'enum';
  if (isBoundedNumber(record) && !('enum' in record)) return 'range';
  return null;
}

/** Bounds xgrammar would enforce wrongly and no exact rule replaces: dropped, so the output is at least well-formed. */
export const hasDroppedBounds = (record: Record<string, unknown>) =>
  exactKind(record) === null &&
  !('enum' in record) &&
  !('const' in record) &&
  NUMERIC_BOUNDS.some((key) => hasOwnKey(record, key));

/** Names that would break xgrammar's grammar text: a quote, a backslash or a control character (DEL too). */
// eslint-disable-next-line no-control-regex
const UNSAFE_NAME = /["\\\u0000-\u001f\u007f]/u;

/** Keywords whose value maps names to sub-schemas, and those whose value lists sub-schemas: how a JSON pointer alternates. */
const NAMED_SUBSCHEMAS = new Set(['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas']);
const LISTED_SUBSCHEMAS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);

/** A local $ref with every renamed property name along its pointer renamed too, so xgrammar still finds its target. */
function renamedRef(ref: string, rename: (name: string) => string): string {
  if (!ref.startsWith('#/')) return ref;
  // The part before when it is a keyword; null when it is a name or an index (the next part is then a keyword).
  let previous: string | null = null;
  const parts = ref
    .slice(2)
    .split('/')
    .map((part) => {
      const keyword = previous;
      previous = keyword !== null && (NAMED_SUBSCHEMAS.has(keyword) || LISTED_SUBSCHEMAS.has(keyword)) ? null : part;
      if (keyword !== 'properties') return part;
      let name = part;
      try {
        name = decodeURIComponent(part);
      } catch {
        // Not percent-encoded: the part as written.
      }
      name = name.replaceAll('~1', '/').replaceAll('~0', '~');
      const renamed = rename(name);
      return renamed === name ? part : renamed;
    });
  return `#/${parts.join('/')}`;
}

/** The schema as xgrammar is given it, and the exact rules for its placeholders. The input is not changed. */
export function planGrammar(schema: unknown): GrammarPlan {
  const text = JSON.stringify(schema) ?? '';
  let prefix = 'speclab';
  for (let i = 0; text.includes(prefix); i++) prefix = `speclab${i}x`;
  const writer = new RuleWriter(prefix);
  const placeholders: GrammarPlan['placeholders'] = [];
  const keyPrefix = `${prefix}_key`;
  const renamed = new Map<string, string>();
  const keys: GrammarPlan['keys'] = [];
  const rename = (name: string): string => {
    if (!UNSAFE_NAME.test(name)) return name;
    let placeholder = renamed.get(name);
    if (placeholder === undefined) {
      placeholder = `${keyPrefix}${renamed.size}`;
      renamed.set(name, placeholder);
      keys.push({ literal: ebnfLiteral(JSON.stringify(placeholder)), escaped: ebnfLiteral(JSON.stringify(name)) });
    }
    return placeholder;
  };
  /**
   * `exact`: whether exact rules are written here. Sub-schemas xgrammar ignores (`not`, `if`, …) are kept as
   * they are, as their placeholders would never reach its grammar, but their names are renamed all the same.
   */
  const visit = (node: unknown, path: string, exact: boolean): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return node.map((child, i) => visit(child, `${path}[${i}]`, exact));
    const record = { ...(node as Record<string, unknown>) };
    for (const key of NAMED_SUBSCHEMAS) {
      const group = record[key];
      if (group && typeof group === 'object' && !Array.isArray(group)) {
        const visitNamed = ([name, child]: [string, unknown]) => [
          key === 'properties' ? rename(name) : name,
          visit(child, `${path}.${key}.${name}`, exact && key !== 'dependentSchemas'),
        ];
        record[key] = Object.fromEntries(Object.entries(group).map(visitNamed));
      }
    }
    for (const key of [
      'items',
      'additionalProperties',
      'contains',
      'anyOf',
      'oneOf',
      'allOf',
      'prefixItems',
    ] as const) {
      if (record[key] !== undefined) record[key] = visit(record[key], `${path}.${key}`, exact);
    }
    for (const key of [
      'not',
      'if',
      'then',
      'else',
      'propertyNames',
      'unevaluatedProperties',
      'unevaluatedItems',
    ] as const) {
      if (record[key] !== undefined) record[key] = visit(record[key], `${path}.${key}`, false);
    }
    if (Array.isArray(record.required))
      record.required = record.required.map((name: unknown) => (typeof name === 'string' ? rename(name) : name));
    if (typeof record.$ref === 'string') record.$ref = renamedRef(record.$ref, rename);
    if (!exact) return record;
    const kind = exactKind(record);
    if (kind === null) {
      return hasDroppedBounds(record)
        ? Object.fromEntries(
            Object.entries(record).filter(([key]) => !(NUMERIC_BOUNDS as readonly string[]).includes(key)),
          )
        : record;
    }
    let rule: string;
    if (kind === 'enum') {
      const values = (record.enum as Scalar[]).filter((value) => admits(record, value));
      if (values.length === 0) throw new SchemaError(`${path}: no value of its enum passes the rest of its schema`);
      rule = enumRule(writer, values);
    } else rule = rangeRule(writer, record, path);
    const placeholder = `${prefix}_${placeholders.length}_placeholder`;
    placeholders.push({ literal: ebnfLiteral(JSON.stringify(placeholder)), rule });
    const kept = Object.fromEntries(Object.entries(record).filter(([key]) => key === '$defs' || key === 'definitions'));
    return { ...kept, const: placeholder };
  };
  const rewritten = visit(schema, '$', true);
  return { schema: rewritten, placeholders, lines: writer.lines, keys, keyPrefix };
}

/** Puts the exact rules in place of their placeholders, and the property names in place of theirs, in xgrammar's EBNF for the rewritten schema. */
export function substituteRules(ebnf: string, plan: GrammarPlan): string {
  let text = ebnf;
  for (const { literal, rule } of plan.placeholders) {
    if (!text.includes(literal)) throw new SchemaError(`xgrammar's grammar lost the placeholder ${literal}`);
    text = text.replaceAll(literal, rule);
  }
  // A property xgrammar does not read (under `not`, or beside patternProperties) leaves no key to restore.
  for (const { literal, escaped } of plan.keys) text = text.replaceAll(literal, escaped);
  // A key placeholder left inside a string literal (a $ref's rule name may hold one harmlessly) would reach the output.
  if (plan.keys.length > 0 && text.includes(`\\"${plan.keyPrefix}`))
    throw new SchemaError("xgrammar's grammar holds a renamed property name in a form that cannot be restored");
  return [text.trimEnd(), ...plan.lines].join('\n');
}
