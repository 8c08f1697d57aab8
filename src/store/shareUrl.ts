/**
 * Every run parameter and the seed in a URL fragment, so a shared link reproduces a run exactly. The
 * fragment never reaches a server; values are read back through the same validation as the controls.
 */
import { DECODE_METHODS, type DecodeMethod, type RunParams } from '../contract/runParams';
import { SCHEMA_PRESETS, type SchemaPreset } from '../grammar/presets';

export type PresetChoice = SchemaPreset['id'] | 'custom' | 'free';

export interface SharedRun {
  params: RunParams;
  preset: PresetChoice;
}

export function encodeShare({ params, preset }: SharedRun): string {
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
  return `#run?${query.toString()}`;
}

/** The run in a fragment, or null when the fragment holds none. Throws a readable error for a bad one. */
export function decodeShare(hash: string): SharedRun | null {
  if (!hash.startsWith('#run?')) return null;
  const query = new URLSearchParams(hash.slice('#run?'.length));
  const number = (key: string) => {
    const value = Number(query.get(key));
    if (query.get(key) === null || !Number.isFinite(value)) throw new RangeError(`the shared link's ${key} is not a number`);
    return value;
  };
  const method = query.get('method') as DecodeMethod;
  if (!DECODE_METHODS.includes(method)) throw new RangeError(`the shared link names an unknown method ${JSON.stringify(method)}`);
  const drafting = query.get('drafting');
  if (drafting !== 'validate' && drafting !== 'constrained') throw new RangeError('the shared link has no drafting mode');
  const preset = (query.get('preset') ?? 'custom') as PresetChoice;
  const presetSchema = SCHEMA_PRESETS.find((candidate) => candidate.id === preset)?.schema;
  if (preset !== 'custom' && preset !== 'free' && !presetSchema) throw new RangeError(`the shared link names an unknown preset ${JSON.stringify(preset)}`);
  const schemaText = preset === 'free' ? null : preset === 'custom' ? query.get('schema') : JSON.stringify(presetSchema);
  const trigger = query.get('trigger');
  const topP = query.get('p');
  return {
    preset,
    params: {
      method,
      K: number('K'),
      L: number('L'),
      temperature: number('t'),
      seed: number('seed'),
      maxTokens: number('max'),
      drafting,
      prompt: query.get('prompt') ?? '',
      schemaText,
      ...(trigger === null ? {} : { trigger }),
      ...(topP === null ? {} : { topP: Number(topP) }),
    },
  };
}
