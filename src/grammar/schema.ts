/**
 * Checks a JSON schema before xgrammar sees it. xgrammar reports its own errors only as a wasm abort, and it
 * silently ignores some keywords, so what can be caught here is caught here, with a message a user can act on.
 */
import { SCHEMA_LIMITS } from '../contract/limits';

export class SchemaError extends Error {
  override readonly name = 'SchemaError';
}

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Keywords xgrammar accepts but does not enforce; ajv still checks every output against them. */
const IGNORED_KEYWORDS = ['uniqueItems', 'multipleOf', 'not', 'minContains', 'maxContains', 'dependentRequired', 'if'];
/**
 * Numeric bounds xgrammar enforces only approximately (maximum: 120 also admits 121–129), or wrongly: its
 * range grammar for a negative integer bound (minimum: -1) admits a lone "-", so such bounds are not handed
 * to it (schemaForGrammar). Its enums of integers were measured to go wrong too (of -20..10, a "12" token
 * passes), so no exact rewrite is attempted; ajv judges every output against the schema as written.
 */
const APPROXIMATE_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

const isIntegerOnly = (record: Record<string, unknown>) => record.type === 'integer' && !('enum' in record) && !('const' in record);
const hasNegativeBound = (record: Record<string, unknown>) => APPROXIMATE_KEYWORDS.some((keyword) => typeof record[keyword] === 'number' && (record[keyword] as number) < 0);

/** The schema as xgrammar is given it: an integer with a negative bound loses its bounds, so its output is at least a well-formed integer. */
export function schemaForGrammar(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map(schemaForGrammar);
  const record = { ...(schema as Record<string, unknown>) };
  for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
    const group = record[key];
    if (group && typeof group === 'object' && !Array.isArray(group)) {
      record[key] = Object.fromEntries(Object.entries(group).map(([name, child]) => [name, schemaForGrammar(child)]));
    }
  }
  for (const key of ['items', 'additionalProperties', 'contains', 'anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    if (record[key] !== undefined) record[key] = schemaForGrammar(record[key]);
  }
  if (!isIntegerOnly(record) || !hasNegativeBound(record)) return record;
  return Object.fromEntries(Object.entries(record).filter(([key]) => !APPROXIMATE_KEYWORDS.includes(key)));
}
/** `format` values xgrammar was measured to enforce; any other format is listed as unenforced. */
const ENFORCED_FORMATS = new Set(['date-time', 'email']);

/** Parses schema text, naming the line and column of a syntax error. */
export function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    if (!position) throw new SchemaError(`the schema is not JSON: ${message}`);
    const offset = Number(position[1]);
    const before = text.slice(0, offset).split('\n');
    const line = before.length;
    const column = (before[before.length - 1] as string).length + 1;
    throw new SchemaError(`the schema is not JSON (line ${line}, column ${column}): ${message.replace(/ in JSON at position \d+.*$/, '')}`);
  }
}

/** Sub-schemas of a schema node: what nesting and property counts are measured over. */
function children(record: Record<string, unknown>): unknown[] {
  const found: unknown[] = [];
  for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
    const group = record[key];
    if (group && typeof group === 'object') found.push(...Object.values(group));
  }
  for (const key of ['items', 'additionalProperties', 'contains'] as const) if (record[key] !== undefined) found.push(record[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = record[key];
    if (Array.isArray(list)) found.push(...list);
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
}

/**
 * Measures a parsed schema without recursion (a hostile schema may nest thousands of levels), looking no
 * deeper than one level past the nesting limit.
 */
export function measureSchema(schema: unknown): SchemaSize {
  const size: SchemaSize = { properties: 0, depth: 0, enumValues: 0 };
  const pending: [unknown, number][] = [[schema, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    size.depth = Math.max(size.depth, depth);
    const record = node as Record<string, unknown>;
    if (record.properties && typeof record.properties === 'object') size.properties += Object.keys(record.properties).length;
    if (Array.isArray(record.enum)) size.enumValues = Math.max(size.enumValues, record.enum.length);
    if (depth <= SCHEMA_LIMITS.nestingDepth) for (const child of children(record)) pending.push([child, depth + 1]);
  }
  return size;
}

const count = (n: number) => n.toLocaleString('en-US');

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
    throw new SchemaError(`the schema nests more than ${SCHEMA_LIMITS.nestingDepth} levels deep; the limit is ${SCHEMA_LIMITS.nestingDepth} levels of nesting`);
  }
  if (size.properties > SCHEMA_LIMITS.properties) {
    throw new SchemaError(`the schema has ${count(size.properties)} properties; the limit is ${count(SCHEMA_LIMITS.properties)}`);
  }
  if (size.enumValues > SCHEMA_LIMITS.enumValues) {
    throw new SchemaError(`an enum in the schema lists ${count(size.enumValues)} values; the limit is ${count(SCHEMA_LIMITS.enumValues)}`);
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
        throw new SchemaError(`${path}: unknown type ${JSON.stringify(type)}; use one of ${[...JSON_TYPES].join(', ')}`);
      }
    }
    if ('enum' in record && (!Array.isArray(record.enum) || record.enum.length === 0)) {
      throw new SchemaError(`${path}: enum must list at least one value`);
    }
    for (const keyword of IGNORED_KEYWORDS) if (keyword in record) unenforced.push(`${path}: ${keyword} (ignored by xgrammar)`);
    const dropped = isIntegerOnly(record) && hasNegativeBound(record);
    for (const keyword of APPROXIMATE_KEYWORDS) {
      if (keyword in record) unenforced.push(`${path}: ${keyword} (${dropped ? 'not enforced by the mask' : 'enforced only approximately by xgrammar'})`);
    }
    if (typeof record.format === 'string' && !ENFORCED_FORMATS.has(record.format)) {
      unenforced.push(`${path}: format "${record.format}" (not enforced by xgrammar)`);
    }
    for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
      const group = record[key];
      if (group && typeof group === 'object') {
        for (const [name, child] of Object.entries(group)) walk(child, `${path}.${key}.${name}`);
      }
    }
    for (const key of ['items', 'additionalProperties', 'contains'] as const) {
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
