/**
 * Checks a JSON schema before xgrammar sees it. xgrammar reports its own errors only as a wasm abort, and it
 * silently ignores some keywords, so what can be caught here is caught here, with a message a user can act on.
 */

export class SchemaError extends Error {
  override readonly name = 'SchemaError';
}

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Keywords xgrammar accepts but does not enforce; ajv still checks every output against them. */
const IGNORED_KEYWORDS = ['uniqueItems', 'multipleOf', 'not', 'minContains', 'maxContains', 'dependentRequired', 'if'];
/** Numeric bounds xgrammar enforces only approximately (maximum: 120 also admits 121–129). */
const APPROXIMATE_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
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

/**
 * Walks a parsed schema: throws on what cannot compile (a non-object schema, an unknown type, an empty
 * enum), and returns, by name and path, the keywords xgrammar will not enforce exactly.
 */
export function checkSchema(schema: unknown): string[] {
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
    for (const keyword of APPROXIMATE_KEYWORDS) {
      if (keyword in record) unenforced.push(`${path}: ${keyword} (enforced only approximately by xgrammar)`);
    }
    if (typeof record.format === 'string' && !ENFORCED_FORMATS.has(record.format)) {
      unenforced.push(`${path}: format "${record.format}" (not enforced by xgrammar)`);
    }
    for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
      const children = record[key];
      if (children && typeof children === 'object') {
        for (const [name, child] of Object.entries(children)) walk(child, `${path}.${key}.${name}`);
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
