/**
 * Checks a JSON schema before xgrammar sees it. xgrammar reports its own errors only as a wasm abort, and it
 * silently ignores some keywords, so what can be caught here is caught here, with a message a user can act on.
 */
import { SCHEMA_LIMITS } from '../contract/limits';
import { hasDroppedBounds } from './exactRules';
import { SchemaError } from './schemaError';
import { hasOwnKey, ownValue } from '../contract/ownKeys';
import { RE2JS } from 're2js';

export { SchemaError } from './schemaError';

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Keywords xgrammar accepts but does not enforce; the JSON-schema validator still checks every output against them. */
const IGNORED_KEYWORDS = ['uniqueItems', 'multipleOf', 'not', 'minContains', 'maxContains', 'dependentRequired', 'if'];
/**
 * Numeric bounds: xgrammar enforces them wrongly (exactRules.ts), so a bounded integer or number gets an exact
 * rule instead; where none is written (a type list such as ["integer", "null"], or bounds beside anyOf/$ref),
 * the bounds are dropped and listed as not enforced by the mask.
 */
const NUMERIC_BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
/** `format` values xgrammar was measured to enforce; any other format is listed as unenforced. */
const ENFORCED_FORMATS = new Set(['date-time', 'email']);

/**
 * JSON.parse's complaint without the text it quotes (`Unexpected token 'r', "root:x:0:0:"... is not valid
 * JSON`): the text may be a file the user never meant to show, such as /etc/shadow named as a schema.
 */
export function jsonErrorReason(message: string): string {
  return message.replace(/, ".*"(?:\.\.\.)? is not valid JSON$/s, ': not valid JSON');
}

/** Parses schema text, naming the line and column of a syntax error. */
export function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = jsonErrorReason((error as Error).message);
    const position = /position (\d+)/.exec(message);
    if (!position) throw new SchemaError(`the schema is not JSON: ${message}`);
    const offset = Number(position[1]);
    const before = text.slice(0, offset).split('\n');
    const line = before.length;
    const column = (before[before.length - 1] as string).length + 1;
    throw new SchemaError(
      `the schema is not JSON (line ${line}, column ${column}): ${message.replace(/ in JSON at position \d+.*$/, '')}`,
    );
  }
}

/** Keywords whose value is one sub-schema: `not` and `if` nest like any other (5,000 nested `not`s trap xgrammar). */
const SINGLE_SUBSCHEMAS = [
  'items',
  'additionalProperties',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;

/** Sub-schemas of a schema node: what nesting and property counts are measured over. */
function children(record: Record<string, unknown>): unknown[] {
  let found: unknown[] = [];
  for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
    const group = record[key];
    // Concatenated, not pushed with a spread: a list of 200,000 sub-schemas would not fit on the stack.
    if (group && typeof group === 'object') found = found.concat(Object.values(group));
  }
  for (const key of SINGLE_SUBSCHEMAS) if (record[key] !== undefined) found.push(record[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = record[key];
    if (Array.isArray(list)) found = found.concat(list);
  }
  return found;
}

export interface SchemaSize {
  /** Named properties over the whole schema. */
  properties: number;
  /** Schema levels inside one another (a flat object is 2: itself and its properties). */
  depth: number;
  /** The longest enum. */
  enumValues: number;
  /** The deepest nesting of groups in any regex (`pattern`, patternProperties names). */
  patternGroupDepth: number;
  /** The first regex that repeats a group which itself repeats (`(a+)+`): the shape a backtracking engine takes exponential time on. */
  nestedRepetition: string | null;
}

/** A group holding a quantifier, itself quantified: `(a+)+`, `(\\w*x)*`, `(ab{2,})+` (read by RE2, in linear time). */
const NESTED_REPETITION = RE2JS.compile(String.raw`\((?:[^()\\]|\\.)*(?:[+*]|\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,)`);

/** Whether a regex repeats a group that itself repeats. */
export const hasNestedRepetition = (pattern: string): boolean => NESTED_REPETITION.test(pattern);

/**
 * How deeply a regex's groups nest, read as ECMA-262 reads it: an escaped character and a character class's
 * contents are not groups.
 */
export function groupDepth(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') deepest = Math.max(deepest, ++depth);
    else if (char === ')') depth = Math.max(0, depth - 1);
  }
  return deepest;
}

/**
 * Measures a parsed schema without recursion (a hostile schema may nest thousands of levels), looking no
 * deeper than one level past the nesting limit.
 */
export function measureSchema(schema: unknown): SchemaSize {
  const size: SchemaSize = { properties: 0, depth: 0, enumValues: 0, patternGroupDepth: 0, nestedRepetition: null };
  const pending: [unknown, number][] = [[schema, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    size.depth = Math.max(size.depth, depth);
    const record = node as Record<string, unknown>;
    if (record.properties && typeof record.properties === 'object')
      size.properties += Object.keys(record.properties).length;
    if (Array.isArray(record.enum)) size.enumValues = Math.max(size.enumValues, record.enum.length);
    const patterns = [
      record.pattern,
      ...(record.patternProperties && typeof record.patternProperties === 'object'
        ? Object.keys(record.patternProperties)
        : []),
    ];
    for (const pattern of patterns) {
      if (typeof pattern !== 'string') continue;
      size.patternGroupDepth = Math.max(size.patternGroupDepth, groupDepth(pattern));
      if (size.nestedRepetition === null && hasNestedRepetition(pattern)) size.nestedRepetition = pattern;
    }
    if (depth <= SCHEMA_LIMITS.nestingDepth) for (const child of children(record)) pending.push([child, depth + 1]);
  }
  return size;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The target of a local $ref ("#", "#/$defs/a"), or undefined for any other reference or one that points at nothing. */
function localTarget(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined; // a malformed %-escape names nothing
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The schema's size with its local $refs written out, refused past SCHEMA_LIMITS.expandedNodes sub-schemas or
 * expandedDepth levels: a validator walks the expansion, so a small schema of shared $defs can take exponential
 * time (or overflow the stack through a long $ref chain). A $ref back into its own expansion (a recursive
 * schema) is a loop, not an expansion, and counts once. Each sub-schema's size is computed once.
 */
function checkExpansion(root: unknown): void {
  const sizes = new Map<object, { nodes: number; depth: number }>();
  const active = new Set<object>();
  const tooDeep = () =>
    new SchemaError(
      `the schema, with its $refs written out, nests more than ${SCHEMA_LIMITS.expandedDepth} levels deep; the limit is ${SCHEMA_LIMITS.expandedDepth}`,
    );
  const visit = (node: unknown, level: number): { nodes: number; depth: number } => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return { nodes: 0, depth: 0 };
    const known = sizes.get(node);
    if (known) {
      if (level + known.depth > SCHEMA_LIMITS.expandedDepth + 1) throw tooDeep();
      return known;
    }
    if (active.has(node)) return { nodes: 1, depth: 1 };
    if (level > SCHEMA_LIMITS.expandedDepth) throw tooDeep();
    active.add(node);
    const record = node as Record<string, unknown>;
    const parts = children(record);
    if (typeof record.$ref === 'string') parts.push(localTarget(root, record.$ref));
    let nodes = 1;
    let depth = 1;
    for (const child of parts) {
      const size = visit(child, level + 1);
      nodes += size.nodes;
      depth = Math.max(depth, size.depth + 1);
      if (nodes > SCHEMA_LIMITS.expandedNodes) {
        throw new SchemaError(
          `the schema, with its $refs written out, has more than ${count(SCHEMA_LIMITS.expandedNodes)} sub-schemas; the limit is ${count(SCHEMA_LIMITS.expandedNodes)}`,
        );
      }
    }
    active.delete(node);
    const size = { nodes, depth };
    sizes.set(node, size);
    return size;
  };
  visit(root, 1);
}

/** Every schema object in the schema with the path it is first found at ("$.properties.a"), in the order found. */
function schemaNodes(root: unknown): Map<object, string> {
  const paths = new Map<object, string>();
  const pending: [unknown, string][] = [[root, '$']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, path] = next;
    if (typeof node !== 'object' || node === null || Array.isArray(node) || paths.has(node)) continue;
    paths.set(node, path);
    const record = node as Record<string, unknown>;
    for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
      const group = record[key];
      if (group && typeof group === 'object')
        for (const [name, child] of Object.entries(group)) pending.push([child, `${path}.${key}.${name}`]);
    }
    for (const key of SINGLE_SUBSCHEMAS) pending.push([record[key], `${path}.${key}`]);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      const list = record[key];
      if (Array.isArray(list)) list.forEach((child, i) => pending.push([child, `${path}.${key}[${i}]`]));
    }
  }
  return paths;
}

/** Keywords that apply a sub-schema to the same value, not to a part of it: a loop through them alone never ends. */
const IN_PLACE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'] as const;

/** The sub-schemas a node applies to its own value: its $ref's target and its combinators' branches. */
function inPlaceParts(root: unknown, record: Record<string, unknown>): object[] {
  const parts: unknown[] = typeof record.$ref === 'string' ? [localTarget(root, record.$ref)] : [];
  for (const key of IN_PLACE) {
    const value = record[key];
    if (Array.isArray(value)) parts.push(...(value as unknown[]));
    else if (value !== undefined) parts.push(value);
  }
  return parts.filter((part): part is object => typeof part === 'object' && part !== null && !Array.isArray(part));
}

/**
 * Refuses a schema that validators and the grammar cannot finish with: a $ref that points at nothing (or
 * outside the schema), and a loop of $refs and combinators that returns to a schema without reading into a
 * property or an item (`{"$ref": "#"}`, a → b → a, `anyOf: [{"$ref": <itself>}, …]`), on which a validator
 * recurses until the stack overflows and xgrammar builds a grammar that cannot finish. Runs after
 * checkExpansion, which bounds how deep these walks go.
 */
function checkReferences(root: unknown, nodes: Map<object, string>): void {
  for (const [node, path] of nodes) {
    const ref = (node as Record<string, unknown>).$ref;
    if (ref === undefined) continue;
    const shown = JSON.stringify(typeof ref === 'string' ? ref.slice(0, 80) : ref);
    if (typeof ref !== 'string' || (ref !== '#' && !ref.startsWith('#/')))
      throw new SchemaError(
        `${path}: $ref ${shown} is not a reference inside this schema ("#" or "#/…"), the only kind supported`,
      );
    if (localTarget(root, ref) === undefined)
      throw new SchemaError(`${path}: $ref ${shown} points at nothing in the schema`);
  }
  const finished = new Set<object>();
  const trail: object[] = [];
  const visit = (node: object): void => {
    if (finished.has(node)) return;
    const at = trail.indexOf(node);
    if (at >= 0) {
      const loop = [...trail.slice(at), node].map((part) => nodes.get(part) ?? '?');
      throw new SchemaError(
        `the schema refers back to itself without reading into the value (${loop.join(' → ')}): checking any output against it would never end; a $ref to an enclosing schema must sit under properties or items`,
      );
    }
    trail.push(node);
    for (const part of inPlaceParts(root, node as Record<string, unknown>)) visit(part);
    trail.pop();
    finished.add(node);
  };
  for (const node of nodes.keys()) visit(node);
}

/**
 * Whether a schema node can be met by some value the grammar can finish writing, given which nodes are known
 * to be (`holds`): a required property, a minItems item, the $ref target, every allOf branch and one anyOf
 * or oneOf branch must be. An over-estimate (a conflict between allOf branches is not seen), so only a schema
 * that certainly allows no finished value is refused.
 */
function satisfiable(root: unknown, record: Record<string, unknown>, holds: (schema: unknown) => boolean): boolean {
  if (typeof record.$ref === 'string' && !holds(localTarget(root, record.$ref))) return false;
  if (Array.isArray(record.allOf) && !record.allOf.every(holds)) return false;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = record[key];
    if (Array.isArray(list) && list.length > 0 && !list.some(holds)) return false;
  }
  if (hasOwnKey(record, 'const') || Array.isArray(record.enum)) return true;
  const types =
    record.type === undefined ? [] : Array.isArray(record.type) ? (record.type as unknown[]) : [record.type];
  if (types.length === 0) return true;
  return types.some((type) => {
    if (type === 'object') {
      const properties = (
        record.properties && typeof record.properties === 'object' ? record.properties : {}
      ) as Record<string, unknown>;
      const required: unknown[] = Array.isArray(record.required) ? record.required : [];
      return required.every((name) => {
        if (typeof name !== 'string') return true;
        if (hasOwnKey(properties, name)) return holds(ownValue(properties, name));
        return record.patternProperties !== undefined || holds(record.additionalProperties);
      });
    }
    if (type === 'array') {
      const prefix = Array.isArray(record.prefixItems) ? (record.prefixItems as unknown[]) : [];
      const minItems = typeof record.minItems === 'number' && Number.isFinite(record.minItems) ? record.minItems : 0;
      const items = Math.min(Math.max(0, Math.ceil(minItems)), prefix.length + 1);
      for (let i = 0; i < items; i++) if (!holds(i < prefix.length ? prefix[i] : record.items)) return false;
    }
    return true;
  });
}

/**
 * Refuses a schema that reaches a part no finished value can meet (a required property that requires itself
 * again, with no way out): the grammar would let the output start it and never let it end. Nodes are marked
 * satisfiable from the leaves up until nothing changes; $defs nobody refers to are not reached.
 */
function checkFinishable(root: unknown, nodes: Map<object, string>): void {
  const met = new Set<object>();
  const holds = (schema: unknown) =>
    schema === undefined ||
    schema === true ||
    (typeof schema === 'object' && schema !== null && (Array.isArray(schema) || met.has(schema)));
  const order = [...nodes.keys()].reverse();
  for (let changed = true; changed;) {
    changed = false;
    for (const node of order) {
      if (!met.has(node) && satisfiable(root, node as Record<string, unknown>, holds)) {
        met.add(node);
        changed = true;
      }
    }
  }
  const reached = new Set<unknown>();
  const pending: unknown[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || reached.has(node)) continue;
    reached.add(node);
    if (!met.has(node))
      throw new SchemaError(
        `${nodes.get(node) ?? '$'} allows no value an output could finish: it needs (through required properties, minItems items, $refs, allOf, or every anyOf branch) a value that needs itself again, or one the schema forbids`,
      );
    // Reached through what the output can write, and $refs: a $defs entry counts only where it is referred to.
    const record = { ...(node as Record<string, unknown>) };
    delete record.$defs;
    delete record.definitions;
    for (const child of children(record)) pending.push(child);
    if (typeof record.$ref === 'string') pending.push(localTarget(root, record.$ref));
  }
}

/** Refuses what the grammar compiler or the validators cannot digest, naming the problem and the limit. */
function checkDigestible(schema: unknown): void {
  if (typeof schema === 'boolean') {
    throw new SchemaError(
      schema
        ? 'the schema is `true`, which allows any JSON value: give an object schema such as {"type": "object"}, or choose "No schema (free text)"'
        : 'the schema is `false`, which allows no value at all, so nothing could ever be generated',
    );
  }
  const size = measureSchema(schema);
  if (size.depth > SCHEMA_LIMITS.nestingDepth) {
    throw new SchemaError(
      `the schema nests more than ${SCHEMA_LIMITS.nestingDepth} levels deep; the limit is ${SCHEMA_LIMITS.nestingDepth} levels of nesting`,
    );
  }
  if (size.properties > SCHEMA_LIMITS.properties) {
    throw new SchemaError(
      `the schema has ${count(size.properties)} properties; the limit is ${count(SCHEMA_LIMITS.properties)}`,
    );
  }
  if (size.enumValues > SCHEMA_LIMITS.enumValues) {
    throw new SchemaError(
      `an enum in the schema lists ${count(size.enumValues)} values; the limit is ${count(SCHEMA_LIMITS.enumValues)}`,
    );
  }
  if (size.patternGroupDepth > SCHEMA_LIMITS.patternGroupDepth) {
    throw new SchemaError(
      `a pattern in the schema nests its groups ${count(size.patternGroupDepth)} levels deep; the limit is ${SCHEMA_LIMITS.patternGroupDepth}`,
    );
  }
  checkExpansion(schema);
  const nodes = schemaNodes(schema);
  checkReferences(schema, nodes);
  checkFinishable(schema, nodes);
}

/**
 * Property names of any text reach xgrammar safely (exactRules.ts renames the ones that would break its
 * grammar text), but for two: `__proto__`, which an object built from the schema by assignment would take as
 * its prototype rather than as a property, and a name holding a lone surrogate half, which no output can
 * write (JSON text is UTF-8, and the byte guard refuses a `\uD800`–`\uDFFF` escape).
 */
function checkPropertyName(name: string, path: string): void {
  if (name === '__proto__')
    throw new SchemaError(
      `${path}.properties: the property name "__proto__" is not allowed: an object built from the schema would take it as its prototype`,
    );
  if (/\p{Surrogate}/u.test(name)) {
    throw new SchemaError(
      `${path}.properties: the property name ${JSON.stringify(name.slice(0, 40))} holds a lone surrogate half, which no output can write`,
    );
  }
}

/**
 * Walks a parsed schema: throws on what cannot compile (a non-object schema, an unknown type, an empty
 * enum), and returns, by name and path, the keywords xgrammar will not enforce exactly.
 */
export function checkSchema(schema: unknown): string[] {
  checkDigestible(schema);
  const unenforced: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (typeof node === 'boolean') return;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new SchemaError(`${path} must be a schema object, got ${JSON.stringify(node)}`);
    }
    const record = node as Record<string, unknown>;
    const types = record.type === undefined ? [] : Array.isArray(record.type) ? record.type : [record.type];
    for (const type of types) {
      if (typeof type !== 'string' || !JSON_TYPES.has(type)) {
        throw new SchemaError(
          `${path}: unknown type ${JSON.stringify(type)}; use one of ${[...JSON_TYPES].join(', ')}`,
        );
      }
    }
    if (hasOwnKey(record, 'enum') && (!Array.isArray(record.enum) || record.enum.length === 0)) {
      throw new SchemaError(`${path}: enum must list at least one value`);
    }
    for (const keyword of IGNORED_KEYWORDS)
      if (hasOwnKey(record, keyword)) unenforced.push(`${path}: ${keyword} (ignored by xgrammar)`);
    if (hasDroppedBounds(record)) {
      for (const keyword of NUMERIC_BOUNDS)
        if (hasOwnKey(record, keyword)) unenforced.push(`${path}: ${keyword} (not enforced by the mask)`);
    }
    if (typeof record.format === 'string' && !ENFORCED_FORMATS.has(record.format)) {
      unenforced.push(`${path}: format "${record.format}" (not enforced by xgrammar)`);
    }
    for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
      const group = record[key];
      if (group && typeof group === 'object') {
        for (const [name, child] of Object.entries(group)) {
          if (key === 'properties') checkPropertyName(name, path);
          walk(child, `${path}.${key}.${name}`);
        }
      }
    }
    for (const key of SINGLE_SUBSCHEMAS) {
      if (record[key] !== undefined && typeof record[key] !== 'boolean') walk(record[key], `${path}.${key}`);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      const list = record[key];
      if (Array.isArray(list)) list.forEach((child, i) => walk(child, `${path}.${key}[${i}]`));
    }
  };
  walk(schema, '$');
  return unenforced;
}

/**
 * A lower bound on the bytes of the shortest output the schema allows, in the one-line layout the grammar
 * enforces (": " and ", "): required properties only, minItems items, minLength characters (each at least a
 * byte), any number as one digit, the shortest of anyOf/oneOf/enum, the longest of allOf. A $ref back into
 * its own expansion counts one byte, so the bound stays a lower bound.
 */
export function shortestOutputBytes(root: unknown): number {
  const active = new Set<unknown>();
  const shortest = (node: unknown): number => {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || active.has(node)) return 0;
    const record = node as Record<string, unknown>;
    active.add(node);
    try {
      const bounds: number[] = [];
      if ('const' in record) bounds.push(JSON.stringify(record.const).length);
      if (Array.isArray(record.enum) && record.enum.length > 0)
        bounds.push(Math.min(...record.enum.map((value) => (JSON.stringify(value) ?? '').length)));
      if (typeof record.$ref === 'string') bounds.push(shortest(localTarget(root, record.$ref)));
      for (const key of ['anyOf', 'oneOf'] as const) {
        const list = record[key];
        if (Array.isArray(list) && list.length > 0) bounds.push(Math.min(...list.map(shortest)));
      }
      if (Array.isArray(record.allOf)) bounds.push(...record.allOf.map(shortest));
      const types =
        record.type === undefined ? [] : Array.isArray(record.type) ? (record.type as unknown[]) : [record.type];
      if (types.length > 0) bounds.push(Math.min(...types.map((type) => typeBytes(record, type, shortest))));
      return Math.max(1, ...bounds);
    } finally {
      active.delete(node);
    }
  };
  return shortest(root);
}

/** The shortest bytes of one JSON type under a schema node's own keywords. */
function typeBytes(record: Record<string, unknown>, type: unknown, shortest: (node: unknown) => number): number {
  const atLeast = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.ceil(value)) : 0;
  switch (type) {
    case 'string':
      return 2 + atLeast(record.minLength);
    case 'boolean':
      return 4;
    case 'null':
      return 4;
    case 'array': {
      const items = Math.min(atLeast(record.minItems), SCHEMA_LIMITS.properties);
      const prefix = Array.isArray(record.prefixItems) ? (record.prefixItems as unknown[]) : [];
      let bytes = 2 + 2 * Math.max(0, items - 1);
      for (let i = 0; i < items; i++) bytes += shortest(i < prefix.length ? prefix[i] : record.items);
      return bytes;
    }
    case 'object': {
      const properties = (
        record.properties && typeof record.properties === 'object' ? record.properties : {}
      ) as Record<string, unknown>;
      const required = Array.isArray(record.required)
        ? record.required.filter((name): name is string => typeof name === 'string')
        : [];
      let bytes = 2 + 2 * Math.max(0, required.length - 1);
      for (const name of required)
        bytes +=
          JSON.stringify(name).length + 2 + shortest(Object.hasOwn(properties, name) ? properties[name] : undefined);
      return bytes;
    }
    default:
      return 1;
  }
}
