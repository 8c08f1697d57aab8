/**
 * The checks behind test/docs/docs.test.ts, as pure functions of file texts, so that the test can also show
 * each check failing on a broken input.
 */
import { posix } from 'node:path';

export interface MarkdownFile {
  /** Repository-relative, with forward slashes: README.md, docs/teaching.md. */
  path: string;
  text: string;
}

export interface Repository {
  exists(path: string): boolean;
  /** The heading slugs of a Markdown file, or null when it is not one. */
  headingsOf(path: string): ReadonlySet<string> | null;
  scripts: readonly string[];
}

const FENCE = /^(```|~~~)/;

/** The text outside fenced code blocks, line for line (fenced lines become empty, so line numbers hold). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (FENCE.test(line.trimStart())) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2… */
export function githubSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** A repository path quoted on its own in a code span: `src/core/rng.ts`, `.ci/run`, `docs/`. */
const QUOTED_PATH = /^(?:src|test|tools|shaders|public|docs|\.ci)\/[\w./@-]*$/;

/** Every broken link, anchor, image, npm script or quoted path, one line each (file:line: what). */
export function checkMarkdown(files: readonly MarkdownFile[], repository: Repository): string[] {
  const problems: string[] = [];
  const scripts = new Set(repository.scripts);
  for (const file of files) {
    const lines = file.text.split('\n');
    proseLines(file.text).forEach((line, index) => {
      const where = `${file.path}:${index + 1}`;
      for (const span of line.matchAll(/`([^`]+)`/g)) {
        const quoted = span[1] ?? '';
        if (QUOTED_PATH.test(quoted) && !repository.exists(quoted.replace(/\/$/, '')))
          problems.push(`${where}: ${quoted} does not exist`);
      }
      // Code spans may hold brackets; links inside them are not links.
      const prose = line.replace(/`[^`]*`/g, 'code');
      for (const link of prose.matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = link[2] ?? '';
        const kind = link[1] === '!' ? 'image' : 'link';
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart = '', anchor] = target.split('#', 2);
        const path =
          pathPart === ''
            ? file.path
            : posix.normalize(posix.join(posix.dirname(file.path), decodeURIComponent(pathPart)));
        if (path.startsWith('..')) {
          problems.push(`${where}: ${kind} ${target} leaves the repository`);
          continue;
        }
        if (!repository.exists(path.replace(/\/$/, ''))) {
          problems.push(`${where}: ${kind} ${target} points at ${path}, which does not exist`);
          continue;
        }
        if (anchor !== undefined) {
          const slugs = repository.headingsOf(path);
          if (!slugs) problems.push(`${where}: ${kind} ${target} has an anchor, but ${path} is not Markdown`);
          else if (!slugs.has(anchor)) problems.push(`${where}: ${kind} ${target}: ${path} has no heading #${anchor}`);
        }
      }
    });
    // Scripts are checked in code blocks too: that is where commands are.
    lines.forEach((line, index) => {
      for (const command of line.matchAll(/\bnpm (?:run ([\w:.-]+)|(start|test)\b)/g)) {
        const script = command[1] ?? command[2] ?? '';
        if (!scripts.has(script))
          problems.push(
            `${file.path}:${index + 1}: npm ${command[1] ? 'run ' : ''}${script} is not a script in package.json`,
          );
      }
    });
  }
  return problems;
}

/** The folder table of docs/architecture.md: folder → what it may import ("nothing" is none). */
export function parseFolderTable(architecture: string): Map<string, string[]> {
  const section = architecture.split(/^## /m).find((part) => part.startsWith('Folders and what each may import'));
  if (!section) throw new Error('docs/architecture.md has no section "Folders and what each may import"');
  const table = new Map<string, string[]>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const cells = row.split(' | ');
    const folder = /`([^`]+)`/.exec(cells[0] ?? '')?.[1];
    const allowed = cells.at(-1) ?? '';
    if (!folder) continue;
    table.set(
      folder,
      [...allowed.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''),
    );
  }
  return table;
}

export interface SourceFile {
  path: string;
  text: string;
}

/** The table row a source file belongs to: its folder under src/, or src itself for the entry files. */
function folderOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] ?? '');
}

function withoutExtension(path: string): string {
  return path.replace(/\.(tsx?|js)$/, '');
}

/**
 * Every relative import that the table does not allow, one line each. `resolve(from, specifier)` gives the
 * repository path a specifier names (no extension needed).
 */
export function checkImports(
  files: readonly SourceFile[],
  table: ReadonlyMap<string, readonly string[]>,
  resolve: (from: string, specifier: string) => string,
): string[] {
  const problems: string[] = [];
  const specifiers = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)'(\.{1,2}\/[^'?]+)(?:\?[^']*)?'/g;
  for (const file of files) {
    const folder = folderOf(file.path);
    const allowed = table.get(folder);
    if (!allowed) {
      problems.push(`${file.path}: its folder ${folder} has no row in the table`);
      continue;
    }
    for (const match of file.text.matchAll(specifiers)) {
      const target = resolve(file.path, match[1] ?? '');
      const inside =
        folder === 'src'
          ? !target.slice('src/'.length).includes('/') && target.startsWith('src/')
          : target.startsWith(`${folder}/`);
      if (inside) continue;
      const permitted = allowed.some((entry) => {
        const bare = withoutExtension(entry);
        return target === bare || withoutExtension(target) === bare || target.startsWith(`${bare}/`);
      });
      if (!permitted)
        problems.push(
          `${file.path}: imports ${target}, which ${folder} may not import (it may import ${allowed.join(', ') || 'nothing'})`,
        );
    }
  }
  return problems;
}
