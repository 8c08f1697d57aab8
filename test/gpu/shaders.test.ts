import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACCEPT, SHADER_MODULES, composeWgsl, type WgslModule } from '../../src/gpu/shaders';

const SHADER_DIR = new URL('../../shaders/', import.meta.url);

/** The names on a WGSL file's `// Requires:` line. */
function statedRequirements(code: string): string[] {
  const line = /^\/\/ Requires: (.*)\.$/m.exec(code);
  if (!line) throw new Error('no "// Requires:" line');
  return line[1] === 'nothing' ? [] : (line[1] as string).split(', ');
}

describe('WGSL modules state their dependencies, and one place composes them', () => {
  it('has a module for every file under shaders/, each requiring what its header states', () => {
    const files = readdirSync(SHADER_DIR).filter((name) => name.endsWith('.wgsl'));
    expect(SHADER_MODULES.map((module) => `${module.name}.wgsl`).sort()).toEqual(files.sort());
    for (const module of SHADER_MODULES) {
      const code = readFileSync(new URL(`${module.name}.wgsl`, SHADER_DIR), 'utf8');
      expect({ module: module.name, requires: statedRequirements(code) }).toEqual({ module: module.name, requires: module.requires.map((m) => m.name) });
    }
  });

  it('emits each module once, after everything it requires', () => {
    const code = composeWgsl(ACCEPT);
    const order = [...code.matchAll(/^\/\/ ---- module (\w+) ----$/gm)].map((match) => match[1] as string);
    expect(new Set(order).size).toBe(order.length);
    const visit = (module: WgslModule) => {
      for (const required of module.requires) {
        expect(order.indexOf(required.name)).toBeLessThan(order.indexOf(module.name));
        visit(required);
      }
    };
    visit(ACCEPT);
    expect(order.at(-1)).toBe('accept');
  });

  it('refuses a cycle', () => {
    const a: { name: string; code: string; requires: WgslModule[] } = { name: 'a', code: '', requires: [] };
    const b: WgslModule = { name: 'b', code: '', requires: [a] };
    a.requires.push(b);
    expect(() => composeWgsl(a)).toThrow(/cycle: a → b → a/);
  });
});
