"""Rewrites the bundled float32 target with onnxruntime's weight-only MatMulNBits, for measuring it.

  npx tsx tools/train/exportCorpus.ts <dir> --records 6000 --validation 400 --heldout 100
  /usr/bin/python3 tools/train/quantize_nbits.py --data <dir> --out <model dir> [--bits 4] [--block-size 32]

Each of the target's 25 weight products (four per block, plus the tied output projection) becomes a
com.microsoft MatMulNBits node: the weight, transposed to [N, K], cut into blocks of --block-size along K, each
block stored as --bits-bit unsigned integers with its own float32 scale and zero point (round to nearest,
min/max range widened to hold 0). The bias Add stays a separate node (the WebGPU EP's kernel takes no bias).
Only the weights are quantized: accuracy_level 0 asks for float32 products on every EP (no activation
quantization at all), so every position's logits are a function of its own prefix alone, as with the float32
target. Level 4 would quantize each row of activations on CPUs whose MLAS has an int8 kernel for it; --accuracy-level
exists to measure that.

Which EP runs what (onnxruntime-web 1.30): the wasm (CPU) EP takes 2, 4 and 8 bits, but has no blocked kernel
for them and dequantizes every weight on every call (9.7x float32's cost at one position); the WebGPU EP (JSEP)
refuses anything but 2 and 4 bits, so --bits 8 writes a wasm-only model, and at 4 bits it fails on the output
projection with blocks of 128 (blocks of 32 run).

The model's distance from the float32 target on the validation split (KL, sum min(p, q), NLL) goes in its
manifest, with golden logits from torch running the dequantized weights. Writes <out>/{onnx/model.onnx,
tokenizer.json, manifest.json}. Deterministic; never run by CI. Measured in docs/models.md#weight-only-matmulnbits.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from distill import committed  # noqa: E402
from quantize import SOURCE, OutputProjectedDecoder, distance, products_of, save_rewritten, write_quantized  # noqa: E402
from train import load  # noqa: E402


def blockwise(weight: np.ndarray, bits: int, block_size: int):
    """weight [N, K] (float32) as unsigned `bits`-bit values [N, K/block, block], float32 scales [N, K/block]
    and zero points [N, K/block]: round to nearest over each block's [min, max], the range widened to hold 0."""
    levels = (1 << bits) - 1
    n, k = weight.shape
    blocks = weight.reshape(n, k // block_size, block_size).astype(np.float64)
    low = np.minimum(blocks.min(axis=2), 0)
    high = np.maximum(blocks.max(axis=2), 0)
    scale = np.maximum((high - low) / levels, 1e-12).astype(np.float32)
    zero = np.clip(np.round(-low / scale), 0, levels).astype(np.uint8)
    values = np.clip(np.round(blocks / scale[:, :, None]) + zero[:, :, None], 0, levels).astype(np.uint8)
    return values, scale, zero


def dequantized(values, scale, zero) -> np.ndarray:
    """The [N, K] float32 weight that MatMulNBits multiplies by: (value - zero point) * scale."""
    n, blocks, block_size = values.shape
    return ((values.astype(np.float32) - zero[:, :, None].astype(np.float32)) * scale[:, :, None]).reshape(n, blocks * block_size)


def packed(values, zero, bits: int):
    """MatMulNBits' B [N, blocks, block * bits / 8] and zero points [N * ceil(blocks * bits / 8)]: within a byte
    the lower bits hold the earlier element (two 4-bit values a byte; 8-bit values one a byte)."""
    n, blocks, block_size = values.shape
    if bits == 8:
        return values, zero.reshape(-1)
    per_byte = 8 // bits

    def pack(rows):
        width = -(-rows.shape[-1] // per_byte) * per_byte
        padded = np.zeros(rows.shape[:-1] + (width,), np.uint8)
        padded[..., :rows.shape[-1]] = rows
        grouped = padded.reshape(rows.shape[:-1] + (width // per_byte, per_byte)).astype(np.uint32)
        return sum(grouped[..., i] << (bits * i) for i in range(per_byte)).astype(np.uint8)

    return pack(values), pack(zero).reshape(-1)


def quantized_copy(model, bits: int, block_size: int):
    """The Decoder with each block's products multiplying by their dequantized weights."""
    copy = type(model)(**model.config)
    copy.load_state_dict(model.state_dict())
    copy.eval()
    with torch.no_grad():
        for linear in products_of(copy):
            linear.weight.copy_(torch.from_numpy(dequantized(*blockwise(linear.weight.numpy(), bits, block_size))))
    return copy


def nbits_decoder(model, bits: int, block_size: int):
    output = torch.from_numpy(dequantized(*blockwise(model.token_embedding.weight.detach().numpy(), bits, block_size)))
    # The input embedding (a Gather in the graph) keeps its float32 weights; only the output product is quantized.
    return OutputProjectedDecoder(quantized_copy(model, bits, block_size), lambda hidden: hidden @ output.t())


def rewrite(source_path: str, out_path: str, model, bits: int, block_size: int, accuracy_level: int) -> None:
    """The float32 graph with each weight MatMul as a MatMulNBits node (same input, same output name)."""
    graph_model = onnx.load(source_path)
    graph = graph_model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    weights = [linear.weight.detach() for linear in products_of(model)] + [model.token_embedding.weight.detach()]
    nodes, index = [], 0
    for node in graph.node:
        if node.op_type != 'MatMul' or node.input[1] not in initializers:
            nodes.append(node)
            continue
        onnx_weight = numpy_helper.to_array(initializers[node.input[1]])
        if not np.array_equal(onnx_weight, weights[index].t().numpy()):
            raise SystemExit(f'{source_path}: weight product {index} ({node.input[1]}) is not the Decoder\'s, in graph order')
        k, n = onnx_weight.shape
        if k % block_size:
            raise SystemExit(f'{source_path}: product {index} has K = {k}, not a multiple of --block-size {block_size}')
        values, scale, zero = blockwise(np.ascontiguousarray(onnx_weight.T), bits, block_size)
        b, zero_points = packed(values, zero, bits)
        name = f'nbits/{index}'
        graph.initializer.extend([
            numpy_helper.from_array(b, f'{name}/weight'),
            numpy_helper.from_array(scale.reshape(-1), f'{name}/scales'),
            numpy_helper.from_array(zero_points, f'{name}/zero_points'),
        ])
        graph.initializer.remove(initializers[node.input[1]])
        nodes.append(helper.make_node('MatMulNBits', [node.input[0], f'{name}/weight', f'{name}/scales', f'{name}/zero_points'],
                                      list(node.output), name=f'{name}/product', domain='com.microsoft',
                                      K=k, N=n, bits=bits, block_size=block_size, accuracy_level=accuracy_level))
        index += 1
    save_rewritten(graph_model, nodes, index, len(weights), source_path, out_path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--data', required=True, help='a directory written by tools/train/exportCorpus.ts')
    parser.add_argument('--out', required=True, help='the model directory to write')
    parser.add_argument('--bits', type=int, choices=(4, 8), default=4)
    parser.add_argument('--block-size', type=int, choices=(16, 32, 64, 128, 256), default=32)
    parser.add_argument('--accuracy-level', type=int, choices=(0, 1, 4), default=0,
                        help='0: float32 products everywhere; 4: int8 activations per row where the CPU EP has a kernel')
    args = parser.parse_args()
    torch.set_num_threads(2)

    manifest, model = committed(SOURCE)
    model.eval()
    quantized = nbits_decoder(model, args.bits, args.block_size)
    figures = {key.replace('int8', 'nbits'): value for key, value in distance(model, quantized, load(args.data, 'validation')).items()}
    print('validation:', json.dumps(figures), flush=True)

    runs_on = None if args.bits == 4 else {'providers': ['wasm'], 'why': f'onnxruntime-web\'s WebGPU EP runs MatMulNBits at 2 and 4 bits only, not {args.bits}'}
    write_quantized(args.out, manifest, quantized,
                    lambda source, path: rewrite(source, path, model, args.bits, args.block_size, args.accuracy_level),
                    dtype=(f'weight products as MatMulNBits ({args.bits}-bit weights, blocks of {args.block_size}, '
                           'float32 activations); float32 elsewhere'),
                    runs_on=runs_on,
                    golden_by='torch, with the dequantized weights (tools/train/quantize_nbits.py)',
                    export={'by': 'tools/train/quantize_nbits.py',
                            'matmulnbits': {'bits': args.bits, 'block_size': args.block_size, 'accuracy_level': args.accuracy_level,
                                            'zero_points': 'per block, round to nearest over [min, max] widened to hold 0'}},
                    figures=figures)


if __name__ == '__main__':
    main()
