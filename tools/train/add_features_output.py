"""Exposes the target's last hidden state as a graph output `features`, by graph surgery: no re-export, no retraining.

  /usr/bin/python3 tools/train/add_features_output.py [speclab-target speclab-target-int8]

Needs ONNX from Debian (apt-get install python3-onnx). For each name it reads public/models/<name>/onnx/model.onnx,
finds the final LayerNorm (the node named /ln_final/LayerNormalization, whose output the tied output projection
multiplies into `logits`), renames that node's output tensor to `features` (in the node and in every node that
reads it) and appends `features` float32 [batch_size, sequence_length, width] as the LAST graph output, after
present.*. Every node, initializer and attribute is otherwise kept as it is, so every other output is computed by
the same nodes (the logits bit for bit; test/models/session.test.ts checks the golden logits, and
docs/models.md says how the logits were compared with the previous file's). Then it rewrites the manifest's
io.outputs and files (bytes, sha256), keeps its golden logits, and records the surgery under `features_output`.
Idempotent: a model that already has the output is checked and left as it is.
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(__file__))
from train import files_of, sha256, write_manifest  # noqa: E402

FINAL_NORM = '/ln_final/LayerNormalization'
OUTPUT = 'features'


def add_features_output(name: str) -> None:
    out = os.path.join('public/models', name)
    onnx_path = os.path.join(out, 'onnx', 'model.onnx')
    manifest_path = os.path.join(out, 'manifest.json')
    manifest = json.load(open(manifest_path))
    model = onnx.load(onnx_path)
    graph = model.graph
    outputs = [value.name for value in graph.output]
    norms = [node for node in graph.node if node.name == FINAL_NORM and node.op_type == 'LayerNormalization']
    if len(norms) != 1:
        raise SystemExit(f'{name}: expected one {FINAL_NORM} node, found {len(norms)}; nothing written')
    norm = norms[0]
    if OUTPUT in outputs:
        if outputs[-1] != OUTPUT or norm.output[0] != OUTPUT:
            raise SystemExit(f'{name}: has a {OUTPUT} output that is not the final LayerNorm\'s, last; nothing written')
        print(f'{name}: already has the {OUTPUT} output; left as it is', flush=True)
    else:
        before = sha256(onnx_path)
        old = norm.output[0]
        if old in outputs or any(old in node.output for node in graph.node if node is not norm):
            raise SystemExit(f'{name}: {old} is not an internal tensor of one producer; nothing written')
        readers = 0
        for node in graph.node:
            for i, tensor in enumerate(node.input):
                if tensor == old:
                    node.input[i] = OUTPUT
                    readers += 1
        norm.output[0] = OUTPUT
        for value in list(graph.value_info):
            if value.name == old:
                graph.value_info.remove(value)
        width = manifest['architecture']['width']
        graph.output.append(helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ['batch_size', 'sequence_length', width]))
        onnx.checker.check_model(model)
        staged = onnx_path + '.new'
        onnx.save(model, staged)
        os.replace(staged, onnx_path)
        manifest['features_output'] = {
            'by': 'tools/train/add_features_output.py',
            'note': f'graph surgery on the committed model.onnx: the final LayerNorm\'s output ({old}, read by '
                    f'{readers} node(s)) renamed {OUTPUT} and appended as the last graph output; no node, weight or '
                    'attribute changed, so the logits are those of the previous file bit for bit',
            'source_sha256': before,
        }
        print(f'{name}: {old} -> {OUTPUT} ({readers} reader(s)); wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes)', flush=True)
    graph = onnx.load(onnx_path).graph
    manifest['io']['outputs'] = [value.name for value in graph.output]
    manifest['files'] = files_of(out)
    write_manifest(out, manifest)


if __name__ == '__main__':
    names = sys.argv[1:] or ['speclab-target', 'speclab-target-int8']
    if any(name.startswith('-') for name in names):
        print('usage: add_features_output.py [model-name ...]  (default: speclab-target speclab-target-int8)', file=sys.stderr)
        raise SystemExit(2)
    for model_name in names:
        add_features_output(model_name)
