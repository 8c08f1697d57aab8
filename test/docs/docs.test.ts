/**
 * The docs stay true: every relative link and image in README.md, docs/*.md and src's folder READMEs
 * resolves (files and #anchors), every npm script they name exists (and the README's table lists every one),
 * every repository path they quote exists, and docs/architecture.md's folder table matches the imports in
 * src/ and each folder's README.md. No browser, no build: it reads files.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DECODE_METHODS, decodeMethodInfo } from '../../src/contract/runParams';
import { TOUR_STOPS } from '../../src/ui/tourStops';
import { checkImports, checkMarkdown, githubSlugs, parseFolderTable, type MarkdownFile } from './docsCheck';

const ROOT = normalize(join(import.meta.dirname, '../..'));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const FOLDER_READMES = ['src', ...readdirSync(join(ROOT, 'src')).map((name) => `src/${name}`)]
  .map((folder) => `${folder}/README.md`)
  .filter((path) => existsSync(join(ROOT, path)));
const DOC_PATHS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...FOLDER_READMES,
];
const docs: MarkdownFile[] = DOC_PATHS.map((path) => ({ path, text: read(path) }));
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('the README and docs/', () => {
  it('the README stays a front page: at most 300 lines and 20 KB', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
  });

  it('every link, anchor, image, npm script and quoted path resolves', () => {
    const problems = checkMarkdown(docs, {
      exists: (path) => existsSync(join(ROOT, path)),
      headingsOf: (path) => (existsSync(join(ROOT, path)) && path.endsWith('.md') ? githubSlugs(read(path)) : null),
      scripts,
    });
    expect(problems).toEqual([]);
  });

  it("the README's table of npm scripts lists every script in package.json, and nothing else", () => {
    const listed = [...read('README.md').matchAll(/^\| `npm (?:run )?([\w:.-]+)` \|/gm)].map((match) => match[1]);
    expect([...listed].sort()).toEqual([...scripts].sort());
  });

  it('the README and docs/teaching.md give the tour as many stops as the app, and the method keys the app has', () => {
    const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
    const keys = DECODE_METHODS.map((method) => Number(decodeMethodInfo(method).shortcut)).sort((a, b) => a - b);
    const range = `${keys[0]}–${keys.at(-1)}`;
    // The keys are consecutive, so a range names them all.
    expect(keys).toEqual(keys.map((_, i) => (keys[0] ?? 0) + i));
    for (const path of ['README.md', 'docs/teaching.md']) {
      const text = read(path).replace(/\s+/g, ' ');
      const stops = [...text.matchAll(/\b(\w+)-stop tour\b/g)].map((match) => match[1]);
      expect(stops.length, `${path} names the tour's length`).toBeGreaterThan(0);
      for (const stop of stops) expect(stop, `${path}: a ${stop}-stop tour`).toBe(words[TOUR_STOPS.length - 1]);
      const ranges = [...text.matchAll(/\b(?:keys )?(\d)–(\d)\b(?= (?:pick )?method)/g)].map(
        (match) => `${match[1]}–${match[2]}`,
      );
      expect(ranges.length, `${path} names the method keys`).toBeGreaterThan(0);
      for (const named of ranges) expect(named, `${path}: keys ${named}`).toBe(range);
    }
  });
});

describe("the code's map in docs/architecture.md", () => {
  const table = parseFolderTable(read('docs/architecture.md'));
  const folders = readdirSync(join(ROOT, 'src'))
    .filter((name) => statSync(join(ROOT, 'src', name)).isDirectory())
    .map((name) => `src/${name}`);

  it('has one row for src/ itself and one for each folder under it', () => {
    expect([...table.keys()].sort()).toEqual(['src', ...folders].sort());
  });

  it('allows every relative import in src/ (nothing imports up)', () => {
    const imports = sourceFiles('src').map((path) => ({ path, text: read(path) }));
    expect(
      checkImports(imports, table, (from, specifier) => relative(ROOT, join(ROOT, dirname(from), specifier))),
    ).toEqual([]);
  });

  it("each folder's README.md says what it owns and may import, as the table does", () => {
    for (const folder of ['src', ...folders]) {
      const readme = `${folder}/README.md`;
      expect(existsSync(join(ROOT, readme)), readme).toBe(true);
      const line = read(readme)
        .split('\n')
        .find((text) => text.startsWith('May import:'));
      expect(line, `${readme} has no "May import:" line`).toBeDefined();
      const allowed = [...(line ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);
      expect(allowed.sort(), readme).toEqual([...(table.get(folder) ?? [])].sort());
    }
  });
});

describe('the checks themselves fail on broken docs', () => {
  const repository = {
    exists: (path: string) => ['README.md', 'docs/a.md', 'docs/shot.png', 'src/core/rng.ts'].includes(path),
    headingsOf: (path: string) =>
      path === 'docs/a.md' ? githubSlugs('# Page\n\n## K × L sweeps\n\n## Bad input\n\n## Bad input\n') : null,
    scripts: ['start', 'test', 'bench'],
  };

  it('accepts links, anchors (repeated headings numbered), images, scripts and paths that exist', () => {
    const good =
      '[a](docs/a.md#k--l-sweeps) [b](docs/a.md#bad-input-1) ![s](docs/shot.png) `src/core/rng.ts` `npm run bench` [w](https://example.org)\n```sh\nnpm test\n```';
    expect(checkMarkdown([{ path: 'README.md', text: good }], repository)).toEqual([]);
  });

  it('names each broken link, anchor, image, script and quoted path with its line', () => {
    const broken = [
      'See [the page](docs/missing.md).',
      'And [a heading](docs/a.md#no-such-heading), ![a shot](docs/gone.png).',
      '`npm run bench:nothing` and `src/core/gone.ts`; `[x](nowhere.md)` is code, not a link.',
      '```sh',
      'npm run sweeep',
      '[inside a fence](nowhere.md)',
      '```',
    ].join('\n');
    expect(checkMarkdown([{ path: 'README.md', text: broken }], repository)).toEqual([
      'README.md:1: link docs/missing.md points at docs/missing.md, which does not exist',
      'README.md:2: link docs/a.md#no-such-heading: docs/a.md has no heading #no-such-heading',
      'README.md:2: image docs/gone.png points at docs/gone.png, which does not exist',
      'README.md:3: src/core/gone.ts does not exist',
      'README.md:3: npm run bench:nothing is not a script in package.json',
      'README.md:5: npm run sweeep is not a script in package.json',
    ]);
  });

  it('names an import that crosses a line the folder table does not allow', () => {
    const table = parseFolderTable(
      '## Folders and what each may import\n\n| folder | owns | may import |\n|---|---|---|\n| `src/contract` | x | `src/core` |\n| `src/core` | y | `src/contract/limits.ts` |\n',
    );
    const resolve = (from: string, specifier: string) => posix.normalize(posix.join(posix.dirname(from), specifier));
    const files = [
      { path: 'src/core/verify/index.ts', text: "import { MAX_DRAFTS } from '../../contract/limits';" },
      {
        path: 'src/contract/runParams.ts',
        text: "import { SCHEMA_PRESETS } from '../grammar/presets';\nimport type { X } from './limits';",
      },
      { path: 'src/core/metrics.ts', text: "import type { RunReport } from '../contract/runReport';" },
    ];
    expect(checkImports(files, table, resolve)).toEqual([
      'src/contract/runParams.ts: imports src/grammar/presets, which src/contract may not import (it may import src/core)',
      'src/core/metrics.ts: imports src/contract/runReport, which src/core may not import (it may import src/contract/limits.ts)',
    ]);
  });
});
