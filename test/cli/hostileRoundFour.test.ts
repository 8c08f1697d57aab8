/**
 * Hostile round four's CLI cases: durations past what Node's timers hold, case files with a byte-order mark, and a
 * case file's schema_file reaching outside its folder (it read /etc/shadow and echoed its first bytes).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../tools/cli/args';
import { readCases } from '../../tools/cli/cases';
import { main as generate } from '../../tools/cli/generate';
import { main as importVllm } from '../../tools/cli/importVllm';
import { main as scorecard } from '../../tools/cli/scorecard';
import { refusal } from '../support/cliRefusal';

afterEach(() => {
  vi.restoreAllMocks();
});

const CASE = JSON.stringify({ bucket: 'b', prompt: 'A person:', schema: { type: 'object' } });

/** A folder holding cases.jsonl with `lines`, and a schema outside it at ../outside.json. */
function caseFolder(lines: string): string {
  const root = mkdtempSync(join(tmpdir(), 'speclab-cases-'));
  mkdirSync(join(root, 'cases'));
  writeFileSync(join(root, 'outside.json'), 'root:$6$SECRET-HASH:19000:0:99999:7:::\n');
  writeFileSync(join(root, 'cases', 'person.json'), '{"type": "object"}');
  writeFileSync(join(root, 'cases', 'cases.jsonl'), lines);
  return join(root, 'cases', 'cases.jsonl');
}

describe('durations bounded to what Node timers hold (2^31 − 1 ms)', () => {
  const server = ['--server', 'http://127.0.0.1:9', '--model', 'm', '--cases', 'examples/cases.jsonl'];
  it.each(['1e10', '0.0000001', '3000000', '0'])('scorecard --timeout %s: one line, exit 2', async (value) => {
    expect(await refusal(scorecard, [...server, '--timeout', value])).toBe(
      `scorecard: --timeout must be a number of seconds from 0.001 to 2147483.647 (what Node's timers hold), got ${value}`,
    );
  });

  it('import:vllm --interval 1e10: one line, exit 2', async () => {
    expect(await refusal(importVllm, ['--url', 'http://127.0.0.1:9/metrics', '--interval', '1e10'])).toBe(
      "import:vllm: --interval must be a number of seconds from 0.001 to 2147483.647 (what Node's timers hold), got 1e10",
    );
  });
});

describe('case files', () => {
  it('reads a case file and a schema_file that start with a UTF-8 byte-order mark', () => {
    const path = caseFolder(
      `\uFEFF${CASE}\n${JSON.stringify({ bucket: 'c', prompt: 'p', schema_file: 'person.json' })}\n`,
    );
    writeFileSync(join(path, '..', 'person.json'), '\uFEFF{"type": "object"}');
    expect(readCases(path).map((item) => [item.bucket, item.schema])).toEqual([
      ['b', { type: 'object' }],
      ['c', { type: 'object' }],
    ]);
  });

  it.each(['../outside.json', 'ABSOLUTE'])(
    'refuses schema_file %s outside the case file folder, naming --allow-absolute-paths, and never shows the file',
    (name) => {
      const path = caseFolder('');
      const schemaFile = name === 'ABSOLUTE' ? join(path, '..', '..', 'outside.json') : name;
      writeFileSync(path, `${JSON.stringify({ bucket: 'b', prompt: 'p', schema_file: schemaFile })}\n`);
      expect(() => readCases(path)).toThrow(UsageError);
      expect(() => readCases(path)).toThrow(
        `line 1: "schema_file" must name a file inside the case file's folder; give --allow-absolute-paths to read ${JSON.stringify(schemaFile)}`,
      );
      // Allowed, the file is read, and its contents stay out of the message.
      let message = '';
      try {
        readCases(path, true);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/the schema is not JSON/);
      expect(message).not.toMatch(/SECRET|root:/);
    },
  );

  it('generate --cases with a schema_file outside its folder: one line, exit 2, nothing read', async () => {
    const path = caseFolder(`${JSON.stringify({ bucket: 'b', prompt: 'p', schema_file: '../outside.json' })}\n`);
    const line = await refusal(generate, ['--cases', path]);
    expect(line).toMatch(/^generate: --cases .* line 1: "schema_file" must name a file inside the case file's folder/);
    expect(line).not.toMatch(/SECRET/);
  });
});

describe('an API key that no header can carry', () => {
  const server = ['--server', 'http://127.0.0.1:9', '--model', 'm', '--cases', 'examples/cases.jsonl'];
  it.each([
    ['two lines', 'sk-SECRET-LINE1\nLINE2-SECRET'],
    ['a control character', 'sk-SECRET\u0007'],
  ])('--api-key-file with %s: one line, exit 2, the key never shown', async (_, key) => {
    const file = join(mkdtempSync(join(tmpdir(), 'speclab-key-')), 'key');
    writeFileSync(file, key);
    const line = await refusal(scorecard, [...server, '--api-key-file', file]);
    expect(line).toBe(
      'scorecard: --api-key-file holds a key (***) that is not one line of visible ASCII characters, so no HTTP header can carry it',
    );
    expect(line).not.toMatch(/SECRET/);
  });

  it('OPENAI_API_KEY with a control character: one line, exit 2, the key never shown', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-SECRET\u001b[2J');
    try {
      expect(await refusal(scorecard, server)).toBe(
        'scorecard: OPENAI_API_KEY holds a key (***) that is not one line of visible ASCII characters, so no HTTP header can carry it',
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
