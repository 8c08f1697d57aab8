/** `npm run serve` as a child process (the real CLI, the bundled pair), for the tests that drive it over HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServeProcess {
  /** http://127.0.0.1:PORT */
  base: string;
  /** What it printed on stdout before listening, and everything on stderr so far. */
  banner: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

export async function startServe(args: string[]): Promise<ServeProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'tools/cli/runInVite.ts', '/tools/cli/serve.ts', '--port', '0', ...args],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => void (errors += chunk.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${errors}`)));
  });
  const port = /http:\/\/[^\s:]+:(\d+)/.exec(banner)?.[1];
  return {
    base: `http://127.0.0.1:${port}`,
    banner,
    stderr: () => errors,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
