/**
 * npm run bench:load -- [--rounds 3] [--warm-up 1] [--against <git ref>] [--reuse | --dist DIR] [--no-first-run]
 * The phases from navigation to "run usable" (the first token of a run pressed the moment the Run button is
 * enabled; with --no-first-run, the button enabled) on the production build served by
 * `vite preview`, read from the User Timing entries the page and the engine's worker record
 * (src/core/timeline.ts) and from Resource Timing. Each round opens the app in a fresh browser profile
 * (cold), then reloads it in the same profile (reload), each time pressing Run as soon as it is enabled and
 * timing that run to its end. Warm-up rounds are not
 * counted. With --against, a build of that git ref (in a temporary worktree) alternates with this tree's
 * build round by round (each served with its own tree's preview config), and the figures come with their
 * ratios, round by round, so that a shared machine's drift hits both alike.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { createHash } from 'node:crypto';
import { UsageError, checkOrExit, distOption, parseOrExit } from './args';
import { COMMANDS } from './commands';
import { TIMELINE_PREFIX } from '../../src/core/timeline';

const spec = COMMANDS['bench:load'];
const { values } = parseOrExit(spec, process.argv.slice(2));
const dist = checkOrExit(spec, () => {
  if (values.dist === undefined) return null;
  if (values.reuse) throw new UsageError('give --reuse or --dist, not both');
  return distOption(values.dist);
});
const { chromium } = await import('playwright-core');
const { CHROMIUM_ARGS, CHROMIUM_PATH } = await import('../../test/support/browser');
const { build, preview } = await import('vite');
const rounds = Number(values.rounds);
const warmUpRounds = Number(values['warm-up']);
const firstRun = !values['no-first-run'];
const repoRoot = resolve(import.meta.dirname, '../..');
// One folder per clone (named by its path), so that two clones never overwrite each other's builds.
const buildsDir = join(
  tmpdir(),
  `speclab-bench-load-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 12)}`,
);

interface Build {
  label: string;
  root: string;
  outDir: string;
}

async function buildTree(label: string, root: string, outDir: string, reuse: boolean): Promise<Build> {
  if (!(reuse && existsSync(join(outDir, 'index.html')))) {
    console.log(`building ${label} …`);
    await build({
      root,
      configFile: join(root, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  }
  return { label, root, outDir };
}

/**
 * A build of `ref` (made once per commit), served from a temporary worktree that shares this tree's
 * node_modules, with that ref's own preview config (its headers), exactly as it would be served.
 * `cleanUp` removes the worktree.
 */
async function buildRef(ref: string, cleanUp: (() => void)[]): Promise<Build> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).trim();
  const worktree = mkdtempSync(join(tmpdir(), 'speclab-against-'));
  execFileSync('git', ['worktree', 'add', '--detach', worktree, commit], { cwd: repoRoot, stdio: 'ignore' });
  cleanUp.push(() =>
    execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: repoRoot, stdio: 'ignore' }),
  );
  symlinkSync(join(repoRoot, 'node_modules'), join(worktree, 'node_modules'));
  return buildTree(ref, worktree, join(buildsDir, commit), true);
}

/**
 * Marks the moment the Run button becomes enabled and, with `click`, presses it at that moment, as an impatient
 * speaker would, and marks the moment its first token is on screen: "run usable", the start-up figure. An
 * enabled button whose run waits behind the warm-up or the grammar engine is not usable yet. Injected before
 * the page's own scripts.
 */
const runWatch = (click: boolean) => `(() => {
  let enabled = false;
  const observer = new MutationObserver(() => {
    if (!enabled) {
      const run = Array.from(document.querySelectorAll('button')).find((button) => button.textContent === 'Run');
      if (!run || run.disabled) return;
      enabled = true;
      performance.mark('${TIMELINE_PREFIX}run enabled');
      if (!${click}) return observer.disconnect();
      run.click();
    }
    if (document.querySelector('[data-testid="token-stream"] [data-position]')) {
      performance.mark('${TIMELINE_PREFIX}run usable');
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
})()`;

/** A phase: start and end in ms from navigation; bytes over the network for a resource (0: from the cache). */
interface Phase {
  start: number;
  end: number;
  transferred?: number;
}
type Timeline = Map<string, Phase>;

interface RawEntry {
  name: string;
  entryType: string;
  startTime: number;
  duration: number;
  transferSize?: number;
  responseEnd?: number;
}

const READ_ENTRIES = `({ origin: performance.timeOrigin, entries: performance.getEntries().map((e) => ({ name: e.name, entryType: e.entryType, startTime: e.startTime, duration: e.duration, transferSize: e.transferSize, responseEnd: e.responseEnd })) })`;

/** Resources worth a line: the app's scripts (lib: xgrammar) and wasm, and the model files. */
const resourceName = (url: string): string | null => {
  const path = new URL(url).pathname;
  if (/\.(wasm|onnx)$/.test(path)) return `fetch ${path.split('/').slice(-3).join('/')} (resource)`;
  if (/\/assets\/(index|app|lib|worker|ort[\w.]*)-[^/]*\.js$/.test(path))
    return `fetch ${path
      .split('/')
      .pop()
      ?.replace(/-[\w-]+\.js$/, '.js')} (resource)`;
  return null;
};

/** onnxruntime-web's bundle, which its wasm threads run as workers (ort.wasm.bundle.min-<hash>.js once built). */
const ONNXRUNTIME_WORKER = /\/ort[.-][^/]*\.m?js(\?|$)/;

async function readTimeline(page: Page): Promise<Timeline> {
  const timeline: Timeline = new Map();
  const pageEntries = (await page.evaluate(READ_ENTRIES)) as { origin: number; entries: RawEntry[] };
  const add = (entries: RawEntry[], offset: number) => {
    for (const entry of entries) {
      const start = entry.startTime + offset;
      if (entry.name.startsWith(TIMELINE_PREFIX)) {
        // A phase that ran more than once (two models) keeps its first start and last end.
        const name = entry.name.slice(TIMELINE_PREFIX.length);
        const seen = timeline.get(name);
        const phase = { start, end: start + entry.duration };
        timeline.set(
          name,
          seen ? { start: Math.min(seen.start, phase.start), end: Math.max(seen.end, phase.end) } : phase,
        );
      } else if (entry.entryType === 'resource') {
        const name = resourceName(entry.name);
        // Chromium reports a worker script's responseEnd before its startTime: such a fetch shows as an instant.
        if (name)
          timeline.set(name, {
            start,
            end: Math.max(start, (entry.responseEnd ?? 0) + offset),
            transferred: entry.transferSize ?? 0,
          });
      } else if (entry.entryType === 'navigation') {
        timeline.set('navigation response', { start: 0, end: entry.responseEnd ?? 0 });
      }
    }
  };
  add(pageEntries.entries, 0);
  // onnxruntime's own thread workers (wasm threads on a cross-origin-isolated page) record no phases and wait in
  // Atomics.wait between forwards, where an evaluate never returns: only the app's workers are read.
  for (const worker of page.workers().filter((candidate) => !ONNXRUNTIME_WORKER.test(candidate.url()))) {
    const workerEntries = (await worker.evaluate(READ_ENTRIES)) as { origin: number; entries: RawEntry[] };
    add(workerEntries.entries, workerEntries.origin - pageEntries.origin);
  }
  return timeline;
}

/** The moment start-up is timed to: the first token of a run pressed at once, or (without it) the Run button enabled. */
const READY_MARK = firstRun ? 'run usable' : 'run enabled';

const waitForReady = (page: Page) =>
  // A function, not a string: Playwright would evaluate a string predicate with eval, which the CSP forbids.
  page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, `${TIMELINE_PREFIX}${READY_MARK}`, {
    polling: 200,
    timeout: 180_000,
  });

/** The ms from the Run press at "run enabled" to that run's end, watched by a MutationObserver (no polling). */
async function timeFirstRun(page: Page): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const status = document.querySelector('[data-testid="run-status"]');
    const pressed = performance.getEntriesByName('${TIMELINE_PREFIX}run enabled')[0].startTime;
    const finish = () => { observer.disconnect(); resolve(performance.now() - pressed); };
    const observer = new MutationObserver(() => status.textContent === 'done' && finish());
    observer.observe(status, { childList: true, characterData: true, subtree: true });
    if (status.textContent === 'done') finish();
  })`) as Promise<number>;
}

/** The wait between the cold load (and its run) and the reload. */
const SETTLE_MS = 20_000;

interface RoundResult {
  cold: Timeline;
  reload: Timeline;
  firstRunMs: number | null;
}

async function measureRound(server: PreviewServer): Promise<RoundResult> {
  const profile = mkdtempSync(join(tmpdir(), 'speclab-profile-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 720 },
    });
    await context.addInitScript(runWatch(firstRun));
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(server.resolvedUrls?.local[0] as string);
    await waitForReady(page);
    const cold = await readTimeline(page);
    // The cold load's run ends and its deferred work (onnxruntime's 14 MB wasm tiering up, cache writes) settles
    // before the reload is timed. 1 s after the run's end was not enough: the reload timed that work too, the
    // more so the sooner the cold load had finished (2026-12-06: reload 2.96 s after 1 s, 2.12 s after 20 s).
    if (firstRun) await timeFirstRun(page);
    await page.waitForTimeout(SETTLE_MS);
    await page.reload();
    await waitForReady(page);
    const reload = await readTimeline(page);
    const firstRunMs = firstRun ? await timeFirstRun(page) : null;
    return { cold, reload, firstRunMs };
  } finally {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const spread = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
const figure = (xs: number[]) => (xs.length === 0 ? '' : `${Math.round(median(xs))} [${spread(xs)}]`);

function printTable(title: string, timelines: Timeline[]): void {
  const names = [...new Set(timelines.flatMap((timeline) => [...timeline.keys()]))];
  const byStart = (name: string) => median(timelines.map((timeline) => timeline.get(name)?.start ?? Infinity));
  names.sort((a, b) => byStart(a) - byStart(b));
  console.log(`\n${title}: ms from navigation, median [min–max] over ${timelines.length} rounds`);
  console.log(
    `${'phase'.padEnd(44)}${'start'.padStart(18)}${'end'.padStart(18)}${'duration'.padStart(18)}  network bytes`,
  );
  for (const name of names) {
    const phases = timelines
      .map((timeline) => timeline.get(name))
      .filter((phase): phase is Phase => phase !== undefined);
    const bytes = phases.map((phase) => phase.transferred).filter((value): value is number => value !== undefined);
    console.log(
      `${name.padEnd(44)}${figure(phases.map((p) => p.start)).padStart(18)}${figure(phases.map((p) => p.end)).padStart(18)}${figure(phases.map((p) => p.end - p.start)).padStart(18)}  ${bytes.length ? Math.round(median(bytes)) : ''}`,
    );
  }
}

const readyMs = (timeline: Timeline) => timeline.get(READY_MARK)?.start ?? NaN;

mkdirSync(buildsDir, { recursive: true });
const cleanUp: (() => void)[] = [];
let servers: PreviewServer[] = [];
try {
  const builds: Build[] = [
    dist === null
      ? await buildTree('this tree', repoRoot, join(buildsDir, 'worktree'), values.reuse)
      : { label: 'this tree', root: repoRoot, outDir: dist },
  ];
  if (values.against) builds.push(await buildRef(values.against, cleanUp));
  servers = await Promise.all(
    builds.map((b) =>
      preview({
        root: b.root,
        configFile: join(b.root, 'vite.config.ts'),
        logLevel: 'warn',
        build: { outDir: b.outDir },
        preview: { port: 0, host: '127.0.0.1' },
      }),
    ),
  );
  const results: RoundResult[][] = builds.map(() => []);
  for (let round = -warmUpRounds; round < rounds; round++) {
    // Alternate which build goes first, so that neither always runs on a machine the other just warmed.
    const order = builds.map((_, i) => i);
    if (round % 2 !== 0) order.reverse();
    for (const i of order) {
      const result = await measureRound(servers[i] as PreviewServer);
      const note = `${builds[i]?.label}: ${READY_MARK} cold ${Math.round(readyMs(result.cold))} ms, reload ${Math.round(readyMs(result.reload))} ms${result.firstRunMs === null ? '' : `, first run ${Math.round(result.firstRunMs)} ms`}`;
      console.log(round < 0 ? `warm-up round: ${note}` : `round ${round + 1}: ${note}`);
      if (round >= 0) results[i]?.push(result);
    }
  }
  builds.forEach((b, i) => {
    const rows = results[i] as RoundResult[];
    printTable(
      `${b.label}, cold (fresh profile)`,
      rows.map((r) => r.cold),
    );
    printTable(
      `${b.label}, reload (same profile)`,
      rows.map((r) => r.reload),
    );
    const runs = rows.map((r) => r.firstRunMs).filter((ms): ms is number => ms !== null);
    if (runs.length)
      console.log(
        `\n${b.label}: the run pressed at "run enabled", after the reload (press → done): ${figure(runs)} ms`,
      );
  });
  console.log(
    firstRun
      ? '\nrun usable = the first token of a run pressed the moment Run is enabled, ms from navigation: median [min–max]'
      : '\nrun enabled = the Run button enabled, ms from navigation: median [min–max]',
  );
  builds.forEach((b, i) => {
    const rows = results[i] as RoundResult[];
    console.log(
      `${b.label.padEnd(12)} cold ${figure(rows.map((r) => readyMs(r.cold))).padEnd(22)} reload ${figure(rows.map((r) => readyMs(r.reload)))}`,
    );
  });
  if (builds.length === 2) {
    // Ratios round by round: both builds of a round ran back to back on the same machine state.
    const [mine, theirs] = results as [RoundResult[], RoundResult[]];
    const ratio = (pick: (r: RoundResult) => number) => mine.map((r, i) => pick(r) / pick(theirs[i] as RoundResult));
    const show = (xs: number[]) =>
      `${median(xs).toFixed(2)}× [${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}]`;
    console.log(
      `this tree / ${values.against}: cold ${show(ratio((r) => readyMs(r.cold)))}, reload ${show(ratio((r) => readyMs(r.reload)))}`,
    );
  }
} finally {
  await Promise.all(servers.map((server) => server.close()));
  for (const step of cleanUp) step();
}
