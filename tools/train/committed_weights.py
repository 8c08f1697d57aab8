"""A committed model's weights, read back from its ONNX file onto model.py's Decoder (the constant-folded Linear
weights taken in graph order), and their hash: shared by reexport.py, train.py (--init-from), distill.py and
train_head.py.
"""
import hashlib

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from model import Decoder

LINEARS = ('qkv', 'attention_out', 'mlp_in', 'mlp_out')


def decoder_for(manifest) -> Decoder:
    a = manifest['architecture']
    return Decoder(a['vocab_size'], a['context_length'], a['width'], a['layers'], a['heads'])


def weights_of(path: str, model: Decoder):
    """The ONNX file's initializers as model's state_dict, or an error naming what does not fit."""
    graph = onnx.load(path).graph
    initializers = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    expected = model.state_dict()
    folded = [initializers[node.input[1]] for node in graph.node
              if node.op_type == 'MatMul' and node.input[1] in initializers and node.input[1] not in expected]
    state = {}
    for name, tensor in expected.items():
        if name in initializers:
            state[name] = torch.from_numpy(initializers[name].copy())
        elif name.endswith('.weight') and name.split('.')[-2] in LINEARS:
            if not folded:
                raise ValueError(f'{path}: no MatMul operand left for {name}')
            state[name] = torch.from_numpy(folded.pop(0).T.copy())
        else:
            raise ValueError(f'{path}: no initializer for {name}')
        if tuple(state[name].shape) != tuple(tensor.shape):
            raise ValueError(f'{path}: {name} has shape {tuple(state[name].shape)}, the Decoder wants {tuple(tensor.shape)}')
    output_projection = folded.pop(0) if folded else None
    if output_projection is None or not np.array_equal(output_projection, state['token_embedding.weight'].numpy().T):
        raise ValueError(f'{path}: the last MatMul is not the tied output projection (token_embedding transposed)')
    if folded:
        raise ValueError(f'{path}: {len(folded)} MatMul operands left over')
    return state


def weights_hash(state) -> str:
    digest = hashlib.sha256()
    for name in sorted(state):
        digest.update(name.encode())
        digest.update(state[name].contiguous().numpy().astype('<f4').tobytes())
    return digest.hexdigest()
