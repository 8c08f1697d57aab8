// Node does not run a worker thread's TypeScript entry through tsx's hooks, so this entry imports it through tsx's API.
import { tsImport } from 'tsx/esm/api';

await tsImport('./serveCompileWorker.ts', import.meta.url);
