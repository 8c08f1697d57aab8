/**
 * tsx tools/cli/runInVite.ts <module> [args…]
 * Runs a tool module through Vite's SSR module runner, so that it imports the app's code exactly as the
 * app does (WGSL through `?raw`, the xgrammar UMD bundle inlined). The module exports `main(argv)`.
 */
import { parseCommand, helpText, UsageError } from './args';
import { commandForViteEntry } from './commands';
import { provideCommonJsGlobals } from './commonJsGlobals';

provideCommonJsGlobals(import.meta.url);

const [modulePath, ...argv] = process.argv.slice(2);
if (!modulePath) throw new Error('usage: runInVite.ts <module> [args…]');
// The command's options are checked (and --help answered) before Vite starts; the tool checks them again, with the app's ranges.
const spec = commandForViteEntry(modulePath);
if (spec) {
  try {
    if (parseCommand(spec, argv) === 'help') {
      console.log(helpText(spec));
      process.exit(0);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${spec.name}: ${error.message}`);
    process.exit(2);
  }
}
const { createServer } = await import('vite');
const server = await createServer({
  logLevel: 'warn',
  server: { middlewareMode: true, hmr: false, ws: false },
  ssr: { noExternal: ['@mlc-ai/web-xgrammar'] },
});
try {
  const tool = (await server.ssrLoadModule(modulePath)) as { main: (argv: string[]) => Promise<number> };
  process.exitCode = await tool.main(argv);
} finally {
  await server.close();
}
