/**
 * Every command an engineer can type is declared in tools/cli/commands.ts and parsed by tools/cli/args.ts:
 * --help prints usage with every option (exit 0); a mistake is one line `<tool>: <message>` (exit 2), before
 * anything loads. Checked in-process for every command, and as real processes for one plain and one
 * Vite-run command.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HELP_COLUMNS, UsageError, helpText, parseCommand, type CommandSpec } from '../../tools/cli/args';
import { COMMANDS } from '../../tools/cli/commands';

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
/** Scripts that are not tools: the dev server, the build, the checks, and the Python/shell model build. */
const NOT_TOOLS = [
  'start',
  'build',
  'preview',
  'lint',
  'typecheck',
  'test',
  'checks',
  'format',
  'models:build',
  'docs:screenshot',
];
const specs: CommandSpec[] = Object.values(COMMANDS);

function refusal(spec: CommandSpec, argv: string[]): string {
  try {
    parseCommand(spec, argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error(`${spec.name} accepted ${JSON.stringify(argv)}`);
}

describe('every command has --help and refuses mistakes in one line', () => {
  it('declares exactly the tools package.json runs, each with its entry file', () => {
    const tools = Object.keys(scripts).filter((name) => !NOT_TOOLS.includes(name));
    expect(specs.map((spec) => spec.name).sort()).toEqual(tools.sort());
    for (const spec of specs) {
      expect(scripts[spec.name], spec.name).toContain(spec.entry.replace(/^\//, spec.viaVite ? '/' : ''));
      if (spec.viaVite) expect(scripts[spec.name]).toContain('tools/cli/runInVite.ts');
      // The entry parses with its own spec (runInVite checks Vite-run ones before Vite starts, too).
      const source = readFileSync(spec.entry.replace(/^\//, ''), 'utf8');
      expect(source, spec.entry).toMatch(
        new RegExp(`COMMANDS(\\['${spec.name}'\\]|\\.${spec.name.replace(':', '_')}\\b)`),
      );
    }
  });

  it.each(specs.map((spec) => [spec.name, spec] as const))(
    '%s --help lists usage, every option, its default and an example',
    (name, spec) => {
      expect(parseCommand(spec, ['--help'])).toBe('help');
      expect(parseCommand(spec, ['-h'])).toBe('help');
      const text = helpText(spec);
      expect(text).toContain(`usage: npm run ${name} --`);
      for (const [option, declared] of Object.entries(spec.options)) {
        expect(text).toContain(`--${option}`);
        if (typeof declared.default === 'string') expect(text).toContain(`(default ${declared.default})`);
      }
      expect(text).toMatch(new RegExp(`examples:\\n  npm run ${name}`));
      // Descriptions start in one column, no further right than a 40-character flag puts them.
      const starts = text
        .slice(0, text.indexOf('examples:'))
        .split('\n')
        .filter((line) => /^ {2}\S/.test(line) && / {2}\S/.test(line.slice(2)))
        .map((line) => line.slice(2).search(/ {2}\S/) + 4);
      expect(new Set(starts).size).toBe(1);
      expect(starts[0]).toBeLessThanOrEqual(2 + 40 + 2);
      // Everything above the examples (which are commands to copy whole) reads in a 100-column terminal.
      const options = text.slice(0, text.indexOf('examples:')).split('\n');
      expect(options.filter((line) => line.length > HELP_COLUMNS)).toEqual([]);
    },
  );

  it.each(specs.map((spec) => [spec.name, spec] as const))(
    '%s refuses an unknown flag and each bad value',
    (_name, spec) => {
      expect(refusal(spec, ['--bogus'])).toMatch(/^Unknown option '--bogus'; see --help$/);
      for (const [option, declared] of Object.entries(spec.options)) {
        if (declared.type === 'boolean') continue;
        const kind = declared.value;
        if (Array.isArray(kind))
          expect(refusal(spec, [`--${option}`, 'nonsense'])).toBe(
            `--${option} must be one of ${kind.join(', ')}, got "nonsense"`,
          );
        else if (kind === 'integer' || kind === 'count' || kind === 'number' || kind === 'positive-number')
          expect(refusal(spec, [`--${option}`, 'abc'])).toBe(`--${option} must be a number, got "abc"`);
        expect(refusal(spec, [`--${option}`])).toMatch(new RegExp(`^Option '--${option} <value>' argument missing`));
      }
    },
  );

  it('checks integers, counts and positive numbers by range', () => {
    expect(refusal(COMMANDS['bench:mask'], ['--L', '0'])).toBe('--L must be a positive integer up to 8, got 0');
    // Counts that size a run are capped by the parser (CLI_LIMITS), and the help says so.
    for (const [command, option] of [
      ['bench', 'seeds'],
      ['sweep', 'seeds'],
      ['scorecard', 'seeds'],
      ['generate', 'repeats'],
    ] as const) {
      expect(refusal(COMMANDS[command], [`--${option}`, '1e9'])).toBe(
        `--${option} must be a positive integer up to 100, got 1e9`,
      );
      // In the option's own text, which may wrap onto indented lines.
      expect(helpText(COMMANDS[command])).toMatch(
        new RegExp(`--${option} N +(?:[^\\n]|\\n {10,})*, at most 100 \\(default \\d+\\)`),
      );
    }
    expect(refusal(COMMANDS['models:eval'], ['--acceptance-records', '1.5'])).toBe(
      '--acceptance-records must be a whole number ≥ 0 up to 10000, got 1.5',
    );
    expect(refusal(COMMANDS['import:vllm'], ['--interval', '0'])).toBe(
      "--interval must be a number of seconds from 0.001 to 2147483.647 (what Node's timers hold), got 0",
    );
    expect(refusal(COMMANDS['import:vllm'], ['a.prom', 'b.prom'])).toBe('unexpected argument "b.prom"; see --help');
    expect(parseCommand(COMMANDS.sim, ['--K', '3'])).toMatchObject({ values: { K: '3', V: '6', json: false } });
  });

  it('scorecard takes --cases on the bundled models as generate and sweep do, sliced by --buckets', () => {
    for (const command of ['generate', 'sweep', 'scorecard'] as const)
      expect(helpText(COMMANDS[command])).toMatch(
        /\n {2}--buckets a,b +with --cases: only the cases of these buckets\n/,
      );
    const text = helpText(COMMANDS.scorecard);
    expect(text).toMatch(/\n {2}--cases FILE\.jsonl +score the cases of a case file instead of --presets/);
    expect(text).toContain(
      '\n  npm run scorecard -- --cases examples/cases.jsonl --buckets small-enum,nested-json --json\n',
    );
  });

  // R and I are a server's counter values, not sizes of a run: any whole number is one.
  const UNCAPPED = new Set(['import:vllm --R', 'import:vllm --I']);
  const counts = specs.flatMap((spec) =>
    Object.entries(spec.options)
      .filter(
        ([option, declared]) =>
          (declared.value === 'integer' || declared.value === 'count') && !UNCAPPED.has(`${spec.name} --${option}`),
      )
      .map(([option, declared]) => [`${spec.name} --${option}`, spec, option, declared] as const),
  );

  it.each(counts)('%s is capped by the parser, and the help says so', (_label, spec, option, declared) => {
    expect(declared.max, `${spec.name} --${option} has no max (CLI_LIMITS)`).toBeTypeOf('number');
    const max = declared.max as number;
    const range = declared.value === 'count' ? `a whole number ≥ 0 up to ${max}` : `a positive integer up to ${max}`;
    expect(refusal(spec, [`--${option}`, '1e9'])).toBe(`--${option} must be ${range}, got 1e9`);
    expect(refusal(spec, [`--${option}`, String(max + 1)])).toBe(`--${option} must be ${range}, got ${max + 1}`);
    expect(parseCommand(spec, [`--${option}`, String(max)])).not.toBe('help');
    expect(helpText(spec)).toContain(`, at most ${max}`);
  });

  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', ...args], { cwd: process.cwd() });
  const failure = (args: string[]) =>
    run(args).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it('as processes: a mistake is one line on stderr with exit 2; --help exits 0 before Vite starts', async () => {
    expect(await failure(['tools/cli/benchVerify.ts', '--node', '--methods', 'optimal-tree'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(
        /^bench:verify: --methods: optimal-tree cannot be timed on the GPU; the methods with a WGSL kernel are [a-z, -]+\n$/,
      ),
    });
    expect(await failure(['tools/cli/benchLoad.ts', '--dist', 'public'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'bench:load: --dist: "public" holds no index.html (build it with npm run build)\n',
    });
    // A bad pair is refused by the tools' one pair parser (tools/cli/pair.ts) before any model loads.
    expect(
      await failure(['tools/cli/benchModels.ts', '--node-only', '--pair', 'public/models/speclab-draft']),
    ).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'bench:models: --pair must be <draft>,<target> (two directories or URLs), got "public/models/speclab-draft"\n',
    });
    const { stdout } = await run(['tools/cli/runInVite.ts', '/tools/cli/sweep.ts', '--help']);
    expect(stdout).toBe(`${helpText(COMMANDS.sweep)}\n`);
  });
});
