/**
 * Every run parameter and the seed in a URL fragment, so a shared link reproduces a run exactly. The
 * fragment never reaches a server; it is untrusted input, read back through the same validation as the form
 * (src/contract/validation.ts): a bad field is reported next to that field, never thrown.
 */
import type { LimitedParam } from '../contract/limits';
import { parseNumber, validateRunParams, type FieldErrors, type RunParamsInput } from '../contract/validation';
import { presetParams, type RunParams } from '../contract/runParams';
import { SCHEMA_PRESETS, type SchemaPreset } from '../contract/presets';
import { BUNDLED_PAIR_IDS } from '../contract/modelPairs';
import type { ExecutionProvider } from '../contract/protocol';
import { hasOwnKey } from '../contract/ownKeys';

export type PresetChoice = SchemaPreset['id'] | 'custom' | 'free';

export const PROVIDERS: readonly (ExecutionProvider | 'auto')[] = ['auto', 'wasm', 'webgpu'];

/** Where and how a shared run is shown: the bundled pair by name (BUNDLED_PAIR_IDS), the runtime, presentation mode. */
export interface ShareSetup {
  pair: string;
  provider: ExecutionProvider | 'auto';
  presentation: boolean;
}

export interface SharedRun {
  params: RunParams;
  preset: PresetChoice;
  /** Absent from links made before these keys existed (and from a Hub pair's link: the Hub pair is not named). */
  setup?: ShareSetup;
}

/** A link read back: the run (valid fields, the fallback's value elsewhere), and each bad field's text and message. */
export interface DecodedShare extends SharedRun {
  errors: FieldErrors;
  /** What the link said for each number field it got wrong, to show in that field. */
  text: Partial<Record<LimitedParam, string>>;
  /** What is wrong with the link's pair, runtime or presentation keys, if anything. */
  setupError?: string;
}

/** Link keys of the number fields. */
const NUMBER_KEYS: readonly [LimitedParam, string][] = [
  ['K', 'K'],
  ['L', 'L'],
  ['temperature', 't'],
  ['seed', 'seed'],
  ['maxTokens', 'max'],
  ['topP', 'p'],
];

export function encodeShare({ params, preset, setup }: SharedRun): string {
  const query = new URLSearchParams({
    method: params.method,
    K: String(params.K),
    L: String(params.L),
    t: String(params.temperature),
    seed: String(params.seed),
    max: String(params.maxTokens),
    drafting: params.drafting,
    preset,
    prompt: params.prompt,
  });
  if (params.topP !== undefined) query.set('p', String(params.topP));
  if (preset === 'custom' && params.schemaText !== null) query.set('schema', params.schemaText);
  if (params.trigger !== undefined) query.set('trigger', params.trigger);
  if (params.drafter !== undefined) query.set('drafter', params.drafter);
  if (setup) {
    query.set('pair', setup.pair);
    query.set('runtime', setup.provider);
    query.set('present', setup.presentation ? '1' : '0');
  }
  return `#run?${query.toString()}`;
}

/** The run in a fragment, or null when the fragment holds none. Never throws: problems come back by field. */
export function decodeShare(hash: string, fallback: RunParams): DecodedShare | null {
  if (!hash.startsWith('#run?')) return null;
  const query = new URLSearchParams(hash.slice('#run?'.length));
  // A short link (`#run?preset=event&seed=3`) takes every run key it leaves out from its preset's defaults, as a
  // talk scene does; one that names no preset (or custom, or free) takes them from the fallback. `p` stays
  // optional (absent: no top-p), and a drafter only ever comes from the link itself.
  const named = SCHEMA_PRESETS.find((candidate) => candidate.id === query.get('preset'));
  const base = named ? presetParams(named) : fallback;
  const defaults = new URLSearchParams(
    encodeShare({ params: base, preset: named?.id ?? 'custom' }).slice('#run?'.length),
  );
  for (const key of ['method', 'K', 'L', 't', 'seed', 'max', 'drafting', 'prompt', ...(named ? ['trigger'] : [])]) {
    const value = defaults.get(key);
    if (!query.has(key) && value !== null) query.set(key, value);
  }
  const errors: FieldErrors = {};
  const text: DecodedShare['text'] = {};
  const input: RunParamsInput = {
    method: query.get('method'),
    drafting: query.get('drafting'),
    prompt: query.get('prompt') ?? '',
    ...(query.get('trigger') === null ? {} : { trigger: query.get('trigger') }),
    ...(query.get('drafter') === null ? {} : { drafter: query.get('drafter') }),
  };
  for (const [name, key] of NUMBER_KEYS) {
    const raw = query.get(key);
    if (raw === null && name === 'topP') continue;
    const parsed = parseNumber(name, raw ?? '');
    if ('value' in parsed) input[name] = parsed.value;
    else {
      errors[name] = `the link's ${key}: ${parsed.error}`;
      text[name] = raw ?? '';
    }
  }
  let preset = (query.get('preset') ?? 'custom') as PresetChoice;
  const presetSchema = SCHEMA_PRESETS.find((candidate) => candidate.id === preset)?.schema;
  if (preset !== 'custom' && preset !== 'free' && !presetSchema) {
    errors.schemaText = `the link names an unknown preset ${JSON.stringify(preset)}; the presets are ${SCHEMA_PRESETS.map((p) => p.id).join(', ')}`;
    preset = 'custom';
  }
  input.schemaText =
    preset === 'free'
      ? null
      : preset === 'custom'
        ? (query.get('schema') ?? fallback.schemaText)
        : JSON.stringify(presetSchema);
  // Numbers already reported keep the fallback's value; the other fields are checked as the form checks them.
  const candidate: RunParamsInput = { ...fallback, ...input };
  if (query.get('p') === null) delete candidate.topP;
  if (input.trigger === undefined) delete candidate.trigger;
  // A link without a drafter drafts from the model alone, as every link did before drafters existed.
  if (input.drafter === undefined) delete candidate.drafter;
  const checked = validateRunParams(candidate);
  if (!checked.ok) {
    for (const [name, message] of Object.entries(checked.errors) as [keyof RunParams, string][]) {
      errors[name] = `the link's ${name}: ${message}`;
      candidate[name] = fallback[name];
    }
  }
  const setup = decodeSetup(query);
  return { preset, params: candidate as RunParams, errors, text, ...setup };
}

/** The link's pair, runtime and presentation keys: absent together, or each checked (a missing one takes its default). */
function decodeSetup(query: URLSearchParams): { setup?: ShareSetup; setupError?: string } {
  const pair = query.get('pair');
  const runtime = query.get('runtime');
  const present = query.get('present');
  if (pair === null && runtime === null && present === null) return {};
  if (pair !== null && !hasOwnKey(BUNDLED_PAIR_IDS, pair))
    return {
      setupError: `the link's pair ${JSON.stringify(pair)} is not one of ${Object.keys(BUNDLED_PAIR_IDS).join(', ')}`,
    };
  if (runtime !== null && !PROVIDERS.includes(runtime as ExecutionProvider))
    return { setupError: `the link's runtime ${JSON.stringify(runtime)} is not one of ${PROVIDERS.join(', ')}` };
  if (present !== null && present !== '0' && present !== '1')
    return { setupError: `the link's present ${JSON.stringify(present)} must be 0 or 1` };
  return {
    setup: {
      pair: pair ?? 'bundled',
      provider: (runtime ?? 'auto') as ExecutionProvider | 'auto',
      presentation: present === '1',
    },
  };
}
