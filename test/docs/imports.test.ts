/**
 * No circles: no TypeScript file under src/ or tools/ reaches itself through its imports (type-only and
 * dynamic imports included), and no training script under tools/train/ through its Python imports. A type
 * both sides need lives in a file both can import. (docs.test.ts holds docs/architecture.md's folder table
 * against the same imports.)
 */
import { join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, filesUnder, pythonGraph, typescriptGraph } from './importGraph';

const ROOT = normalize(join(import.meta.dirname, '../..'));

describe('the module graph has no circles', () => {
  it('among the TypeScript files of src/ and tools/', () => {
    const files = ['src', 'tools'].flatMap((folder) => filesUnder(ROOT, folder, /\.tsx?$/));
    expect(files.length).toBeGreaterThan(100);
    expect(circles(typescriptGraph(ROOT, files))).toEqual([]);
  });

  it('among the Python training scripts of tools/train/', () => {
    const files = filesUnder(ROOT, 'tools/train', /\.py$/);
    const graph = pythonGraph(ROOT, files);
    expect(graph.get('tools/train/reexport.py')).toContain('tools/train/train.py');
    expect(circles(graph)).toEqual([]);
  });

  it('names every file of each circle, and only those', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['d.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['a.ts']],
    ]);
    expect(circles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts', 'e.ts'], ['f.ts']]);
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
