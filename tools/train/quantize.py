"""Quantizes the bundled float32 target to int8 for onnxruntime-web's wasm EP.

  npx tsx tools/train/exportCorpus.ts <dir> --records 6000 --validation 400 --heldout 100
  /usr/bin/python3 tools/train/quantize.py --data <dir>

On a CPU the target's forward is bound by arithmetic, so scoring L + 1 positions costs several times one
position, and a speculative step costs several ar tokens. Integer matrix products are cheaper per position
(onnxruntime's MatMulIntegerToFloat), so this rewrites each of the target's weight products as
QuantizeLinear + MatMulIntegerToFloat (with the bias folded in):
- weights: int8, symmetric, one scale per output column;
- activations: uint8 with zero point 128 and one fixed scale per product, calibrated on the training split
  (the --quantile of |x|; larger values saturate).
Fixed scales keep every position's logits a function of its own prefix alone: a scale taken from the whole
batch (DynamicQuantizeLinear) would let the drafts scored beside a position change its logits, and the
speculative methods would no longer follow the target's law. The integer products are exact, so tree and
batched scoring still agree to float32 rounding.

The result is a model of its own, the bundled pair's target: ar and every speculative method run the same
file. Its distance from the float32 target on the validation split (KL, sum min(p, q), NLL) goes in its
manifest, with golden logits from a torch emulation of the same integer arithmetic. Its manifest
limits it to the wasm EP (runs_on): onnxruntime-web's WebGPU EP gives wrong logits for these products. Writes
public/models/speclab-target-int8/{onnx/model.onnx, tokenizer.json, manifest.json}. Deterministic; never run
by CI.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper
from torch import nn

sys.path.insert(0, os.path.dirname(__file__))
from distill import committed  # noqa: E402
from train import batch_of, files_of, golden_of, load, write_manifest  # noqa: E402

MODELS = 'public/models'
SOURCE = 'speclab-target'
OUT = 'speclab-target-int8'
ZERO_POINT = 128
# Measured in Chromium (test/models/chromium.test.ts): on the WebGPU EP this graph's logits were off by up to 11.
WEBGPU_REFUSAL = ('onnxruntime-web\'s WebGPU EP gives wrong logits for its int8 products (QuantizeLinear, '
                  'MatMulIntegerToFloat); the float32 bundled pair runs there')


def weight_quantized(weight: torch.Tensor):
    """weight [out, in] as int8 values (float64, exact) and one float32 scale per output."""
    scale = (weight.abs().amax(dim=1).clamp_min(1e-8) / 127).float()
    return torch.clamp(torch.round(weight / scale[:, None]), -127, 127).double(), scale


class Int8Product(nn.Module):
    """x @ weight.T + bias as MatMulIntegerToFloat computes it: x quantized with a fixed scale, the integer
    product exact, then float32 (acc · (x scale · weight scale)) + bias."""

    def __init__(self, weight: torch.Tensor, bias, activation_range: float):
        super().__init__()
        self.values, self.weight_scale = weight_quantized(weight)
        self.activation_scale = torch.tensor(activation_range / 127, dtype=torch.float32)
        self.bias = bias

    def forward(self, x):
        quantized = torch.clamp(torch.round(x / self.activation_scale) + ZERO_POINT, 0, 255) - ZERO_POINT
        product = (quantized.double() @ self.values.t()).float() * (self.activation_scale * self.weight_scale)
        return product if self.bias is None else product + self.bias


class OutputProjectedDecoder(nn.Module):
    """A Decoder whose tied output projection is replaced by `output_projection` (a quantized product), while the
    input embedding stays float32: it reads ln_final's output and replaces the float32 logits."""

    def __init__(self, decoder, output_projection):
        super().__init__()
        self.decoder, self.output_projection = decoder, output_projection
        self.config = decoder.config

    def empty_past(self, batch: int):
        return self.decoder.empty_past(batch)

    def forward(self, *inputs):
        hidden = []
        hook = self.decoder.ln_final.register_forward_hook(lambda _, __, output: hidden.append(output))
        try:
            _, *present = self.decoder(*inputs)
        finally:
            hook.remove()
        return (self.output_projection(hidden[0]), *present)


def products_of(model):
    """The weight products in graph order: each block's qkv, attention_out, mlp_in, mlp_out."""
    return [getattr(block, name) for block in model.blocks for name in ('qkv', 'attention_out', 'mlp_in', 'mlp_out')]


def calibrate(model, data, records: int, quantile: float, seed: int):
    """The quantile of |x| at each product's input (and the output projection's), over `records` training records."""
    seen = [[] for _ in range(len(products_of(model)) + 1)]
    hooks = [linear.register_forward_pre_hook(lambda _, inputs, i=i: seen[i].append(inputs[0].detach().abs().reshape(-1)))
             for i, linear in enumerate(products_of(model))]
    hooks.append(model.ln_final.register_forward_hook(lambda _, __, output: seen[-1].append(output.detach().abs().reshape(-1))))
    picks = np.random.default_rng(seed).choice(len(data[1]), records, replace=False)
    with torch.no_grad():
        for start in range(0, records, 64):
            inputs, _ = batch_of(data, picks[start:start + 64], model.config['vocab'] - 1)
            forward(model, inputs)
    for hook in hooks:
        hook.remove()
    ranges = []
    for values in seen:
        ordered = torch.cat(values).sort().values
        ranges.append(float(ordered[min(len(ordered) - 1, int(quantile * len(ordered)))]))
    return ranges


def forward(model, inputs):
    batch, length = inputs.shape
    return model(inputs, torch.ones(batch, length, dtype=torch.int64), torch.arange(length).unsqueeze(0).repeat(batch, 1), None,
                 *model.empty_past(batch))[0]


def quantized_copy(model, ranges):
    """The Decoder with every product an Int8Product, for the golden logits and the validation figures."""
    copy = type(model)(**model.config)
    copy.load_state_dict(model.state_dict())
    copy.eval()
    for block in copy.blocks:
        for name in ('qkv', 'attention_out', 'mlp_in', 'mlp_out'):
            linear = getattr(block, name)
            setattr(block, name, Int8Product(linear.weight.detach(), linear.bias.detach(), ranges.pop(0)))
    return OutputProjectedDecoder(copy, Int8Product(copy.token_embedding.weight.detach(), None, ranges.pop(0)))


def distance(model, quantized, data):
    """Mean KL(p_float || p_int8), sum min(p, q) and both NLLs over the completion positions of `data`."""
    kl = overlap = float_nll = int8_nll = 0.0
    count = 0
    with torch.no_grad():
        for start in range(0, len(data[1]), 50):
            inputs, targets = batch_of(data, list(range(start, min(start + 50, len(data[1])))), model.config['vocab'] - 1)
            keep = targets != -100
            p = torch.log_softmax(forward(model, inputs), -1)[keep]
            q = torch.log_softmax(forward(quantized, inputs), -1)[keep]
            kl += float((p.exp() * (p - q)).sum())
            overlap += float(torch.minimum(p.exp(), q.exp()).sum())
            truth = targets[keep][:, None]
            float_nll -= float(p.gather(1, truth).sum())
            int8_nll -= float(q.gather(1, truth).sum())
            count += int(keep.sum())
    return {'kl_float_to_int8': round(kl / count, 6), 'sum_min_p_q': round(overlap / count, 6),
            'nll_float': round(float_nll / count, 6), 'nll_int8': round(int8_nll / count, 6), 'positions': count}


def rewrite(source_path: str, out_path: str, ranges, model) -> None:
    """The float32 graph with each weight MatMul (and the bias Add after it) as QuantizeLinear + MatMulIntegerToFloat."""
    graph_model = onnx.load(source_path)
    graph = graph_model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    consumers = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    weights = [linear.weight.detach() for linear in products_of(model)] + [model.token_embedding.weight.detach()]
    graph.initializer.append(numpy_helper.from_array(np.array(ZERO_POINT, np.uint8), 'int8/zero_point'))
    nodes, folded, index = [], set(), 0
    for node in graph.node:
        if id(node) in folded:
            continue
        if node.op_type != 'MatMul' or node.input[1] not in initializers:
            nodes.append(node)
            continue
        onnx_weight = numpy_helper.to_array(initializers[node.input[1]])
        if not np.array_equal(onnx_weight, weights[index].t().numpy()):
            raise SystemExit(f'{source_path}: weight product {index} ({node.input[1]}) is not the Decoder\'s, in graph order')
        values, weight_scale = weight_quantized(weights[index])
        name = f'int8/{index}'
        graph.initializer.extend([
            numpy_helper.from_array(values.t().numpy().astype(np.int8), f'{name}/weight'),
            numpy_helper.from_array(weight_scale.numpy(), f'{name}/weight_scale'),
            numpy_helper.from_array(np.array(ranges[index] / 127, np.float32), f'{name}/activation_scale'),
        ])
        graph.initializer.remove(initializers[node.input[1]])
        inputs = [f'{name}/x', f'{name}/weight', f'{name}/activation_scale', f'{name}/weight_scale', 'int8/zero_point']
        output = node.output[0]
        users = consumers.get(output, [])
        if len(users) == 1 and users[0].op_type == 'Add' and any(name in initializers for name in users[0].input):
            bias = next(name for name in users[0].input if name in initializers)
            inputs += ['', bias]
            output = users[0].output[0]
            folded.add(id(users[0]))
        nodes.append(helper.make_node('QuantizeLinear', [node.input[0], f'{name}/activation_scale', 'int8/zero_point'], [f'{name}/x'], name=f'{name}/quantize'))
        nodes.append(helper.make_node('MatMulIntegerToFloat', inputs, [output], name=f'{name}/product', domain='com.microsoft'))
        index += 1
    save_rewritten(graph_model, nodes, index, len(weights), source_path, out_path)


def save_rewritten(graph_model, nodes, rewritten: int, products: int, source_path: str, out_path: str) -> None:
    """The graph with `nodes` in place of its own (every one of the Decoder's `products` rewritten), checked and saved."""
    if rewritten != products:
        raise SystemExit(f'{source_path}: {rewritten} weight products, the Decoder has {products}')
    del graph_model.graph.node[:]
    graph_model.graph.node.extend(nodes)
    graph_model.opset_import.append(helper.make_opsetid('com.microsoft', 1))
    onnx.checker.check_model(graph_model)
    onnx.save(graph_model, out_path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--data', required=True, help='a directory written by tools/train/exportCorpus.ts')
    parser.add_argument('--records', type=int, default=512, help='training records to calibrate on')
    parser.add_argument('--quantile', type=float, default=0.9999, help='of |x| at each product input: its activation range')
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(2)

    manifest, model = committed(SOURCE)
    model.eval()
    ranges = calibrate(model, load(args.data, 'train'), args.records, args.quantile, args.seed)
    print('activation ranges:', ' '.join(f'{value:.2f}' for value in ranges), flush=True)
    quantized = quantized_copy(model, list(ranges))
    figures = distance(model, quantized, load(args.data, 'validation'))
    print('validation:', json.dumps(figures), flush=True)

    write_quantized(os.path.join(MODELS, OUT), manifest, quantized, lambda source, path: rewrite(source, path, ranges, model),
                    dtype='int8 weight products (weights per output column, activations per product, fixed scales); float32 elsewhere',
                    runs_on={'providers': ['wasm'], 'why': WEBGPU_REFUSAL},
                    golden_by='torch, emulating the int8 products exactly (tools/train/quantize.py)',
                    export={'by': 'tools/train/quantize.py',
                            'calibration': {'split': 'train', 'records': args.records, 'quantile': args.quantile, 'seed': args.seed,
                                            'activation_ranges': [round(value, 6) for value in ranges]}},
                    figures=figures)


def write_quantized(out: str, manifest, quantized, rewrite_graph, *, dtype: str, runs_on, golden_by: str, export, figures) -> None:
    """Writes <out>: the source's graph as `rewrite_graph(source_path, out_path)` rewrites it, its tokenizer, and
    the source's manifest updated: name, dtype, files, `runs_on` (if given), golden logits from `quantized`, and
    the export record (`export`'s 'by' first, then the source and its hash, `export`'s details, the validation figures)."""
    source_sha256 = next(file['sha256'] for file in manifest['files'] if file['path'] == 'onnx/model.onnx')
    os.makedirs(os.path.join(out, 'onnx'), exist_ok=True)
    rewrite_graph(os.path.join(MODELS, SOURCE, 'onnx', 'model.onnx'), os.path.join(out, 'onnx', 'model.onnx'))
    shutil.copyfile(os.path.join(MODELS, SOURCE, 'tokenizer.json'), os.path.join(out, 'tokenizer.json'))
    manifest['name'] = os.path.basename(os.path.normpath(out))
    manifest['architecture']['dtype'] = dtype
    manifest['files'] = files_of(out)
    if runs_on is not None:
        manifest['runs_on'] = runs_on
    manifest['golden'] = {'computed_by': golden_by,
                          'note': 'logits at the last prompt position',
                          'prompts': golden_of(quantized, manifest['golden']['prompts'])}
    by, details = export['by'], {key: value for key, value in export.items() if key != 'by'}
    manifest['export'] = {'by': by, 'source': f'{SOURCE}/onnx/model.onnx', 'source_sha256': source_sha256, **details,
                          'validation': figures, 'torch': torch.__version__}
    write_manifest(out, manifest)
    print(f'wrote {out}: {os.path.getsize(os.path.join(out, "onnx", "model.onnx"))} bytes', flush=True)


if __name__ == '__main__':
    main()
