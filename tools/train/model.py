"""GPT-2-style decoder with the transformers.js/Optimum ONNX I/O contract.

Inputs: input_ids, attention_mask, position_ids, tree_attention_mask (int64) and
past_key_values.{i}.key|value (float32 [batch, heads, past, head_dim]). Outputs: logits and
present.{i}.key|value. tree_attention_mask [batch, seq, seq] is ours, not Optimum's: entry (b, i, j) = 1 lets
new position i attend to new position j, ANDed with causal order and attention_mask, so one run can score
a token tree (position_ids by depth); all ones is plain causal attention.
Attention is written out by hand so the export is plain opset-17 ops that every onnxruntime EP runs.
"""
import math

import torch
from torch import nn


# The inputs before past_key_values, in the exported order.
INPUTS = ['input_ids', 'attention_mask', 'position_ids', 'tree_attention_mask']


class Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.head_dim = width // heads
        self.ln_attention = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attention_out = nn.Linear(width, width)
        self.ln_mlp = nn.LayerNorm(width)
        self.mlp_in = nn.Linear(width, 4 * width)
        self.mlp_out = nn.Linear(4 * width, width)

    def forward(self, x, bias, past_key, past_value):
        batch, length, width = x.shape
        q, k, v = self.qkv(self.ln_attention(x)).split(width, dim=2)
        split = lambda t: t.view(batch, length, self.heads, self.head_dim).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        k = torch.cat([past_key, k], dim=2)
        v = torch.cat([past_value, v], dim=2)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim) + bias
        mixed = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(batch, length, width)
        x = x + self.attention_out(mixed)
        x = x + self.mlp_out(nn.functional.gelu(self.mlp_in(self.ln_mlp(x))))
        return x, k, v


class Decoder(nn.Module):
    def __init__(self, vocab: int, context: int, width: int, layers: int, heads: int):
        super().__init__()
        self.config = dict(vocab=vocab, context=context, width=width, layers=layers, heads=heads)
        self.token_embedding = nn.Embedding(vocab, width)
        self.position_embedding = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln_final = nn.LayerNorm(width)
        self.apply(self._init)

    @staticmethod
    def _init(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def empty_past(self, batch: int):
        heads = self.config['heads']
        head_dim = self.config['width'] // heads
        return [torch.zeros(batch, heads, 0, head_dim) for _ in range(2 * self.config['layers'])]

    def forward(self, input_ids, attention_mask, position_ids, tree_attention_mask, *past):
        """past is key0, value0, key1, value1, ...; returns logits then present in the same order.
        tree_attention_mask may be None (all ones)."""
        batch, length = input_ids.shape
        total = attention_mask.shape[1]
        past_length = total - length
        # Query i (absolute position past_length + i) sees key j when j <= past_length + i and the
        # attention mask keeps j; a new key j also needs the tree mask's (i, j - past_length).
        query_positions = torch.arange(length).unsqueeze(1) + past_length
        key_positions = torch.arange(total).unsqueeze(0)
        allowed = (key_positions <= query_positions).unsqueeze(0) & attention_mask.bool().unsqueeze(1)
        if tree_attention_mask is not None:
            past_keys = torch.ones(batch, length, past_length, dtype=torch.bool)
            allowed = allowed & torch.cat([past_keys, tree_attention_mask.bool()], dim=2)
        allowed = allowed.unsqueeze(1)
        bias = torch.zeros(allowed.shape).masked_fill(~allowed, -1e9)
        x = self.token_embedding(input_ids) + self.position_embedding(position_ids)
        present = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, bias, past[2 * i], past[2 * i + 1])
            present += [k, v]
        logits = self.ln_final(x) @ self.token_embedding.weight.t()
        return (logits, *present)


def export_onnx(model: Decoder, path: str) -> None:
    """Exports with dynamic batch, sequence and past axes at opset 17."""
    model.eval()
    layers = model.config['layers']
    batch, length, past_length = 2, 3, 4
    heads = model.config['heads']
    head_dim = model.config['width'] // heads
    past = [torch.zeros(batch, heads, past_length, head_dim) for _ in range(2 * layers)]
    input_ids = torch.zeros(batch, length, dtype=torch.int64)
    attention_mask = torch.ones(batch, past_length + length, dtype=torch.int64)
    position_ids = torch.arange(past_length, past_length + length).unsqueeze(0).repeat(batch, 1)
    tree_attention_mask = torch.ones(batch, length, length, dtype=torch.int64)
    past_names = [f'past_key_values.{i}.{kind}' for i in range(layers) for kind in ('key', 'value')]
    present_names = [f'present.{i}.{kind}' for i in range(layers) for kind in ('key', 'value')]
    axes = {'input_ids': {0: 'batch_size', 1: 'sequence_length'},
            'attention_mask': {0: 'batch_size', 1: 'total_sequence_length'},
            'position_ids': {0: 'batch_size', 1: 'sequence_length'},
            'tree_attention_mask': {0: 'batch_size', 1: 'sequence_length', 2: 'sequence_length'},
            'logits': {0: 'batch_size', 1: 'sequence_length'}}
    for name in past_names:
        axes[name] = {0: 'batch_size', 2: 'past_sequence_length'}
    for name in present_names:
        axes[name] = {0: 'batch_size', 2: 'total_sequence_length'}
    with torch.no_grad():
        torch.onnx.export(model, (input_ids, attention_mask, position_ids, tree_attention_mask, *past), path, opset_version=17,
                          input_names=[*INPUTS, *past_names],
                          output_names=['logits', *present_names], dynamic_axes=axes, do_constant_folding=True)
