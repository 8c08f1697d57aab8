/**
 * No file names a document that is not there: every `something.md` a tracked text file mentions (a comment,
 * a doc, a help text) is a Markdown file of the repository, by its path from the root or from the file, or
 * by a name only one of them has. URLs, the docs checks' own broken examples and the files a tool writes
 * are not references.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, normalize, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = normalize(join(import.meta.dirname, '../..'));
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const TEXT = /\.(ts|tsx|js|mjs|css|html|md|py|sh|json|jsonl|yml|yaml|txt)$|^\.ci\//;
/** Generated data and recorded fixtures are not prose; the docs checks hold broken references on purpose. */
const NOT_PROSE = /^(public\/models\/|test\/fixtures\/|package-lock\.json$|test\/docs\/(?:docs|references)\.test\.ts$)/;
/** Files a command writes when it runs (`--out bench-results/gpu` writes gpu.md; PATH is a placeholder). */
const WRITTEN = new Set(['bench-results/gpu.md', 'PATH.md']);

const markdown = tracked.filter((path) => path.endsWith('.md'));

/** Each `x.md` a text names that resolves to no Markdown file here, with its line. */
function danglingDocuments(path: string, text: string, documents: readonly string[]): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    const withoutUrls = line.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '');
    for (const match of withoutUrls.matchAll(/[\w./-]*\w\.md\b/g)) {
      const name = match[0].replace(/^\.\//, '');
      if (WRITTEN.has(name)) continue;
      const candidates = name.includes('/')
        ? [posix.normalize(name.replace(/^\//, '')), posix.normalize(posix.join(posix.dirname(path), name))]
        : documents.filter((document) => posix.basename(document) === name);
      if (!candidates.some((candidate) => documents.includes(candidate)))
        problems.push(`${path}:${index + 1}: names ${name}, which is not in the repository`);
    }
  });
  return problems;
}

describe('references to documents', () => {
  it('every .md a tracked file names is in the repository', () => {
    const files = tracked.filter((path) => TEXT.test(path) && !NOT_PROSE.test(path));
    expect(files.length).toBeGreaterThan(100);
    const problems = files.flatMap((path) => danglingDocuments(path, readFileSync(join(ROOT, path), 'utf8'), markdown));
    expect(problems).toEqual([]);
  });

  it('names a missing document with its line, and accepts paths from the root, from the file, and bare names', () => {
    const documents = ['README.md', 'docs/models.md', 'src/core/README.md'];
    const text = [
      'See docs/models.md and ../../docs/models.md, models.md, /README.md and https://example.org/GONE.md.',
      'The head is in HEAD_INTERFACE.md and docs/gone.md.',
    ].join('\n');
    expect(danglingDocuments('src/core/x.ts', text, documents)).toEqual([
      'src/core/x.ts:2: names HEAD_INTERFACE.md, which is not in the repository',
      'src/core/x.ts:2: names docs/gone.md, which is not in the repository',
    ]);
  });
});
