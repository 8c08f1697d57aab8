import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_DRAFT_LENGTH } from '../../src/contract/limits';
import { GPU_VERIFIER_IDS, wgslMethodCode, wgslMethodConstant } from '../../src/core/verify';
import { encodeRecords, recordLayout, wgslStruct } from '../../src/gpu/records';
import {
  ACCEPT,
  PROBLEM_RECORD,
  PROB_ROW_RECORD,
  SHADER_MODULES,
  VERIFY_RECORDS,
  composeWgsl,
  type WgslModule,
} from '../../src/gpu/shaders';

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
      expect({ module: module.name, requires: statedRequirements(code) }).toEqual({
        module: module.name,
        requires: module.requires.map((m) => m.name),
      });
    }
  });

  it('generates a METHOD_* constant for each registry entry with a WGSL case, and accept.wgsl has a case for each', () => {
    const accept = readFileSync(new URL('accept.wgsl', SHADER_DIR), 'utf8');
    for (const id of GPU_VERIFIER_IDS) {
      expect(VERIFY_RECORDS.code).toContain(`const ${wgslMethodConstant(id)}: u32 = ${wgslMethodCode(id)}u;`);
      expect(accept).toContain(`case ${wgslMethodConstant(id)}:`);
    }
    expect(VERIFY_RECORDS.code).toContain(`const MAX_DRAFT_LENGTH: u32 = ${MAX_DRAFT_LENGTH}u;`);
  });

  it('lays records out by WGSL rules: a vec2<u32> aligns to 8 bytes, a struct rounds up to its alignment', () => {
    expect(PROBLEM_RECORD.offsets.key).toBe(8);
    expect(PROBLEM_RECORD.words).toBe(14);
    expect(PROB_ROW_RECORD.words).toBe(8);
    const odd = recordLayout('Odd', [
      { name: 'a', type: 'u32' },
      { name: 'b', type: 'vec2<u32>' },
      { name: 'c', type: 'f32' },
    ]);
    expect([odd.offsets.a, odd.offsets.b, odd.offsets.c, odd.words]).toEqual([0, 2, 4, 6]);
    const bytes = encodeRecords(odd, [{ a: 7, b: [8, 9], c: 0.5 }]);
    expect([...new Uint32Array(bytes).subarray(0, 4)]).toEqual([7, 0, 8, 9]);
    expect(new Float32Array(bytes)[4]).toBe(0.5);
    expect(wgslStruct(odd)).toBe('struct Odd {\n  a: u32,\n  b: vec2<u32>,\n  c: f32,\n}\n');
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
