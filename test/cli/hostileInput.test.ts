/**
 * The CLIs against hostile input: files read with a size limit (an endless /dev/zero is refused, not read
 * to the end of memory), --repeats bounded, scrape positions bounded, and nothing from a file or a model echoed
 * raw to the terminal. Each CLI runs in-process (its main), not spawned.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../tools/cli/generate';
import { main as importVllm } from '../../tools/cli/importVllm';
import { readInputFile } from '../../tools/cli/input';
import { terminalSafe } from '../../tools/cli/terminalSafe';
import { shownUrl } from '../../src/contract/boundedFetch';
import { refusal } from '../support/cliRefusal';
import { listenOnLoopback } from '../support/loopback';

const dir = mkdtempSync(join(tmpdir(), 'speclab-hostile-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('terminal-safe output', () => {
  it('escapes control characters and escape sequences, and cuts long lines', () => {
    expect(terminalSafe('\u001b[2J\u001b]0;pwned\u0007ok')).toBe('\\x1b[2J\\x1b]0;pwned\\x07ok');
    expect(terminalSafe('a\nb\r\u009bc\u202ed')).toBe('a\\nb\\x0d\\x9bc\\u{202e}d');
    expect(terminalSafe('x'.repeat(5_000_000))).toBe(`${'x'.repeat(200)}… (4999800 more characters)`);
    expect(terminalSafe('line one\n\tline \u001btwo', { keepLines: true })).toBe('line one\n\tline \\x1btwo');
  });
});

describe('input files are read with a size limit', () => {
  it('reads a small file whole, and refuses a file past the limit or an endless device before reading it all', () => {
    expect(readInputFile(file('small.json', '{"type":"object"}'), '--schema')).toBe('{"type":"object"}');
    expect(() => readInputFile(file('big.json', 'x'.repeat(2049)), '--schema', 2048)).toThrow(
      /is larger than 0.001953125 MiB/,
    );
    expect(() => readInputFile('/dev/zero', '--schema')).toThrow(
      '--schema /dev/zero is larger than 8 MiB, the most an input file may be',
    );
  });

  // A FIFO with no writer once hung the CLI silently, in open().
  it('reads a pipe its writer fills, and refuses one nothing writes to once its wait is over', () => {
    const fifo = join(dir, 'schema.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readInputFile(fifo, '--schema', 2048, 200)).toThrow(
      `--schema ${fifo} is a pipe that nothing wrote to within 0.2 s`,
    );
    const writer = spawn('sh', ['-c', `sleep 0.2; printf '{"type":"object"}' > '${fifo}'`]);
    expect(readInputFile(fifo, '--schema', 2048, 20_000)).toBe('{"type":"object"}');
    writer.kill();
  });

  it('generate refuses --schema /dev/zero and --repeats 1e9 with exit 2, one line', async () => {
    expect(await refusal(main, ['--schema', '/dev/zero', '--prompt', 'hi'])).toBe(
      'generate: --schema /dev/zero is larger than 8 MiB, the most an input file may be',
    );
    expect(await refusal(main, ['--preset', 'person', '--method', 'all', '--repeats', '1e9'])).toBe(
      'generate: --repeats must be a positive integer up to 100, got 1e9',
    );
  });

  // ^(a+)+$ against 36 a's and a "!" once never returned (a backtracking RegExp; 29 a's took 26 s): RE2 answers at once.
  it('a schema whose enum value defeats a backtracking pattern is answered, exit 2, one line', async () => {
    const schema = file(
      'redos.json',
      JSON.stringify({
        type: 'object',
        properties: { x: { type: 'string', pattern: '^(a+)+$', enum: [`${'a'.repeat(36)}!`] } },
        required: ['x'],
      }),
    );
    expect(await refusal(main, ['--schema', schema, '--prompt', 'hi'])).toBe(
      'generate: $.properties.x: no value of its enum passes the rest of its schema',
    );
  });

  it('a path with escape sequences is echoed escaped', async () => {
    expect(await refusal(main, ['--schema', '/nonexistent/\u001b[2Jx', '--prompt', 'hi'])).toMatch(
      /^generate: --schema \/nonexistent\/\\x1b\[2Jx: ENOENT/,
    );
  });
});

describe('the shared option parser', () => {
  it('echoes an unknown option holding escape sequences escaped', async () => {
    const line = await refusal(main, ['--\u001b]0;pwned\u0007\u001b[2Jx']);
    expect(line).toBe("generate: Unknown option '--\\x1b]0;pwned\\x07\\x1b[2Jx'; see --help");
  });

  // `--temperature -1` was "argument is ambiguous" from node's parseArgs, never the option's own check.
  it.each([
    [
      ['--preset', 'person', '--temperature', '-1'],
      'generate: --temperature: Temperature must be a number from 0 to 2; got -1',
    ],
    [['--preset', 'person', '--seed', '-5'], /^generate: --seed: Seed must be an integer .*; got -5$/],
    [['--preset', 'person', '--K', '-.5'], /^generate: --K: K drafts must be an integer .*; got -0.5$/],
  ] as [string[], string | RegExp][])(
    'takes a negative number as a value and checks it: %j',
    async (argv, expected) => {
      const line = await refusal(main, argv);
      if (typeof expected === 'string') expect(line).toBe(expected);
      else expect(line).toMatch(expected);
    },
  );

  it('bench:verify --grid with V = 1e9 is capped: exit 2, one line, before anything runs', async () => {
    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'tools/cli/benchVerify.ts', '--node', '--grid', '[{"V":1e9,"K":2,"L":2}]'],
      { cwd: process.cwd() },
    );
    const failure = (await run.then(
      () => null,
      (error: unknown) => error,
    )) as { code: number; stdout: string; stderr: string } | null;
    expect(failure).toMatchObject({ code: 2, stdout: '' });
    expect(failure?.stderr).toBe(
      'bench:verify: --grid: each entry needs V from 2 to 262144, K from 1 to 8 and L from 1 to 8 (integers), got {"V":1000000000,"K":2,"L":2}\n',
    );
  });
});

describe('npm run import:vllm', () => {
  it('prints an invalid 5 MB scrape line with escape sequences escaped and cut, never raw, and exits 2', async () => {
    const scrape = file(
      'evil.prom',
      `vllm:spec_decode_num_drafts_total{engine="0"} \u001b[2J\u001b]0;pwned\u0007${'9'.repeat(5_000_000)}\n`,
    );
    const line = await refusal(importVllm, [scrape]);
    expect(line).toMatch(/^import:vllm: /);
    expect(line).not.toContain('\u001b');
    expect(line).toContain('\\u001b[2J');
    expect(line.length).toBeLessThan(2500);
  });

  // 480 bytes that ran the CLI out of heap (exit 134), and a position that threw "Invalid array length" with a stack trace.
  it.each(['100000000', '4294967296'])(
    'refuses position="%s" in one line, exit 2, with no array sized from it',
    async (position) => {
      const counters = [
        'num_drafts_total{engine="0"} 10',
        'num_draft_tokens_total{engine="0"} 30',
        'num_accepted_tokens_total{engine="0"} 12',
        `num_accepted_tokens_per_pos_total{engine="0",position="${position}"} 1`,
      ];
      const scrape = file(`position-${position}.prom`, counters.map((line) => `vllm:spec_decode_${line}\n`).join(''));
      expect(await refusal(importVllm, [scrape])).toMatch(
        new RegExp(`^import:vllm: .*needs a position label 0, 1, … below 1024 in decimal, got "${position}"`),
      );
    },
  );

  // The password was printed twice on stderr.
  it('never prints the password of a --url with one, valid or not', async () => {
    const line = await refusal(importVllm, ['--url', 'http://user:s3cret-pw@127.0.0.1:9/metrics']);
    expect(line).toBe(
      'import:vllm: --url must not carry a user name or password (http://***:***@127.0.0.1:9/metrics): fetch refuses such a URL; put the metrics endpoint behind no login, or scrape it to a file and pass the file',
    );
    expect(await refusal(importVllm, ['--url', 'http://user:s3cret-pw@[::1/metrics'])).toBe(
      'import:vllm: --url: "http://***@[::1/metrics" is not a URL such as http://localhost:8000/metrics',
    );
    expect(shownUrl(new URL('https://user:s3cret-pw@example.com/x'))).toBe('https://***:***@example.com/x');
  });

  describe('--url against a server that sends more than a scrape may hold', () => {
    let sent = 0;
    // 64 KiB pieces of metric lines for as long as the client reads, up to 64 MiB.
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const piece = Buffer.from('vllm:spec_decode_num_drafts_total 1\n'.repeat(1800));
      const push = () => {
        if (response.destroyed || sent > 64 * 1024 * 1024) return void response.end();
        sent += piece.length;
        response.write(piece, () => setImmediate(push));
      };
      push();
    });
    let base = '';
    beforeAll(async () => {
      base = await listenOnLoopback(server);
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('stops reading at the first byte past 8 MiB and refuses it in one line, exit 2', async () => {
      expect(await refusal(importVllm, ['--url', `${base}/metrics`, '--count', '1'])).toMatch(
        /^import:vllm: cannot scrape http:\/\/127\.0\.0\.1:\d+\/metrics: .* is more than 8388608 bytes, but 8388608 bytes at most were expected \(the most a scrape may be\): the download was stopped$/,
      );
      expect(sent).toBeLessThan(16 * 1024 * 1024);
    });
  });
});
