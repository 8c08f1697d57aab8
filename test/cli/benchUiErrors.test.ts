/** `npm run bench:ui`: --help, and bad options refused with one line and exit status 2 before anything builds or Chromium starts. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../tools/cli/benchUi';
import { helpText } from '../../tools/cli/args';
import { COMMANDS } from '../../tools/cli/commands';
import { refusal } from '../support/cliRefusal';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('npm run bench:ui', () => {
  it.each([
    [['--repeats', '0'], 'bench:ui: --repeats must be a positive integer up to 100, got 0'],
    [['--warm-up', '1.5'], 'bench:ui: --warm-up must be a whole number ≥ 0 up to 10, got 1.5'],
    [['--preset', 'nope'], /^bench:ui: --preset: unknown preset "nope"; the presets are sentiment, /],
    [['--max-tokens', '0'], /^bench:ui: --max-tokens: /],
    [['--max-tokens', '9999'], /^bench:ui: --max-tokens: /],
    [['--dist', 'public'], 'bench:ui: --dist: "public" holds no index.html (build it with npm run build)'],
    [['--screenshot', ''], 'bench:ui: --screenshot needs a file name'],
    [['--no-screenshot', 'yes'], /^bench:ui: Unexpected argument 'yes'/],
  ] as [string[], string | RegExp][])('refuses %j', async (argv, expected) => {
    const printed = await refusal(main, argv);
    if (typeof expected === 'string') expect(printed).toBe(expected);
    else expect(printed).toMatch(expected);
  });

  it('--help prints the usage, with the smallest run, and exits 0', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    await expect(main(['--help'])).resolves.toBe(0);
    expect(printed).toEqual([helpText(COMMANDS['bench:ui'])]);
    expect(printed[0]).toMatch(/--dist DIR +serve this production build/);
    expect(printed[0]).toMatch(/--max-tokens N +tokens per run at most \(default 96\)/);
  });
});
