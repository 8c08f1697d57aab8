/** `npm run bench:gpu`: --help, and bad options refused with one line and exit status 2 before Chromium starts. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../tools/cli/benchGpu';
import { helpText } from '../../tools/cli/args';
import { COMMANDS } from '../../tools/cli/commands';
import { adapterLabel } from '../../tools/bench/gpuBench';
import { refusal } from '../support/cliRefusal';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('npm run bench:gpu', () => {
  it.each([
    [['--seeds', '0'], 'bench:gpu: --seeds must be a positive integer up to 100, got 0'],
    [['--seeds', '1e9'], 'bench:gpu: --seeds must be a positive integer up to 100, got 1e9'],
    [['--rounds', 'many'], 'bench:gpu: --rounds must be a number, got "many"'],
    [['--rounds', '101'], 'bench:gpu: --rounds must be a positive integer up to 100, got 101'],
    [['--out', ''], 'bench:gpu: --out needs a file name'],
    [['--presets', 'sentiment,nope'], /^bench:gpu: --preset: .*nope/],
    [['--repeats', '0'], 'bench:gpu: --repeats must be a positive integer up to 100, got 0'],
    [['--repeats', '1e9'], 'bench:gpu: --repeats must be a positive integer up to 100, got 1e9'],
    [['--max-tokens', '0'], /^bench:gpu: --max-tokens: /],
    [['--no-forward-table', 'yes'], /^bench:gpu: Unexpected argument 'yes'/],
    [['--warm-up', '1.5'], 'bench:gpu: --warm-up must be a whole number ≥ 0 up to 10, got 1.5'],
    [['--warm-up', '11'], 'bench:gpu: --warm-up must be a whole number ≥ 0 up to 10, got 11'],
    [['--no-cost-ratio', 'yes'], /^bench:gpu: Unexpected argument 'yes'/],
    [['--grid', '3by4'], 'bench:gpu: --grid: "3by4" is not KxL, such as 3x4'],
    [['--gpu'], /^bench:gpu: Unknown option '--gpu'/],
  ] as [string[], string | RegExp][])('refuses %j', async (argv, expected) => {
    const printed = await refusal(main, argv);
    if (typeof expected === 'string') expect(printed).toBe(expected);
    else expect(printed).toMatch(expected);
  });

  it('--help prints the usage and exits 0', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    await expect(main(['--help'])).resolves.toBe(0);
    expect(printed).toEqual([helpText(COMMANDS['bench:gpu'])]);
  });

  it("labels a software adapter's figures as the CPU's", () => {
    expect(adapterLabel({ adapter: 'google / swiftshader', software: true })).toBe(
      'google / swiftshader (software adapter: CPU figures)',
    );
    expect(adapterLabel({ adapter: 'nvidia / hopper', software: false })).toBe('nvidia / hopper (hardware adapter)');
  });
});
