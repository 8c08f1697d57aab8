/**
 * `npm run generate` refuses bad input with one line, `generate: <message>`, and exit status 2, before it
 * loads the models; the same rules and messages as the form (src/contract/validation.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../tools/cli/generate';
import { refusal } from '../support/cliRefusal';

const dir = mkdtempSync(join(tmpdir(), 'speclab-cli-'));
const schemaFile = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

afterEach(() => {
  vi.restoreAllMocks();
});

const refused = (argv: string[]) => refusal(main, argv);

describe('npm run generate: usage and input errors', () => {
  it.each([
    [['--preset', 'person', '--K', '0'], 'generate: --K: K drafts must be an integer from 1 to 8; got 0'],
    [['--preset', 'person', '--L', '2.5'], 'generate: --L: L draft length must be an integer from 1 to 8; got 2.5'],
    [
      ['--preset', 'person', '--L', '1e9'],
      'generate: --L: L draft length must be an integer from 1 to 8; got 1000000000',
    ],
    [
      ['--preset', 'person', '--max-tokens', '100000'],
      'generate: --max-tokens: Max tokens must be an integer from 1 to 512; got 100000',
    ],
    [['--preset', 'person', '--top-p', '0'], 'generate: --top-p: Top-p must be a number above 0 and at most 1; got 0'],
    [
      ['--preset', 'person', '--temperature', 'hot'],
      'generate: --temperature: Temperature must be a number from 0 to 2; got "hot"',
    ],
    [
      ['--preset', 'person', '--method', 'fastest'],
      /^generate: --method must be one of ar, ar\+jump-forward, tokenwise/,
    ],
    [
      ['--preset', 'person', '--drafter', 'oracle'],
      'generate: --drafter must be one of model, model+grammar, model+lookup, model+grammar+lookup, head, head+grammar, copy, model+copy, model+grammar+copy, got "oracle"',
    ],
    [['--preset', 'nobody'], /^generate: --preset: unknown preset "nobody"/],
    [
      ['--preset', 'person', '--pair', 'no-such-draft,public/models/speclab-target'],
      'generate: --pair: the draft "no-such-draft" is neither a directory nor an http(s) URL',
    ],
    [
      ['--preset', 'person', '--free'],
      'generate: give exactly one of --preset <name>, --schema <file>, --free or --cases <file.jsonl>',
    ],
    [
      ['--cases', 'examples/cases.jsonl', '--method', 'all'],
      'generate: --cases takes each prompt, schema and trigger from the file, with one --method (not all), so no --prompt or --trigger',
    ],
    [
      ['--cases', 'examples/cases.jsonl', '--buckets', 'small-enum,tiny'],
      'generate: --buckets: no case in "examples/cases.jsonl" has the bucket "tiny"',
    ],
    [['--preset', 'person', '--buckets', 'small-enum'], 'generate: --buckets goes with --cases'],
    [
      ['--cases', schemaFile('cases.jsonl', '{"bucket": "a", "prompt": "p", "schema": {"type": "frobnicate"}}')],
      /^generate: --cases .*cases\.jsonl line 1: \$: unknown type "frobnicate"/,
    ],
    [['--free'], 'generate: --prompt is required without --preset'],
    [['--free', '--prompt', ''], 'generate: the prompt is empty'],
    [['--preset', 'person', '--bogus'], /^generate: Unknown option '--bogus'/],
    [['--schema', '/no/such/schema.json', '--prompt', 'x'], /^generate: --schema \/no\/such\/schema\.json: ENOENT/],
    [
      ['--schema', schemaFile('true.json', 'true'), '--prompt', 'x'],
      /^generate: the schema is `true`, which allows any JSON value/,
    ],
    [['--schema', schemaFile('broken.json', '{"type": '), '--prompt', 'x'], /^generate: the schema is not JSON/],
  ] as [string[], string | RegExp][])('%j', async (argv, expected) => {
    const line = await refused(argv);
    if (typeof expected === 'string') expect(line).toBe(expected);
    else expect(line).toMatch(expected);
  });

  it('refuses 1000-level nesting with the limit, not "memory access out of bounds"', async () => {
    const deep = `${'{"type":"object","properties":{"a":'.repeat(1000)}{"type":"string"}${'}}'.repeat(1000)}`;
    expect(await refused(['--schema', schemaFile('deep.json', deep), '--prompt', 'x'])).toBe(
      'generate: the schema nests more than 32 levels deep; the limit is 32 levels of nesting',
    );
  });

  it('as a command: one line on stderr, no stack trace, exit status 2', async () => {
    const run = promisify(execFile)(
      'npx',
      ['tsx', 'tools/cli/runInVite.ts', '/tools/cli/generate.ts', '--preset', 'person', '--K', '0'],
      { cwd: process.cwd() },
    );
    const failure = await run.then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2, stdout: '' });
    expect(
      failure?.stderr
        .trim()
        .split('\n')
        .filter((line) => !line.includes('configLoader') && line.trim() !== ''),
    ).toEqual(['generate: --K: K drafts must be an integer from 1 to 8; got 0']);
  });
});
