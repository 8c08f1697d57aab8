/** The model pairs the page offers: the bundled pair (offline, int8 or float32 target) and Hub pairs that share a tokenizer. */
import type { PairSource } from './protocol';

const bundled = (name: string) => `${import.meta.env.BASE_URL}models/${name}/`;

/** The target's weight products are int8 (tools/train/quantize.py): on a CPU each scored position costs less. */
export const BUNDLED_PAIR: PairSource = {
  label: 'SpecLab bundled pair (offline): draft 50k parameters, target 5M (int8)',
  draftUrl: bundled('speclab-draft'),
  targetUrl: bundled('speclab-target-int8'),
  cache: false,
  modelFile: 'onnx/model.onnx',
};

/** The same pair with the float32 target the int8 one was quantized from. */
export const BUNDLED_FLOAT_PAIR: PairSource = {
  ...BUNDLED_PAIR,
  label: 'SpecLab bundled pair (offline): draft 50k parameters, target 5M (float32)',
  targetUrl: bundled('speclab-target'),
};

const hub = (repo: string) => `https://huggingface.co/${repo}/resolve/main/`;

/** Pairs that share a tokenizer, for a presenter with internet; downloads are kept in the Cache API. */
export const MODEL_PAIRS: readonly PairSource[] = [
  BUNDLED_PAIR,
  BUNDLED_FLOAT_PAIR,
  { label: 'SmolLM2-135M-Instruct → SmolLM2-360M-Instruct (onnx-community, needs internet)', draftUrl: hub('onnx-community/SmolLM2-135M-Instruct'), targetUrl: hub('onnx-community/SmolLM2-360M-Instruct'), cache: true, modelFile: 'onnx/model.onnx' },
  { label: 'distilgpt2 → gpt2 (Xenova, needs internet)', draftUrl: hub('Xenova/distilgpt2'), targetUrl: hub('Xenova/gpt2'), cache: true, modelFile: 'onnx/decoder_model_merged.onnx' },
];

/** The bundled pairs by the short names a share link and a talk file use. */
export const BUNDLED_PAIR_IDS: Readonly<Record<string, PairSource>> = { bundled: BUNDLED_PAIR, 'bundled-float32': BUNDLED_FLOAT_PAIR };

/** A pair's short name, or null for a Hub or custom pair. */
export function bundledPairId(pair: PairSource): string | null {
  return Object.entries(BUNDLED_PAIR_IDS).find(([, candidate]) => candidate.label === pair.label)?.[0] ?? null;
}
