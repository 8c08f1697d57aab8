// xgrammar's UMD bundle reaches for CommonJS globals under Node; an ES module run by tsx has none.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

Object.assign(globalThis, { require: createRequire(import.meta.url), __filename: fileURLToPath(import.meta.url), __dirname: dirname(fileURLToPath(import.meta.url)) });
