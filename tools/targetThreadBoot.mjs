// Node does not run a worker thread's TypeScript entry through tsx's hooks, so this entry imports it through tsx's API.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.entry, import.meta.url);
