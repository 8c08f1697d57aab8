/**
 * The repository's module graph, read with the TypeScript compiler's own import scanner (every static,
 * type-only and dynamic import; `?raw` and other queries dropped), and the circles in it: each strongly
 * connected group of two or more files, named file by file, so that a test can say which files loop.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

export type ModuleGraph = ReadonlyMap<string, readonly string[]>;

/** Every file under `folder` (relative to `root`) whose name matches `pattern`, as a repository path. */
export function filesUnder(root: string, folder: string, pattern: RegExp): string[] {
  return readdirSync(join(root, folder)).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(join(root, path)).isDirectory()) return filesUnder(root, path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/** The TypeScript files each file imports by a relative path (packages are outside the graph). */
export function typescriptGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const isFile = (path: string) => existsSync(join(root, path)) && statSync(join(root, path)).isFile();
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName.replace(/\?.*$/, ''))
      .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
      .map((specifier) => posix.normalize(posix.join(posix.dirname(file), specifier)))
      .map((base) => [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find(isFile))
      .filter((target): target is string => target !== undefined && /\.tsx?$/.test(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The sibling modules each Python file imports (`import x`, `from x import …`, at any indentation). */
export function pythonGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const folder = posix.dirname(file);
    const modules = [
      ...readFileSync(join(root, file), 'utf8').matchAll(/^\s*(?:from\s+(\w+)\s+import|import\s+(\w+))/gm),
    ]
      .map((match) => `${folder}/${match[1] ?? match[2]}.py`)
      .filter((target) => files.includes(target));
    graph.set(file, [...new Set(modules)]);
  }
  return graph;
}

/** Every circle in the graph (Tarjan's strongly connected components of two or more files), files sorted. */
export function circles(graph: ModuleGraph): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) as number, order.get(target) as number));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}
