import { expect, vi } from 'vitest';

/**
 * Runs a CLI's `main` on `argv`, expecting a refusal: exit status 2, nothing on stdout and exactly one line on
 * stderr, which it returns. Call `vi.restoreAllMocks()` after each test.
 */
export async function refusal(main: (argv: string[]) => Promise<number>, argv: string[]): Promise<string> {
  const printed: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((line: string) => void printed.push(line));
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  await expect(main(argv)).resolves.toBe(2);
  expect(log).not.toHaveBeenCalled();
  expect(printed).toHaveLength(1);
  return printed[0] as string;
}
