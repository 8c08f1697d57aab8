/**
 * `npm run generate -- --pair DRAFT,TARGET --method all --schema FILE --json` on replica pairs of the field's
 * families (a 1-layer draft and a 2-layer target sharing the real tokenizer at full vocabulary): every method
 * writes schema-valid JSON, and at T = 0 every method's text equals ar's (each is lossless, and at T = 0 the
 * target's law is its argmax). Every drafter runs on one pair the same way.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main as generate } from '../../tools/cli/generate';
import { DECODE_METHODS } from '../../src/contract/runParams';
import { pairDirs } from '../support/replicas';

const scratch = mkdtempSync(join(tmpdir(), 'speclab-replica-pairs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

// Closed languages (enums and a boolean), so that random weights still end them within the token budget. A step
// at 128k–152k tokens costs several times one at 32k–50k (every probability row is V wide), so the larger
// vocabularies write a bare enum (a string of a few tokens) and the smaller ones an object; both hold a CJK
// value (multi-byte tokens).
const MOODS = ['happy', 'sad', '中立'];
const moodAndOk = {
  type: 'object',
  properties: { mood: { enum: MOODS }, ok: { type: 'boolean' } },
  required: ['mood', 'ok'],
  additionalProperties: false,
};
function schemaFile(name: string, schema: object): string {
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(schema));
  return file;
}
const schemas = { moodAndOk: schemaFile('moodAndOk', moodAndOk), mood: schemaFile('mood', { enum: MOODS }) };

interface Row {
  first_run: { method: string; drafter: string; text: string; schema_valid: boolean; R: number };
}

async function run(argv: string[]): Promise<Row[]> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  await expect(generate(argv)).resolves.toBe(0);
  return lines.map((line) => JSON.parse(line) as Row);
}

// One timed round of one run per method: the race's figures are not under test here, its rows are. At T = 0 the
// K drafts are K copies of one, so K = 2 reads as much as more would; L = 2 still drafts several tokens a step.
const common = ['--prompt', 'Mood?', '--json', '--repeats', '1', '--token-budget', '1', '--K', '2', '--L', '2'];

describe.each([
  ['llama2', schemas.moodAndOk],
  ['llama3', schemas.mood],
  ['qwen3', schemas.mood],
  ['gpt2', schemas.moodAndOk],
])('the %s replica pair', (family, schema) => {
  it('runs every method: all outputs schema-valid, T = 0 rows equal to ar', async () => {
    const { draft, target } = pairDirs(family);
    const rows = await run([
      '--pair',
      `${draft},${target}`,
      '--method',
      'all',
      '--temperature',
      '0',
      '--schema',
      schema,
      ...common,
    ]);
    expect(rows.map((row) => row.first_run.method)).toEqual([...DECODE_METHODS]);
    const ar = rows.find((row) => row.first_run.method === 'ar')?.first_run.text;
    for (const { first_run: row } of rows) {
      expect(row.schema_valid, `${row.method}: ${row.text}`).toBe(true);
      expect(row.text, row.method).toBe(ar);
    }
    // The speculative methods did draft: the path under test is the real one.
    expect(rows.filter((row) => row.first_run.R > 0).length).toBeGreaterThanOrEqual(DECODE_METHODS.length - 2);
  });
});
