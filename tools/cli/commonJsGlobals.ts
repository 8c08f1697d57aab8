/** xgrammar's UMD bundle reaches for CommonJS globals under Node; neither Vite's module runner nor an ES module provides them. */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export function provideCommonJsGlobals(moduleUrl: string): void {
  Object.assign(globalThis, {
    require: createRequire(moduleUrl),
    __filename: fileURLToPath(moduleUrl),
    __dirname: dirname(fileURLToPath(moduleUrl)),
  });
}
