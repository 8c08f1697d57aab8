/** The model pairs the page offers: the bundled pair (offline) and Hub pairs that share a tokenizer. */
import type { PairSource } from './protocol';

export const BUNDLED_PAIR: PairSource = {
  label: 'SpecLab bundled pair (offline): draft 50k parameters, target 5M',
  draftUrl: `${import.meta.env.BASE_URL}models/speclab-draft/`,
  targetUrl: `${import.meta.env.BASE_URL}models/speclab-target/`,
  cache: false,
  modelFile: 'onnx/model.onnx',
};

const hub = (repo: string) => `https://huggingface.co/${repo}/resolve/main/`;

/** Pairs that share a tokenizer, for a presenter with internet; downloads are kept in the Cache API. */
export const MODEL_PAIRS: readonly PairSource[] = [
  BUNDLED_PAIR,
  { label: 'SmolLM2-135M-Instruct → SmolLM2-360M-Instruct (onnx-community, needs internet)', draftUrl: hub('onnx-community/SmolLM2-135M-Instruct'), targetUrl: hub('onnx-community/SmolLM2-360M-Instruct'), cache: true, modelFile: 'onnx/model.onnx' },
  { label: 'distilgpt2 → gpt2 (Xenova, needs internet)', draftUrl: hub('Xenova/distilgpt2'), targetUrl: hub('Xenova/gpt2'), cache: true, modelFile: 'onnx/decoder_model_merged.onnx' },
];
