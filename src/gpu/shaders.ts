/**
 * The one place WGSL modules are composed. Each file under shaders/ states what it needs on its
 * `// Requires:` line; the graph below says the same (test/gpu/shaders.test.ts holds the two together),
 * and `composeWgsl` emits a kernel's modules dependencies first, each once. No module sets another's
 * private state: what crosses a file boundary is a function, a struct, a constant or a named binding.
 */
import acceptWgsl from '../../shaders/accept.wgsl?raw';
import philoxWgsl from '../../shaders/philox.wgsl?raw';
import probsWgsl from '../../shaders/probs.wgsl?raw';
import ratiosWgsl from '../../shaders/ratios.wgsl?raw';
import residualWgsl from '../../shaders/residual.wgsl?raw';
import sampleWgsl from '../../shaders/sample.wgsl?raw';
import u64Wgsl from '../../shaders/u64.wgsl?raw';
import workgroupWgsl from '../../shaders/workgroup.wgsl?raw';

export interface WgslModule {
  readonly name: string;
  readonly code: string;
  readonly requires: readonly WgslModule[];
}

const wgslModule = (name: string, code: string, requires: readonly WgslModule[] = []): WgslModule => ({ name, code, requires });

export const U64 = wgslModule('u64', u64Wgsl);
export const PHILOX = wgslModule('philox', philoxWgsl, [U64]);
export const WORKGROUP = wgslModule('workgroup', workgroupWgsl, [U64]);
export const RATIOS = wgslModule('ratios', ratiosWgsl);
export const RESIDUAL = wgslModule('residual', residualWgsl, [WORKGROUP]);
export const SAMPLE = wgslModule('sample', sampleWgsl, [U64, WORKGROUP, RESIDUAL]);
export const ACCEPT = wgslModule('accept', acceptWgsl, [PHILOX, WORKGROUP, RATIOS, RESIDUAL, SAMPLE]);
export const PROBS = wgslModule('probs', probsWgsl, [WORKGROUP]);

/** Every module of shaders/, by file name. */
export const SHADER_MODULES: readonly WgslModule[] = [U64, PHILOX, WORKGROUP, RATIOS, RESIDUAL, SAMPLE, ACCEPT, PROBS];

/** The WGSL of `entries` and everything they require, dependencies first, each module once. */
export function composeWgsl(...entries: readonly WgslModule[]): string {
  const emitted = new Set<WgslModule>();
  const parts: string[] = [];
  const visit = (module: WgslModule, path: readonly string[]) => {
    if (path.includes(module.name)) throw new Error(`WGSL modules require each other in a cycle: ${[...path, module.name].join(' → ')}`);
    if (emitted.has(module)) return;
    for (const required of module.requires) visit(required, [...path, module.name]);
    emitted.add(module);
    parts.push(`// ---- module ${module.name} ----\n${module.code}`);
  };
  for (const entry of entries) visit(entry, []);
  return parts.join('\n');
}
