/**
 * `--cases FILE.jsonl`: an engineer's own workload, one case a line:
 *   {"bucket": "small-enum", "prompt": "…", "schema": {…}}            the schema inline, or
 *   {"bucket": "nested", "prompt": "…", "schema_file": "person.json"}  a file beside the case file
 *   {"bucket": "reasoning", "prompt": "…", "schema": {…}, "trigger": "ANSWER:"}  free text, then JSON after the trigger
 * Schemas are untrusted input: each passes the same checks as `generate --schema` (src/grammar/schema.ts)
 * before anything is sent or loaded; a mistake names its line and is one line, exit 2 (tools/cli/args.ts).
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { RunParams } from '../../src/contract/runParams';
import { SchemaError, checkSchema, jsonErrorReason, parseSchemaText } from '../../src/grammar/schema';
import { UsageError } from './args';
import { readInputFile } from './input';
import { terminalSafe } from './terminalSafe';

/** At most this many cases a file: a scorecard sends two requests a case. */
export const MAX_CASES = 10_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$/;

export interface Case {
  /** 1-based line in the file. */
  line: number;
  bucket: string;
  prompt: string;
  schemaText: string;
  schema: object;
  trigger: string | null;
}

const FIELDS = new Set(['bucket', 'prompt', 'schema', 'schema_file', 'trigger']);

/**
 * Where a case's schema_file lies: inside the case file's folder unless `allowAnywhere` (--allow-absolute-paths),
 * so that a case file from elsewhere cannot make a tool read /etc/shadow. Symbolic links are followed first.
 */
function schemaFilePath(casePath: string, name: string, at: string, allowAnywhere: boolean): string {
  const folder = dirname(casePath);
  const path = resolve(folder, name);
  if (allowAnywhere) return path;
  const real = (file: string) => {
    try {
      return realpathSync(file);
    } catch {
      return file;
    }
  };
  const inside = relative(real(folder), real(path));
  if (isAbsolute(name) || inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    throw new UsageError(
      `${at}: "schema_file" must name a file inside the case file's folder; give --allow-absolute-paths to read ${JSON.stringify(terminalSafe(name, { maxChars: 80 }))}`,
    );
  return path;
}

/** Reads and checks a case file; throws UsageError naming the line of the first mistake. */
export function readCases(path: string, allowAbsolutePaths = false): Case[] {
  const lines = readInputFile(path, '--cases').split('\n');
  const cases: Case[] = [];
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const at = `--cases ${terminalSafe(path)} line ${index + 1}`;
    let entry: unknown;
    try {
      entry = JSON.parse(raw);
    } catch (error) {
      throw new UsageError(`${at}: not JSON (${jsonErrorReason((error as Error).message)})`);
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw new UsageError(`${at}: each line must be a JSON object`);
    const record = entry as Record<string, unknown>;
    const unknown = Object.keys(record).find((key) => !FIELDS.has(key));
    if (unknown !== undefined)
      throw new UsageError(
        `${at}: unknown field ${JSON.stringify(terminalSafe(unknown, { maxChars: 40 }))}; a case has ${[...FIELDS].join(', ')}`,
      );
    const { bucket, prompt, trigger } = record;
    if (typeof bucket !== 'string' || !NAME.test(bucket))
      throw new UsageError(`${at}: "bucket" must be a name of letters, digits and _.+- (at most 64 characters)`);
    if (typeof prompt !== 'string' || prompt === '') throw new UsageError(`${at}: "prompt" must be a non-empty string`);
    if (trigger !== undefined && (typeof trigger !== 'string' || trigger === ''))
      throw new UsageError(`${at}: "trigger" must be a non-empty string`);
    if ((record.schema === undefined) === (record.schema_file === undefined))
      throw new UsageError(`${at}: give "schema" or "schema_file", one of them`);
    let schemaText: string;
    if (record.schema_file !== undefined) {
      if (typeof record.schema_file !== 'string' || record.schema_file === '')
        throw new UsageError(`${at}: "schema_file" must be a file name`);
      schemaText = readInputFile(
        schemaFilePath(path, record.schema_file, at, allowAbsolutePaths),
        `${at}: schema_file`,
      );
    } else schemaText = JSON.stringify(record.schema);
    let schema: unknown;
    try {
      schema = parseSchemaText(schemaText);
      checkSchema(schema);
    } catch (error) {
      if (error instanceof SchemaError) throw new UsageError(`${at}: ${error.message}`);
      throw error;
    }
    if (schema === null || typeof schema !== 'object') throw new UsageError(`${at}: the schema must be a JSON object`);
    cases.push({
      line: index + 1,
      bucket,
      prompt,
      schemaText,
      schema,
      trigger: typeof trigger === 'string' ? trigger : null,
    });
    if (cases.length > MAX_CASES) throw new UsageError(`--cases ${terminalSafe(path)}: more than ${MAX_CASES} cases`);
  }
  if (cases.length === 0) throw new UsageError(`--cases ${terminalSafe(path)}: no cases (one JSON object a line)`);
  return cases;
}

/** The buckets in the order they first appear. */
export function bucketsOf(cases: readonly Pick<Case, 'bucket'>[]): string[] {
  return [...new Set(cases.map((item) => item.bucket))];
}

/** A case's run: the shared options with the case's prompt, schema and trigger. */
export function caseParams(params: RunParams, item: Case): RunParams {
  const run: RunParams = { ...params, prompt: item.prompt, schemaText: item.schemaText };
  delete run.trigger;
  if (item.trigger !== null) run.trigger = item.trigger;
  return run;
}

/** The case file, sliced to --buckets when given (a bucket the file lacks is a mistake). */
export function casesOption(path: string, buckets: string | undefined, allowAbsolutePaths = false): Case[] {
  const cases = readCases(path, allowAbsolutePaths);
  if (buckets === undefined) return cases;
  const wanted = buckets.split(',').map((name) => name.trim());
  const missing = wanted.find((name) => !cases.some((item) => item.bucket === name));
  if (missing !== undefined)
    throw new UsageError(
      `--buckets: no case in ${JSON.stringify(terminalSafe(path))} has the bucket ${JSON.stringify(terminalSafe(missing, { maxChars: 64 }))}`,
    );
  return cases.filter((item) => wanted.includes(item.bucket));
}
