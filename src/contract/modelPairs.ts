/** The model pairs the page offers: the bundled pair (offline, int8 or float32 target) and Hub pairs that share a tokenizer. */
import type { ExecutionProvider, PairSource } from './protocol';

const bundled = (name: string) => `${import.meta.env.BASE_URL}models/${name}/`;

/**
 * On wasm the target's weight products are int8 (tools/train/quantize.py): on a CPU each scored position costs
 * less. onnxruntime-web's WebGPU EP gives wrong logits for those products, so on WebGPU the pair loads the
 * float32 target the int8 one was quantized from (README: "Which target on which backend"; docs/models.md: "The int8 target").
 */
export const BUNDLED_PAIR: PairSource = {
  label: 'SpecLab bundled pair (offline): draft 50k parameters, target 5M (int8 on wasm, float32 on WebGPU)',
  draftUrl: bundled('speclab-draft'),
  targetUrl: bundled('speclab-target-int8'),
  webgpuTargetUrl: bundled('speclab-target'),
  cache: false,
  modelFile: 'onnx/model.onnx',
  headUrl: bundled('speclab-head'),
};

/** The same pair with the float32 target the int8 one was quantized from. */
export const BUNDLED_FLOAT_PAIR: PairSource = {
  label: 'SpecLab bundled pair (offline): draft 50k parameters, target 5M (float32 on wasm and WebGPU)',
  draftUrl: BUNDLED_PAIR.draftUrl,
  targetUrl: bundled('speclab-target'),
  cache: false,
  modelFile: BUNDLED_PAIR.modelFile,
  headUrl: bundled('speclab-head'),
};

/** The target directory a pair loads on `provider`. */
export function targetUrlFor(pair: PairSource, provider: ExecutionProvider): string {
  return provider === 'webgpu' ? (pair.webgpuTargetUrl ?? pair.targetUrl) : pair.targetUrl;
}

/** A URL's folder as text: percent-escapes decoded, or left as they are where they do not decode. */
function folderText(folder: string): string {
  try {
    return decodeURIComponent(folder);
  } catch {
    return folder;
  }
}

/**
 * How the status line names a model directory that has no manifest to name it (a Hub repository, a mirror of
 * one, any custom URL): `org/repo` for the Hub's layout (`…/{org}/{repo}/resolve/{revision}/`), otherwise the
 * directory's last folder, or its host where the path has none.
 */
export function modelDirectoryName(directoryUrl: string): string {
  const url = new URL(directoryUrl, 'http://localhost/');
  const folders = url.pathname
    .split('/')
    .filter((folder) => folder !== '')
    .map(folderText);
  const resolve = folders.lastIndexOf('resolve');
  if (resolve >= 2 && resolve === folders.length - 2) return folders.slice(resolve - 2, resolve).join('/');
  return folders.at(-1) ?? url.host;
}

const hub = (repo: string) => `https://huggingface.co/${repo}/resolve/main/`;

/** Pairs that share a tokenizer, for a presenter with internet; downloads are kept in the Cache API. */
export const MODEL_PAIRS: readonly PairSource[] = [
  BUNDLED_PAIR,
  BUNDLED_FLOAT_PAIR,
  {
    label: 'SmolLM2-135M-Instruct → SmolLM2-360M-Instruct (onnx-community, needs internet; wasm or WebGPU)',
    draftUrl: hub('onnx-community/SmolLM2-135M-Instruct'),
    targetUrl: hub('onnx-community/SmolLM2-360M-Instruct'),
    cache: true,
    modelFile: 'onnx/model.onnx',
  },
  {
    label: 'distilgpt2 → gpt2 (Xenova, needs internet; wasm or WebGPU)',
    draftUrl: hub('Xenova/distilgpt2'),
    targetUrl: hub('Xenova/gpt2'),
    cache: true,
    modelFile: 'onnx/decoder_model_merged.onnx',
  },
];

/** The bundled pairs by the short names a share link and a talk file use. */
export const BUNDLED_PAIR_IDS: Readonly<Record<string, PairSource>> = {
  bundled: BUNDLED_PAIR,
  'bundled-float32': BUNDLED_FLOAT_PAIR,
};

/** A pair's short name, or null for a Hub or custom pair. */
export function bundledPairId(pair: PairSource): string | null {
  return Object.entries(BUNDLED_PAIR_IDS).find(([, candidate]) => candidate.label === pair.label)?.[0] ?? null;
}
