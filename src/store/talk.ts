/**
 * Talk files (docs/presenting.md#talk-mode): a versioned JSON list of scenes a presentation clicker steps
 * through. A scene's run is written with the share link's keys and read back through the share link's one
 * decoder (./shareUrl.ts), so a talk is checked exactly as a link or the form is. A talk file is untrusted
 * input: every field is checked, a problem is one message naming the scene and the field, and captions are
 * only ever rendered as text.
 */
import { boundedFetch, BoundedReadError, DEFAULT_TIMEOUTS } from '../contract/boundedFetch';
import { TALK_LIMITS } from '../contract/limits';
import type { NetworkTimeouts } from '../contract/protocol';
import { BUNDLED_PAIR_IDS } from '../contract/modelPairs';
import type { ExecutionProvider } from '../contract/protocol';
import { describeK, isBaseline, presetParams, reportedK, type RunParams } from '../contract/runParams';
import { SCHEMA_PRESETS } from '../contract/presets';
import { decodeShare, encodeShare, PROVIDERS, type DecodedShare } from './shareUrl';
import { hasOwnKey } from '../contract/ownKeys';
import { CLAIM_TEXT, RUN_CLAIMS, SCENE_CLAIMS, type SceneClaim } from '../contract/sceneClaims';

export const TALK_FORMAT = 'speclab-talk';
export const TALK_VERSION = 1;

/** What a scene shows, by name; the same names as `?embed=` (src/ui/embed.ts). */
export const VIEWS = [
  'output',
  'counters',
  'inspector',
  'tree',
  'grid',
  'race',
  'chart-histogram',
  'chart-ratios',
  'chart-counters',
  'chart-mean-length',
  'chart-per-position',
] as const;
export type ViewName = (typeof VIEWS)[number];

/** A talk names only the bundled pairs (BUNDLED_PAIR_IDS), which need no network. */

/** The share link's keys, which a scene's `run` may set. */
const RUN_KEYS = [
  'method',
  'K',
  'L',
  't',
  'seed',
  'max',
  'drafting',
  'drafter',
  'preset',
  'prompt',
  'p',
  'schema',
  'trigger',
] as const;
const SCENE_KEYS = ['caption', 'run', 'pair', 'provider', 'presentation', 'stop', 'view', 'step', 'shows'] as const;

/**
 * The views where each claim can be seen (src/ui/views.ts `CLAIM_SELECTORS` names the element in each): a
 * rejection is a node of the tree or a cell of the grid, not a chart.
 */
export const CLAIM_VIEWS: Readonly<Record<SceneClaim, readonly ViewName[]>> = {
  'target-alone': ['output'],
  acceptance: [
    'tree',
    'grid',
    'inspector',
    'counters',
    'chart-histogram',
    'chart-ratios',
    'chart-counters',
    'chart-mean-length',
    'chart-per-position',
  ],
  invalidation: ['tree', 'grid', 'inspector', 'counters'],
  rejection: ['tree', 'grid', 'inspector'],
  residual: ['tree', 'grid', 'inspector'],
  branching: ['tree', 'inspector'],
  'block-acceptance': ['grid', 'inspector'],
  race: ['race'],
};

/**
 * Where a scene's run stops: after its last step, a race of every method, paused at the step that shows the
 * scene's claim (`shown`), or paused after each of a list of step counts in turn (the clicker's "next" goes on
 * to the next count; a number is a list of one). With a claim, a list pauses first at the step that shows it,
 * then at the listed counts past that step.
 */
export type SceneStop = 'end' | 'race' | 'shown' | number[];

/** The most stops one scene may list. */
const MAX_STOPS = 64;

export interface TalkScene {
  caption: string;
  run: DecodedShare;
  pair: string;
  provider: ExecutionProvider | 'auto';
  presentation: boolean;
  stop: SceneStop;
  view: ViewName;
  /** The step (from 1) the tree and the inspector show once the run reaches it; absent: the latest. */
  step?: number;
  /**
   * What the scene demonstrates (src/contract/sceneClaims.ts): loading the talk finds the first step of the
   * scene's run that shows it, and the scene opens on that step; absent: the scene claims nothing checkable.
   */
  shows?: SceneClaim;
}

export interface Talk {
  title: string;
  scenes: TalkScene[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (names: readonly string[]) => names.join(', ');

function unknownKey(record: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(record).find((key) => !allowed.includes(key));
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TalkError(`${what} must be a string`);
  if (value.length > TALK_LIMITS.captionChars)
    throw new TalkError(`${what} is ${value.length} characters; at most ${TALK_LIMITS.captionChars}`);
  return value;
}

class TalkError extends Error {}

function parseRun(value: unknown, where: string): DecodedShare {
  if (value === undefined) value = {};
  if (!isRecord(value))
    throw new TalkError(`${where}: "run" must be an object with the share link's keys (${list(RUN_KEYS)})`);
  const extra = unknownKey(value, RUN_KEYS);
  if (extra !== undefined)
    throw new TalkError(`${where}: "run" has an unknown key ${JSON.stringify(extra)}; the keys are ${list(RUN_KEYS)}`);
  for (const [key, field] of Object.entries(value)) {
    if (typeof field !== 'string' && typeof field !== 'number')
      throw new TalkError(`${where}: run.${key} must be a string or a number`);
  }
  // Keys the scene leaves out take the preset's defaults (the first preset's when it names none).
  const presetId = typeof value.preset === 'string' ? value.preset : (SCHEMA_PRESETS[0]?.id ?? 'custom');
  const preset = SCHEMA_PRESETS.find((candidate) => candidate.id === presetId) ?? SCHEMA_PRESETS[0];
  if (!preset) throw new TalkError('no presets');
  const defaults: RunParams = presetParams(preset);
  const query = new URLSearchParams(encodeShare({ params: defaults, preset: preset.id }).slice('#run?'.length));
  for (const [key, field] of Object.entries(value)) query.set(key, String(field));
  const decoded = decodeShare(`#run?${query.toString()}`, defaults);
  if (!decoded) throw new TalkError(`${where}: "run" could not be read`);
  const problem = Object.values(decoded.errors)[0];
  // The share link's messages say "the link's K"; in a talk it is the scene's.
  if (problem !== undefined) throw new TalkError(`${where}: ${problem.replace(/^the link/, 'the run')}`);
  return decoded;
}

const isStepCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 512;

function parseStop(value: unknown, where: string): SceneStop {
  if (value === undefined || value === 'end' || value === 'race' || value === 'shown') return value ?? 'end';
  if (isStepCount(value)) return [value];
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= MAX_STOPS &&
    value.every(isStepCount) &&
    value.every((count, i) => i === 0 || count > (value[i - 1] as number))
  )
    return value;
  throw new TalkError(
    `${where}: "stop" must be "end", "race", "shown", a whole number of steps from 1 to 512, or a rising list of at most ${MAX_STOPS} of them`,
  );
}

function parseShownStep(value: unknown, where: string): number {
  if (isStepCount(value)) return value;
  throw new TalkError(`${where}: "step" (the step shown) must be a whole number of steps from 1 to 512`);
}

/**
 * Why a scene's settings can never show its claim, before anything runs (a race claim without a race, an
 * invalidation where drafting is constrained so the grammar has nothing to strike out), or null.
 */
function claimImpossible(claim: SceneClaim, run: DecodedShare, stop: SceneStop, view: ViewName): string | null {
  const { method, K, drafting, schemaText } = run.params;
  if (!CLAIM_VIEWS[claim].includes(view))
    return `view "${view}" cannot show it; use ${list(CLAIM_VIEWS[claim].map((name) => `"${name}"`))}`;
  if ((claim === 'race') !== (stop === 'race'))
    return claim === 'race' ? 'its "stop" must be "race"' : 'a race scene shows the race ("shows": "race")';
  if (claim === 'race') return null;
  if ((claim === 'target-alone') !== (method === 'ar'))
    return claim === 'target-alone'
      ? `its method is ${method}, not ar`
      : 'its method is ar, which drafts nothing (use "target-alone")';
  if (claim === 'branching' && (isBaseline(method) || reportedK(method, K) < 2))
    return `${method} with K = ${K} verifies one draft, which cannot branch; use a multi-draft method with K ≥ 2`;
  if (claim === 'block-acceptance' && method !== 'gbv' && method !== 'spectr-gbv')
    return `${method} tests token by token; block tests are gbv's and spectr-gbv's`;
  if (claim === 'invalidation' && (schemaText === null || drafting !== 'validate'))
    return schemaText === null
      ? 'its run has no schema'
      : 'its drafting is "constrained" (drafts are sampled under the mask, so none is struck out); use "validate"';
  return null;
}

function parseClaim(value: unknown, scene: Omit<TalkScene, 'shows'>, where: string): SceneClaim {
  if (!SCENE_CLAIMS.includes(value as SceneClaim))
    throw new TalkError(`${where}: "shows" must be one of ${list(SCENE_CLAIMS)}`);
  const claim = value as SceneClaim;
  if (scene.step !== undefined)
    throw new TalkError(`${where}: "step" and "shows" both choose the step shown; keep "shows" (the step is found)`);
  const impossible = claimImpossible(claim, scene.run, scene.stop, scene.view);
  if (impossible !== null) throw new TalkError(`${where} shows "${claim}" (${CLAIM_TEXT[claim]}), but ${impossible}`);
  return claim;
}

function parseScene(value: unknown, index: number): TalkScene {
  const where = `scene ${index + 1}`;
  if (!isRecord(value)) throw new TalkError(`${where} must be an object`);
  const extra = unknownKey(value, SCENE_KEYS);
  if (extra !== undefined)
    throw new TalkError(`${where} has an unknown key ${JSON.stringify(extra)}; the keys are ${list(SCENE_KEYS)}`);
  const pair = value.pair ?? 'bundled';
  if (typeof pair !== 'string' || !hasOwnKey(BUNDLED_PAIR_IDS, pair))
    throw new TalkError(`${where}: "pair" must be one of ${list(Object.keys(BUNDLED_PAIR_IDS))}`);
  const provider = value.provider ?? 'auto';
  if (!PROVIDERS.includes(provider as ExecutionProvider))
    throw new TalkError(`${where}: "provider" must be one of ${list(PROVIDERS)}`);
  const presentation = value.presentation ?? true;
  if (typeof presentation !== 'boolean') throw new TalkError(`${where}: "presentation" must be true or false`);
  const view = value.view ?? 'output';
  if (!VIEWS.includes(view as ViewName)) throw new TalkError(`${where}: "view" must be one of ${list(VIEWS)}`);
  const scene = {
    caption: text(value.caption ?? '', `${where}: "caption"`),
    run: parseRun(value.run, where),
    pair,
    provider: provider as ExecutionProvider | 'auto',
    presentation,
    stop: parseStop(value.stop, where),
    view: view as ViewName,
    ...(value.step === undefined ? {} : { step: parseShownStep(value.step, where) }),
  };
  if (value.shows === undefined && scene.stop === 'shown')
    throw new TalkError(`${where}: "stop": "shown" pauses at the step that shows the scene's claim; give "shows"`);
  return value.shows === undefined ? scene : { ...scene, shows: parseClaim(value.shows, scene, where) };
}

/** Whether a scene's claim is one a step shows, found by running the scene (`race` is the race itself). */
export const claimsStep = (scene: TalkScene): scene is TalkScene & { shows: SceneClaim } =>
  scene.shows !== undefined && !RUN_CLAIMS.includes(scene.shows);

/**
 * The step counts a scene's run pauses at, given the step found to show its claim (`found`, once checked): the
 * step found, then the listed counts past it; without a claim, the list as written.
 */
export function sceneStops(scene: TalkScene, found: number | undefined): number[] {
  if (scene.stop === 'shown') return found === undefined ? [] : [found];
  if (!Array.isArray(scene.stop)) return [];
  return found === undefined ? scene.stop : [found, ...scene.stop.filter((count) => count > found)];
}

/** The one line a talk is refused with when scene `index`'s run never shows its claim. */
export function claimMissing(talk: Talk, index: number): string {
  const scene = talk.scenes[index];
  if (!scene?.shows) return `This talk cannot be used: scene ${index + 1} claims nothing.`;
  const { method, K, L, seed, maxTokens } = scene.run.params;
  return `This talk cannot be used: scene ${index + 1} shows "${scene.shows}" (${CLAIM_TEXT[scene.shows]}), but its run (${method}, ${describeK(method, K)}, L = ${L}, seed ${seed}, ${maxTokens} tokens) never does; choose another seed or settings.`;
}

/** A talk file's text read back: the talk, or one message that says what is wrong and where. Never throws. */
export function parseTalk(source: string): { talk: Talk } | { error: string } {
  try {
    if (source.length > TALK_LIMITS.fileChars)
      throw new TalkError(`the file is ${source.length} characters; a talk may have at most ${TALK_LIMITS.fileChars}`);
    let json: unknown;
    try {
      json = JSON.parse(source);
    } catch (error) {
      throw new TalkError(`it is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!isRecord(json) || json.format !== TALK_FORMAT)
      throw new TalkError(`it is not a talk: a talk is a JSON object with "format": "${TALK_FORMAT}"`);
    if (json.version !== TALK_VERSION)
      throw new TalkError(`"version" must be ${TALK_VERSION} (this file says ${JSON.stringify(json.version ?? null)})`);
    const extra = unknownKey(json, ['format', 'version', 'title', 'scenes']);
    if (extra !== undefined)
      throw new TalkError(`unknown key ${JSON.stringify(extra)}; the keys are format, version, title, scenes`);
    if (!Array.isArray(json.scenes) || json.scenes.length === 0)
      throw new TalkError('"scenes" must be a non-empty list');
    if (json.scenes.length > TALK_LIMITS.scenes)
      throw new TalkError(`${json.scenes.length} scenes; a talk may have at most ${TALK_LIMITS.scenes}`);
    return { talk: { title: text(json.title ?? '', '"title"'), scenes: json.scenes.map(parseScene) } };
  } catch (error) {
    if (error instanceof TalkError) return { error: `This talk file cannot be used: ${error.message}.` };
    throw error;
  }
}

/** The most bytes a talk file may be: TALK_LIMITS.fileChars characters, each at most 3 bytes of UTF-8. */
export const TALK_MAX_BYTES = TALK_LIMITS.fileChars * 3;

/** A talk that could not be downloaded: the message says why (status, size, timeout or cancel), for "could not be read: …". */
export class TalkDownloadError extends Error {
  override name = 'TalkDownloadError';
}

/**
 * A talk file's text from `url`, read through the app's one bounded reader (src/contract/boundedFetch.ts): the
 * server must answer within 15 s and keep sending, the body may be at most TALK_MAX_BYTES (refused from its
 * Content-Length, else stopped at the first chunk past it; a gzip body is counted as it is unpacked), and
 * `signal` cancels it. A missing file is "not found (404)", not a JSON error about a server's error page.
 */
export async function downloadTalk(
  url: URL,
  signal: AbortSignal,
  timeouts: NetworkTimeouts = DEFAULT_TIMEOUTS,
): Promise<string> {
  const checkResponse = (response: Response) => {
    if (response.status === 404) throw new TalkDownloadError('not found (404)');
    if (!response.ok)
      throw new TalkDownloadError(
        `the server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      );
    if (response.headers.get('content-type')?.includes('text/html'))
      throw new TalkDownloadError('the server sent a web page, not a talk file');
  };
  try {
    const bytes = await boundedFetch(url, {
      limit: { bytes: TALK_MAX_BYTES, why: 'the most a talk file may be' },
      timeouts,
      signal,
      checkResponse,
    });
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof TalkDownloadError || error instanceof BoundedReadError) throw error;
    // A refused connection, a CORS refusal and a blocked URL all read "Failed to fetch".
    throw new TalkDownloadError(`the download failed (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** A scene holding the run as it stands, for "Add to talk": the share link's keys, and the scene's other fields. */
export function sceneJson(
  scene: Omit<TalkScene, 'run'> & { run: { params: RunParams; preset: DecodedShare['preset'] } },
): Record<string, unknown> {
  const query = new URLSearchParams(encodeShare(scene.run).slice('#run?'.length));
  const run = Object.fromEntries(
    [...query.entries()].map(([key, value]) => [
      key,
      ['K', 'L', 't', 'seed', 'max', 'p'].includes(key) ? Number(value) : value,
    ]),
  );
  const stop = Array.isArray(scene.stop) && scene.stop.length === 1 ? scene.stop[0] : scene.stop;
  return {
    caption: scene.caption,
    run,
    pair: scene.pair,
    provider: scene.provider,
    presentation: scene.presentation,
    stop,
    view: scene.view,
    ...(scene.step === undefined ? {} : { step: scene.step }),
    ...(scene.shows === undefined ? {} : { shows: scene.shows }),
  };
}

/** A talk file's text from scenes made by `sceneJson`. */
export function talkJson(title: string, scenes: readonly Record<string, unknown>[]): string {
  return `${JSON.stringify({ format: TALK_FORMAT, version: TALK_VERSION, title, scenes }, null, 2)}\n`;
}
