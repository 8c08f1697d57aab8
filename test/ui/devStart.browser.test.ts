/**
 * `npm start` on a fresh clone: a clone of this commit with no Vite dependency cache, served by
 * `npm start` (Vite's dev server) and opened in headless Chromium, cold and then reloaded. The first paint is
 * dark with a loading line, Vite does not reload the page to re-bundle a dependency it found late, and the run
 * bar says what Run waits for until Run is enabled. The times to a usable Run are printed, not asserted
 * (docs/performance.md#npm-start-on-a-fresh-clone quotes them with the machine's load).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser';

const ROOT = resolve(import.meta.dirname, '../..');

describe('npm start on a fresh clone', () => {
  let clone: string;
  let server: ChildProcess | undefined;
  let output = '';
  let url = '';
  let browser: Browser | undefined;

  beforeAll(async () => {
    clone = mkdtempSync(join(tmpdir(), 'speclab-fresh-'));
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    // The installed packages as `npm ci` leaves them (hard links), without Vite's dependency cache.
    execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(clone, 'node_modules')]);
    rmSync(join(clone, 'node_modules', '.vite'), { recursive: true, force: true });
    server = spawn('npm', ['start', '--', '--host', '127.0.0.1', '--port', '0'], {
      cwd: clone,
      detached: true,
      env: { ...process.env, NO_COLOR: '1' },
    });
    url = await new Promise<string>((found, failed) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        // Vite's banner: "Local:   http://127.0.0.1:PORT/" (NO_COLOR: no escape codes in it).
        const match = /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
        if (match?.[1]) found(match[1]);
      };
      server?.stdout?.on('data', read);
      server?.stderr?.on('data', read);
      server?.on('exit', (code) => failed(new Error(`npm start exited (${code}): ${output}`)));
    });
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    // npm start's process group: npm and the Vite it started.
    if (server?.pid) process.kill(-server.pid, 'SIGTERM');
    rmSync(clone, { recursive: true, force: true });
  });

  it('paints dark with a loading line first, never reloads itself, and says what Run waits for until it is usable, cold and on reload', async () => {
    if (!browser) throw new Error('no browser');
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });
    const times: Record<string, number> = {};
    for (const visit of ['cold', 'reload'] as const) {
      const started = Date.now();
      if (visit === 'cold') await page.goto(url, { waitUntil: 'commit' });
      else await page.reload({ waitUntil: 'commit' });
      // The first paint: the document as the server sent it, before any module ran.
      await page.waitForSelector('#root', { state: 'attached' });
      const first = await page.evaluate(() => ({
        background: getComputedStyle(document.documentElement).backgroundColor,
        boot: document.querySelector('[data-testid="boot"]')?.textContent ?? null,
        app: document.querySelector('[data-testid="run-status"]') !== null,
      }));
      expect(first.background, visit).toBe('rgb(17, 20, 24)');
      if (!first.app) expect(first.boot, visit).toMatch(/^Loading SpecLab/);
      // Until Run is enabled, the run bar says what it waits for.
      const waiting = page.getByTestId('run-waiting');
      await waiting.waitFor({ timeout: 120_000 });
      expect(await waiting.textContent(), visit).toMatch(/^waiting for (the models|the engine)/);
      await page.getByRole('button', { name: 'Run', exact: true }).and(page.locator(':enabled')).waitFor({
        timeout: 180_000,
      });
      times[visit] = (Date.now() - started) / 1000;
      await expect(waiting.count(), visit).resolves.toBe(0);
    }
    // One navigation per visit: Vite never reloaded the page to re-bundle a dependency found late.
    expect(navigations).toHaveLength(2);
    expect(output).not.toMatch(/reloading|optimized dependencies changed/);
    console.log(
      `npm start on a fresh clone: Run usable ${times.cold?.toFixed(1)} s cold, ${times.reload?.toFixed(1)} s on reload (load average ${loadavg()[0]?.toFixed(2)})`,
    );
  }, 400_000);
});
