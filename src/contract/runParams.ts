/** A run's parameters as a user sets them, and the presets' defaults; free of the engine's heavy imports. */
import type { DrafterId } from '../core/draftLaw';
import { METHOD_IDS, METHOD_REGISTRY, draftsUsed, type MethodId } from '../core/verify';
import { SCHEMA_PRESETS, type SchemaPreset } from './presets';

/** A verification method, or `ar`: plain autoregressive decoding from the target, the baseline. */
export type DecodeMethod = 'ar' | MethodId;
export const DECODE_METHODS: readonly DecodeMethod[] = ['ar', ...METHOD_IDS];
export type DraftingMode = 'validate' | 'constrained';

export interface DecodeMethodInfo {
  label: string;
  description: string;
  /** The key that selects it in the app. */
  shortcut: string;
}

/** `ar` beside the registry's methods (src/core/verify/registry.ts), which it is not one of: it verifies nothing. */
const AUTOREGRESSIVE: DecodeMethodInfo = {
  label: 'Autoregressive (target only)',
  description: 'No drafts: the target alone, one token per forward; the baseline for speed and for losslessness.',
  shortcut: '1',
};

export function decodeMethodInfo(method: DecodeMethod): DecodeMethodInfo {
  return method === 'ar' ? AUTOREGRESSIVE : METHOD_REGISTRY[method];
}

/** The K a run reports: the drafts it read (1 for a single-draft method); ar drafts nothing and keeps K as given. */
export function reportedK(method: DecodeMethod, K: number): number {
  return method === 'ar' ? K : draftsUsed(method, K);
}

/** K as a run uses it, saying why where it differs from the K asked for: "K = 1 (GBV uses one draft)". */
export function describeK(method: DecodeMethod, K: number): string {
  if (method === 'ar') return 'no drafts (autoregressive)';
  const used = reportedK(method, K);
  return used === K ? `K = ${K}` : `K = ${used} (${decodeMethodInfo(method).label} uses one draft)`;
}

export interface RunParams {
  method: DecodeMethod;
  K: number;
  L: number;
  temperature: number;
  topP?: number;
  topK?: number;
  seed: number;
  maxTokens: number;
  drafting: DraftingMode;
  /** Where draft tokens come from (src/core/draftLaw.ts); absent: the draft model alone. */
  drafter?: DrafterId;
  prompt: string;
  /** JSON-schema text, or null for free text. */
  schemaText: string | null;
  /** Free text until this string; the schema applies after it. */
  trigger?: string;
}

/** The parameters of a preset's run, with defaults a teacher would start from. */
export function presetParams(preset: SchemaPreset, overrides: Partial<RunParams> = {}): RunParams {
  return {
    method: 'spectr-gbv',
    K: 3,
    L: 4,
    temperature: 1,
    seed: 1,
    maxTokens: 96,
    drafting: 'validate',
    prompt: preset.prompt,
    schemaText: JSON.stringify(preset.schema, null, 2),
    ...(preset.trigger === undefined ? {} : { trigger: preset.trigger }),
    ...overrides,
  };
}

export function findPreset(id: string): SchemaPreset {
  const preset = SCHEMA_PRESETS.find((candidate) => candidate.id === id);
  if (!preset) throw new RangeError(`unknown preset ${JSON.stringify(id)}; the presets are ${SCHEMA_PRESETS.map((p) => p.id).join(', ')}`);
  return preset;
}
