/**
 * No code line is longer than MAX_LINE characters, but for one long literal or a URL: Prettier wraps code,
 * and a comment it cannot wrap is wrapped by hand.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LINE, longLines } from './lineLength';

const ROOT = normalize(join(import.meta.dirname, '../..'));
const code = execFileSync('git', ['ls-files', '-z', '*.ts', '*.tsx', '*.js'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);

describe('line length', () => {
  it(`no line of the code is over ${MAX_LINE} characters, but a long literal or a URL`, () => {
    expect(code.length).toBeGreaterThan(100);
    expect(code.flatMap((path) => longLines(path, readFileSync(join(ROOT, path), 'utf8')))).toEqual([]);
  });

  it('names a long comment or a long line of code, and lets one long string, template, pattern or URL pass', () => {
    const long = 'x'.repeat(MAX_LINE);
    const text = [
      `  /** ${long} */`,
      `  const total = first + second + ${long.replaceAll('x', 'a + ')}0;`,
      `    '${long}',`,
      `  return \`${long} \${value}\`;`,
      `  it('${long}', async () => {`,
      `    /^${long}$/,`,
      `  // see https://example.org/${long}`,
      'short',
    ].join('\n');
    expect(longLines('a.ts', text)).toEqual([
      `a.ts:1: ${MAX_LINE + 9} characters`,
      expect.stringMatching(/^a\.ts:2: /),
    ]);
  });
});
