/** `npm run bench` refuses bad options with one line, `bench: <message>`, and exit status 2, before it loads the models. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../tools/cli/bench';
import { refusal } from '../support/cliRefusal';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('npm run bench: usage errors', () => {
  it.each([
    [['--rounds', '0'], 'bench: --rounds must be a positive integer up to 100, got 0'],
    [['--rounds', '2.5'], 'bench: --rounds must be a positive integer up to 100, got 2.5'],
    [['--rounds', 'many'], 'bench: --rounds must be a number, got "many"'],
    [['--rounds', ''], 'bench: --rounds must be a number, got ""'],
    [['--seeds', '0'], 'bench: --seeds must be a positive integer up to 100, got 0'],
    [['--seeds', '1e9'], 'bench: --seeds must be a positive integer up to 100, got 1e9'],
    [['--grid', '3by4'], 'bench: --grid: "3by4" is not KxL, such as 3x4'],
    [['--methods', 'fastest'], /^bench: --methods: unknown fastest; the methods are /],
    [
      ['--node-only', '--pair', 'public/models/speclab-draft'],
      'bench: --pair must be <draft>,<target> (two directories or URLs), got "public/models/speclab-draft"',
    ],
    [
      ['--drafters', 'model,oracle'],
      'bench: --drafters: unknown oracle; the drafters are model, model+grammar, model+lookup, model+grammar+lookup, head, head+grammar, copy, model+copy, model+grammar+copy',
    ],
    [['--drafter', 'head', '--drafters', 'model,head'], 'bench: give --drafter or --drafters, not both'],
    [['--draft-ahead'], 'bench: --draft-ahead runs in Node only (the page has no target thread): add --node-only'],
  ] as [string[], string | RegExp][])('%j', async (argv, expected) => {
    const printed = await refusal(main, argv);
    if (typeof expected === 'string') expect(printed).toBe(expected);
    else expect(printed).toMatch(expected);
  });
});
