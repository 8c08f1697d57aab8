/** A run's parameters as a user sets them, and the presets' defaults; free of the engine's heavy imports. */
import type { DrafterId } from '../core/draftLaw';
import { METHOD_IDS, METHOD_REGISTRY, draftsUsed, type MethodId } from '../core/verify';
import { SCHEMA_PRESETS, type SchemaPreset } from './presets';

/**
 * The non-speculative baselines: `ar`, plain autoregressive decoding from the target, and `ar+jump-forward`,
 * SGLang's jump-forward kept lossless: the schema's forced tokens are scored with the next position in one
 * target forward and each is verified, kept with probability p(x) (token-wise with q = 1), not appended
 * outright. Neither calls the draft model.
 */
export const BASELINES = ['ar', 'ar+jump-forward'] as const;
export type Baseline = (typeof BASELINES)[number];
/** A verification method, or a baseline. */
export type DecodeMethod = Baseline | MethodId;
export const DECODE_METHODS: readonly DecodeMethod[] = [...BASELINES, ...METHOD_IDS];

/** Whether a method is a baseline: no draft model, and K means nothing to it. */
export function isBaseline(method: DecodeMethod): method is Baseline {
  return (BASELINES as readonly string[]).includes(method);
}
export type DraftingMode = 'validate' | 'constrained';

export interface DecodeMethodInfo {
  label: string;
  description: string;
  /** The key that selects it in the app. */
  shortcut: string;
}

/** The baselines beside the registry's methods (src/core/verify/registry.ts), which they are not among: they verify no draft model. */
const BASELINE_INFO: Readonly<Record<Baseline, DecodeMethodInfo>> = {
  ar: {
    label: 'Autoregressive (target only)',
    description: 'No drafts: the target alone, one token per forward; the baseline for speed and for losslessness.',
    shortcut: '1',
  },
  'ar+jump-forward': {
    label: 'AR + jump-forward',
    description:
      'No draft model: where the schema forces text, its tokens (up to L) are scored with the next position in one target forward, each kept with probability p(x); elsewhere one token per forward. The best baseline without a draft model.',
    shortcut: '7',
  },
};

export function decodeMethodInfo(method: DecodeMethod): DecodeMethodInfo {
  return isBaseline(method) ? BASELINE_INFO[method] : METHOD_REGISTRY[method];
}

/** The K a run reports: the drafts it read (1 for a single-draft method); a baseline drafts nothing and keeps K as given. */
export function reportedK(method: DecodeMethod, K: number): number {
  return isBaseline(method) ? K : draftsUsed(method, K);
}

/** K as a run uses it, saying why where it differs from the K asked for: "K = 1 (GBV uses one draft)". */
export function describeK(method: DecodeMethod, K: number): string {
  if (method === 'ar') return 'no drafts (autoregressive)';
  if (method === 'ar+jump-forward') return 'no draft model (forced text only)';
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
  if (!preset)
    throw new RangeError(
      `unknown preset ${JSON.stringify(id)}; the presets are ${SCHEMA_PRESETS.map((p) => p.id).join(', ')}`,
    );
  return preset;
}
