"""Re-exports bundled models with today's export (tools/train/model.py), from their committed weights: no retraining.

  /usr/bin/python3 tools/train/reexport.py speclab-draft speclab-target

Needs PyTorch and ONNX from Debian (apt-get install python3-torch python3-numpy python3-onnx). For each name it
reads public/models/<name>/onnx/model.onnx and maps its initializers back onto model.py's Decoder: embeddings,
LayerNorms and biases keep their state_dict names; the Linear weights were constant-folded into anonymous
MatMul operands ([in, out], the transpose), taken in graph order (per block: qkv, attention_out, mlp_in,
mlp_out), and the last MatMul is the tied output projection, which must equal the token embedding's transpose.
It refuses to write anything unless torch reproduces the manifest's golden logits within 1e-4. Then it
exports model.onnx afresh, checks that the new file holds exactly the same weights, and rewrites the
manifest's io, files (bytes, sha256) and golden logits (same prompts, recomputed by torch), keeping its
training record, and notes the re-export with a hash of the weights (unchanged by any re-export).
Rerunning it on its own output rewrites the same weights and the same golden logits.
"""
import json
import os
import sys

import numpy as np
import onnx
import torch

sys.path.insert(0, os.path.dirname(__file__))
from committed_weights import decoder_for, weights_hash, weights_of  # noqa: E402
from model import Decoder, export_onnx  # noqa: E402
from train import files_of, golden_of, io_of, write_manifest  # noqa: E402

GOLDEN_TOLERANCE = 1e-4


def golden_error(model: Decoder, prompts) -> float:
    recomputed = golden_of(model, prompts)
    return max(float(np.max(np.abs(np.array(a['last_logits']) - np.array(b['last_logits'])))) for a, b in zip(recomputed, prompts))


def reexport(name: str) -> None:
    out = os.path.join('public/models', name)
    onnx_path = os.path.join(out, 'onnx', 'model.onnx')
    manifest_path = os.path.join(out, 'manifest.json')
    manifest = json.load(open(manifest_path))
    model = decoder_for(manifest)
    state = weights_of(onnx_path, model)
    model.load_state_dict(state, strict=True)
    model.eval()
    prompts = manifest['golden']['prompts']
    error = golden_error(model, prompts)
    print(f'{name}: torch against the manifest\'s golden logits: max |diff| {error:.2e} over {len(prompts)} prompts', flush=True)
    if not error < GOLDEN_TOLERANCE:
        raise SystemExit(f'{name}: the mapped weights do not reproduce the golden logits; nothing written')

    staged = onnx_path + '.new'
    export_onnx(model, staged)
    if weights_hash(weights_of(staged, decoder_for(manifest))) != weights_hash(state):
        os.remove(staged)
        raise SystemExit(f'{name}: the new export does not hold the same weights; nothing written')
    os.replace(staged, onnx_path)

    a = manifest['architecture']
    manifest['io'] = io_of(a['layers'], a['heads'], a['head_dim'])
    graph = onnx.load(onnx_path).graph
    exported = {'inputs': [value.name for value in graph.input], 'outputs': [value.name for value in graph.output]}
    for key in ('inputs', 'outputs'):
        if exported[key] != manifest['io'][key]:
            raise SystemExit(f'{name}: the export\'s {key} {exported[key]} differ from the manifest\'s {manifest["io"][key]}')
    manifest['files'] = files_of(out)
    manifest['golden']['prompts'] = golden_of(model, prompts)
    manifest['export'] = {
        'by': 'tools/train/reexport.py',
        'note': 're-exported from the weights of the previously committed model.onnx, without retraining, to add the '
                'tree_attention_mask input; golden logits recomputed by torch for the same prompts',
        'weights_sha256': weights_hash(state),
        'torch': torch.__version__,
    }
    write_manifest(out, manifest)
    print(f'{name}: wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes) and {manifest_path}', flush=True)


if __name__ == '__main__':
    torch.set_num_threads(1)
    for model_name in sys.argv[1:] or ['speclab-draft', 'speclab-target']:
        reexport(model_name)
