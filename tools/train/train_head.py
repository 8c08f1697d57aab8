"""Trains the EAGLE-style draft head on the float32 target's features and writes public/models/speclab-head.

  npx tsx tools/train/exportCorpus.ts <dir> --records 60000 --validation 1500 --heldout 10
  /usr/bin/python3 tools/train/train_head.py --data <dir> --minutes 20 [--device cuda] [--out public/models/speclab-head]

Needs PyTorch, NumPy and ONNX (apt-get install python3-torch python3-numpy python3-onnx). The contract is
/work/HEAD_INTERFACE.md's, summed up in docs/models.md ("The draft head"):
  head(f_t, x_{t+1}) = (logits, f^_{t+1}), f^ = LN(W_out · MLP(LN([f_t, E x_{t+1}]))), logits = f^ E^T,
with f the target's final-LayerNorm output (its `features` output) and E its tied token embedding, frozen.
The target's weights come from its committed ONNX file (reexport.py's weights_of); its features are computed
once, in float32, for every record of --data's train and validation splits.

Loss at every depth d = 1..--depths, unrolled as the drafter runs it (depth 1 reads the target's feature f_t,
depth d > 1 the head's own f^ from depth d - 1, each with the true next token): KL(p || q) from the target's
next-token distribution p = softmax(f_{t+d} E^T) (T = 1) to the head's q, plus --regression times the smooth-L1
distance from f^ to the target's f_{t+d} (EAGLE). Only the positions where the drafter runs count: chains that
start at the prompt's second-to-last position or later and predict a completion token. Depth d weighs
--depth-decay^(d-1).

Held out (the validation split, seed 2): the mean of sum_x min(p, q) at depth 1..4 over those positions, by
preset, which is the acceptance probability of one draft at T = 1; the draft model's (speclab-draft, which
reads the real prefix, so depth does not change it) beside it, at the depth-1 positions.

Training stops after --minutes of wall clock or --steps, with the learning rate on a cosine over the budget.
Writes <out>/onnx/model.onnx (opset 17, built node by node: weights float16, each Cast to float32 once),
<out>/manifest.json (format speclab-head/1, golden rows computed by torch, the curve), and --curve's CSV. Never run by CI.
"""
import argparse
import csv
import json
import math
import os
import sys
import time

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
for folder in (HERE, os.path.join(HERE, '..', 'tools', 'train')):
    if os.path.exists(os.path.join(folder, 'model.py')):
        sys.path.insert(0, folder)
        break
from reexport import decoder_for, weights_hash, weights_of  # noqa: E402
from train import load, sha256, write_manifest  # noqa: E402

DEPTHS_REPORTED = 4
FORMAT = 'speclab-head/1'


class Head(nn.Module):
    """The position-wise head: no attention, so no cache. `embedding` (the target's E) is a frozen buffer."""

    def __init__(self, embedding: torch.Tensor, final_norm: nn.LayerNorm, hidden: int, blocks: int, ffn: int):
        super().__init__()
        width = embedding.shape[1]
        self.config = dict(width=width, hidden=hidden, blocks=blocks, ffn=ffn, vocab=embedding.shape[0])
        self.register_buffer('embedding', embedding.detach().clone())
        self.ln_in = nn.LayerNorm(2 * width)
        self.fc_in = nn.Linear(2 * width, hidden)
        self.norms = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(blocks))
        self.ups = nn.ModuleList(nn.Linear(hidden, ffn) for _ in range(blocks))
        self.downs = nn.ModuleList(nn.Linear(ffn, hidden) for _ in range(blocks))
        self.fc_out = nn.Linear(hidden, width)
        # The output is a LayerNorm's, as the target's features are: it starts as the target's ln_final.
        self.ln_out = nn.LayerNorm(width)
        with torch.no_grad():
            self.ln_out.weight.copy_(final_norm.weight)
            self.ln_out.bias.copy_(final_norm.bias)
            for down in self.downs:
                down.weight.mul_(0.1)

    def forward(self, features, input_ids):
        x = self.fc_in(self.ln_in(torch.cat([features, self.embedding[input_ids]], dim=-1)))
        for norm, up, down in zip(self.norms, self.ups, self.downs):
            x = x + down(nn.functional.gelu(up(norm(x))))
        features_out = self.ln_out(self.fc_out(x))
        return features_out @ self.embedding.t(), features_out


def target_features(target, ids):
    """The target's final-LayerNorm output for ids [batch, length] from position 0 (causal, no cache), on ids' device."""
    batch, length = ids.shape
    causal = torch.ones(length, length, dtype=torch.bool, device=ids.device).tril()
    bias = torch.zeros(1, 1, length, length, device=ids.device).masked_fill(~causal, -1e9)
    x = target.token_embedding(ids) + target.position_embedding(torch.arange(length, device=ids.device)).unsqueeze(0)
    heads = target.config['heads']
    empty = torch.zeros(batch, heads, 0, target.config['width'] // heads, device=ids.device)
    for block in target.blocks:
        x, _, _ = block(x, bias, empty, empty)
    return target.ln_final(x)


def batches_of(split, presets, target, batch: int, device):
    """Records sorted by length, in padded batches: ids, the target's features, prompt and record lengths, presets."""
    tokens, starts, ends, prompts = split
    order = sorted(range(len(starts)), key=lambda i: int(ends[i] - starts[i]))
    out = []
    with torch.no_grad():
        for k in range(0, len(order), batch):
            pick = order[k:k + batch]
            lengths = torch.tensor([int(ends[i] - starts[i]) for i in pick])
            ids = torch.full((len(pick), int(lengths.max())), int(tokens[ends[pick[0]] - 1]), dtype=torch.int64)
            for row, i in enumerate(pick):
                ids[row, :lengths[row]] = tokens[starts[i]:ends[i]]
            ids = ids.to(device)
            out.append({'ids': ids, 'features': target_features(target, ids), 'prompt': torch.tensor([int(prompts[i]) for i in pick], device=device),
                        'length': lengths.to(device), 'presets': [presets[i] for i in pick]})
    return out


def depth_mask(b, depth: int):
    """[batch, length - depth]: the depth-d prediction at position s (s = depth..length-1), read from a chain that
    starts at t = s - depth >= prompt - 2 and predicts token s + 1, a completion token (s + 1 <= length - 1)."""
    length = b['ids'].shape[1]
    s = torch.arange(depth, length, device=b['ids'].device).unsqueeze(0)
    return (s - depth >= b['prompt'].unsqueeze(1) - 2) & (s + 1 <= b['length'].unsqueeze(1) - 1)


def unrolled(head, b, depths: int):
    """Per depth d: (logits, predicted features) for positions d..length-1, each from the previous depth's features."""
    features, ids, out = b['features'], b['ids'], []
    for depth in range(1, depths + 1):
        logits, features = head(features[:, :-1], ids[:, depth:])
        out.append((logits, features))
    return out


def losses(head, b, depths: int, regression: float, decay: float, embedding):
    total, parts = 0.0, []
    for depth, (logits, predicted) in enumerate(unrolled(head, b, depths), start=1):
        mask = depth_mask(b, depth).float()
        true = b['features'][:, depth:]
        log_p = torch.log_softmax(true @ embedding.t(), -1)
        log_q = torch.log_softmax(logits, -1)
        kl = (log_p.exp() * (log_p - log_q)).sum(-1)
        distance = nn.functional.smooth_l1_loss(predicted, true, reduction='none').mean(-1)
        count = mask.sum().clamp_min(1)
        kl, distance = (kl * mask).sum() / count, (distance * mask).sum() / count
        total = total + decay ** (depth - 1) * (kl + regression * distance)
        parts.append((float(kl), float(distance)))
    return total, parts


def overlap_by_preset(head, draft, batches, embedding, depths: int):
    """sum_x min(p, q) summed and counted by preset and depth; the draft model's at the depth-1 positions."""
    sums = {}
    with torch.no_grad():
        for b in batches:
            rows = {}
            for depth, (logits, _) in enumerate(unrolled(head, b, depths), start=1):
                p = torch.softmax(b['features'][:, depth:] @ embedding.t(), -1)
                rows[depth] = (torch.minimum(p, torch.softmax(logits, -1)).sum(-1), depth_mask(b, depth))
            if draft is not None:
                ids = b['ids']
                batch, length = ids.shape
                draft_logits = draft(ids.cpu(), torch.ones(batch, length, dtype=torch.int64), torch.arange(length).unsqueeze(0).repeat(batch, 1),
                                     None, *draft.empty_past(batch))[0].to(ids.device)
                p = torch.softmax(b['features'][:, 1:] @ embedding.t(), -1)
                rows['draft'] = (torch.minimum(p, torch.softmax(draft_logits[:, 1:], -1)).sum(-1), depth_mask(b, 1))
            for key, (values, mask) in rows.items():
                for row, preset in enumerate(b['presets']):
                    for name in (preset, 'all'):
                        total, count = sums.get((name, key), (0.0, 0))
                        sums[(name, key)] = (total + float(values[row][mask[row]].sum()), count + int(mask[row].sum()))
    table = {}
    for (name, key), (total, count) in sorted(sums.items(), key=lambda item: str(item[0])):
        label = f'depth_{key}' if key != 'draft' else 'draft_model'
        table.setdefault(name, {})[label] = round(total / max(count, 1), 4)
        if key == 1:
            table[name]['positions'] = count
    return table


def rounded_to_float16(head):
    """Rounds every weight (and E) to float16 in place: the file stores them so, and the golden rows use these."""
    with torch.no_grad():
        for tensor in list(head.parameters()) + [head.embedding]:
            tensor.copy_(tensor.half().float())


def onnx_of(head) -> onnx.ModelProto:
    """The head as an opset-17 graph: float16 initializers, each Cast to float32, then plain float32 ops."""
    nodes, initializers = [], []
    counter = iter(range(10 ** 6))

    def weight(name, tensor):
        initializers.append(numpy_helper.from_array(tensor.detach().cpu().numpy().astype(np.float16), name + '.f16'))
        nodes.append(helper.make_node('Cast', [name + '.f16'], [name], to=TensorProto.FLOAT, name=f'cast/{name}'))
        return name

    def op(kind, inputs, **attributes):
        out = f'{kind.lower()}_{next(counter)}'
        nodes.append(helper.make_node(kind, inputs, [out], name=out, **attributes))
        return out

    def linear(name, module, x):
        return op('Add', [op('MatMul', [x, weight(name + '.weight_t', module.weight.t())]), weight(name + '.bias', module.bias)])

    def norm(name, module, x, output=None):
        inputs = [x, weight(name + '.weight', module.weight), weight(name + '.bias', module.bias)]
        if output is None:
            return op('LayerNormalization', inputs, axis=-1, epsilon=module.eps)
        nodes.append(helper.make_node('LayerNormalization', inputs, [output], name=output, axis=-1, epsilon=module.eps))
        return output

    embedding = weight('embedding', head.embedding)
    x = op('Concat', ['features', op('Gather', [embedding, 'input_ids'], axis=0)], axis=-1)
    x = linear('fc_in', head.fc_in, norm('ln_in', head.ln_in, x))
    half = helper.make_tensor('half', TensorProto.FLOAT, [], [0.5])
    one = helper.make_tensor('one', TensorProto.FLOAT, [], [1.0])
    root_half = helper.make_tensor('root_half', TensorProto.FLOAT, [], [1 / math.sqrt(2)])
    initializers += [half, one, root_half]
    for i in range(len(head.ups)):
        u = linear(f'blocks.{i}.up', head.ups[i], norm(f'blocks.{i}.norm', head.norms[i], x))
        # GELU as torch computes it: 0.5 x (1 + erf(x / sqrt 2)).
        g = op('Mul', [op('Mul', [u, 'half']), op('Add', ['one', op('Erf', [op('Mul', [u, 'root_half'])])])])
        x = op('Add', [x, linear(f'blocks.{i}.down', head.downs[i], g)])
    features_out = norm('ln_out', head.ln_out, linear('fc_out', head.fc_out, x), output='features_out')
    nodes.append(helper.make_node('MatMul', [features_out, op('Transpose', [embedding], perm=[1, 0])], ['logits'], name='logits'))
    width, vocab = head.config['width'], head.config['vocab']
    graph = helper.make_graph(
        nodes, 'speclab-head',
        [helper.make_tensor_value_info('features', TensorProto.FLOAT, ['batch_size', 'sequence_length', width]),
         helper.make_tensor_value_info('input_ids', TensorProto.INT64, ['batch_size', 'sequence_length'])],
        [helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['batch_size', 'sequence_length', vocab]),
         helper.make_tensor_value_info('features_out', TensorProto.FLOAT, ['batch_size', 'sequence_length', width])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)], producer_name='tools/train/train_head.py')
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def golden_of(head, target, prompts, device):
    """Per golden prompt: the target's feature at its second-to-last position (rounded), its last token, and the
    head's logits and features_out for them (from the rounded feature), as the drafter's first call makes them."""
    rows = []
    with torch.no_grad():
        for prompt in prompts:
            ids = torch.tensor([prompt['input_ids']], device=device)
            feature = [round(float(x), 6) for x in target_features(target, ids)[0, -2]]
            logits, features_out = head(torch.tensor([[feature]], device=device), ids[:, -1:])
            rows.append({'preset': prompt['preset'], 'input_ids': prompt['input_ids'], 'features_in': feature,
                         'input_id': prompt['input_ids'][-1],
                         'logits': [round(float(x), 6) for x in logits[0, 0]],
                         'features_out': [round(float(x), 6) for x in features_out[0, 0]]})
    return rows


def tf32(device: str, allowed: bool) -> None:
    if device.startswith('cuda'):
        torch.backends.cuda.matmul.allow_tf32 = allowed
        torch.backends.cudnn.allow_tf32 = allowed


def onnxruntime_check(onnx_path: str, head, batches):
    """The largest |difference| between onnxruntime (CPU EP) and torch over a few held-out batches, or None
    where onnxruntime for Python is not installed."""
    try:
        import onnxruntime
    except ImportError:
        return None
    session = onnxruntime.InferenceSession(onnx_path, providers=['CPUExecutionProvider'])
    worst = {'logits': 0.0, 'features_out': 0.0}
    with torch.no_grad():
        for b in batches:
            logits, features_out = head(b['features'][:, :-1], b['ids'][:, 1:])
            got = session.run(['logits', 'features_out'], {'features': b['features'][:, :-1].cpu().numpy(), 'input_ids': b['ids'][:, 1:].cpu().numpy()})
            for name, mine, theirs in (('logits', logits, got[0]), ('features_out', features_out, got[1])):
                worst[name] = max(worst[name], float(np.abs(mine.cpu().numpy() - theirs).max()))
    return {'onnxruntime': onnxruntime.__version__, 'batches': len(batches), 'positions': sum(int(b['ids'][:, 1:].numel()) for b in batches),
            'max_abs_difference': worst}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data', required=True, help='a folder written by tools/train/exportCorpus.ts (with presets)')
    parser.add_argument('--models', default='public/models', help='where speclab-target and speclab-draft are')
    parser.add_argument('--out', default='public/models/speclab-head')
    parser.add_argument('--curve', help='also write the training curve (held-out rows) to this CSV file')
    parser.add_argument('--records', type=int, default=0, help='train records to use (0: all)')
    parser.add_argument('--validation-records', type=int, default=0, help='held-out records to use (0: all)')
    parser.add_argument('--hidden', type=int, default=256)
    parser.add_argument('--blocks', type=int, default=2)
    parser.add_argument('--ffn', type=int, default=768)
    parser.add_argument('--depths', type=int, default=4, help='unrolled depths trained')
    parser.add_argument('--depth-decay', type=float, default=0.8)
    parser.add_argument('--regression', type=float, default=1.0, help='weight of the smooth-L1 feature term')
    parser.add_argument('--batch', type=int, default=64, help='records a step')
    parser.add_argument('--lr', type=float, default=2e-3)
    parser.add_argument('--warmup', type=int, default=100)
    parser.add_argument('--minutes', type=float, required=True, help='training wall-clock budget; the cosine runs over it')
    parser.add_argument('--steps', type=int, default=10 ** 9, help='stop earlier after this many steps')
    parser.add_argument('--eval-seconds', type=float, default=30, help='a held-out row of the curve every N seconds')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--device', default='cpu')
    parser.add_argument('--where', default='this machine\'s CPU', help='the machine, for the training record')
    args = parser.parse_args()
    if args.minutes <= 0 or args.batch < 1 or not 1 <= args.depths <= 8:
        parser.error('--minutes must be > 0, --batch >= 1 and --depths 1..8')
    started = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    tf32(args.device, False)
    device = torch.device(args.device)
    rng = np.random.default_rng(args.seed)

    target_dir = os.path.join(args.models, 'speclab-target')
    target_manifest = json.load(open(os.path.join(target_dir, 'manifest.json')))
    target = decoder_for(target_manifest)
    state = weights_of(os.path.join(target_dir, 'onnx', 'model.onnx'), target)
    target.load_state_dict(state, strict=True)
    target.eval().to(device)
    for parameter in target.parameters():
        parameter.requires_grad_(False)
    draft_dir = os.path.join(args.models, 'speclab-draft')
    draft = decoder_for(json.load(open(os.path.join(draft_dir, 'manifest.json'))))
    draft.load_state_dict(weights_of(os.path.join(draft_dir, 'onnx', 'model.onnx'), draft), strict=True)
    draft.eval()
    embedding = target.token_embedding.weight.detach()

    def split(name, limit):
        data = load(args.data, name)
        presets = json.load(open(os.path.join(args.data, f'{name}.presets.json')))
        if limit:
            data = (data[0], data[1][:limit], data[2][:limit], data[3][:limit])
        return batches_of(data, presets, target, args.batch, device), int(sum(data[2] - data[1]))

    train, train_tokens = split('train', args.records)
    held_out, held_out_tokens = split('validation', args.validation_records)
    print(f'features of {train_tokens} train and {held_out_tokens} held-out tokens in {time.time() - started:.0f} s', flush=True)

    head = Head(embedding, target.ln_final, args.hidden, args.blocks, args.ffn).to(device)
    trainable = sum(p.numel() for p in head.parameters())
    optimizer = torch.optim.AdamW(head.parameters(), lr=args.lr, weight_decay=0.01)
    budget = args.minutes * 60
    curve, step, last_eval, train_started = [], 0, -1e9, time.time()

    def evaluate(train_parts):
        head.eval()
        table = overlap_by_preset(head, None, held_out, embedding, DEPTHS_REPORTED)['all']
        head.train()
        row = {'step': step, 'seconds': round(time.time() - train_started, 1),
               'train_kl_1': round(train_parts[0][0], 4), 'train_smooth_l1_1': round(train_parts[0][1], 5),
               'train_kl_last': round(train_parts[-1][0], 4),
               **{f'held_out_depth_{d}': table[f'depth_{d}'] for d in range(1, DEPTHS_REPORTED + 1)}}
        curve.append(row)
        print(row, flush=True)

    parts = [(float('nan'), float('nan'))]
    head.train()
    # TF32 products while training only (the features above, the metrics and golden rows below are float32).
    tf32(args.device, True)
    while step < args.steps:
        elapsed = time.time() - train_started
        if elapsed >= budget:
            break
        scale = min(1.0, (step + 1) / args.warmup) * 0.5 * (1 + math.cos(math.pi * elapsed / budget))
        for group in optimizer.param_groups:
            group['lr'] = args.lr * scale
        loss, parts = losses(head, train[int(rng.integers(len(train)))], args.depths, args.regression, args.depth_decay, embedding)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(head.parameters(), 1.0)
        optimizer.step()
        step += 1
        if time.time() - last_eval >= args.eval_seconds:
            last_eval = time.time()
            evaluate(parts)
    training_seconds = round(time.time() - train_started)
    tf32(args.device, False)
    if not curve or curve[-1]['step'] != step:
        evaluate(parts)

    head.eval()
    rounded_to_float16(head)
    metrics = overlap_by_preset(head, draft, held_out, embedding, DEPTHS_REPORTED)
    print(json.dumps(metrics), flush=True)

    os.makedirs(os.path.join(args.out, 'onnx'), exist_ok=True)
    onnx_path = os.path.join(args.out, 'onnx', 'model.onnx')
    onnx.save(onnx_of(head), onnx_path)
    if args.curve:
        with open(args.curve, 'w', newline='') as handle:
            writer = csv.DictWriter(handle, fieldnames=list(curve[0]))
            writer.writeheader()
            writer.writerows(curve)

    width, vocab, hidden, ffn, blocks = embedding.shape[1], embedding.shape[0], args.hidden, args.ffn, args.blocks
    macs = 2 * width * hidden + blocks * 2 * hidden * ffn + hidden * width + width * vocab
    t = target_manifest['architecture']
    target_macs = t['layers'] * 12 * t['width'] ** 2 + t['width'] * t['vocab_size']
    manifest = {
        'name': 'speclab-head',
        'format': FORMAT,
        'architecture': {
            'type': 'position-wise residual MLP (no attention, no cache): features_out = LN_out(fc_out(x)), '
                    f'x = fc_in(LN_in([features, E[input_ids]])) then {blocks} blocks x += down(gelu(up(LN(x)))); '
                    'logits = features_out @ E^T, E the target\'s tied token embedding, frozen',
            'width': width, 'hidden': hidden, 'blocks': blocks, 'ffn': ffn, 'vocab_size': vocab,
            'parameters': trainable + embedding.numel(),
            'trained_parameters': trainable,
            'frozen_parameters': {'token_embedding': embedding.numel()},
            'multiply_adds_per_position': macs,
            'target_multiply_adds_per_position': target_macs,
            'dtype': 'float16 weights in the file, each Cast to float32 once; float32 compute',
        },
        'target': {'name': 'speclab-target', 'weights_sha256': weights_hash(state),
                   'feature': 'the output `features`: the final LayerNorm (ln_final), whose product with E is `logits`'},
        'io': {'inputs': ['features', 'input_ids'], 'outputs': ['logits', 'features_out']},
        'files': [{'path': 'onnx/model.onnx', 'bytes': os.path.getsize(onnx_path), 'sha256': sha256(onnx_path)}],
        'training': {
            'where': args.where, 'device': args.device, 'torch': torch.__version__,
            'data': f'tools/train/exportCorpus.ts: {train_tokens} tokens of {sum(len(b["presets"]) for b in train)} train records (seed 1); '
                    f'held out: {held_out_tokens} tokens of {sum(len(b["presets"]) for b in held_out)} validation records (seed 2)',
            'features': 'the float32 target\'s, computed once in float32 by torch from its committed ONNX weights',
            'loss': f'sum over unrolled depths d = 1..{args.depths} (depth d > 1 reads the head\'s own features) of '
                    f'{args.depth_decay}^(d-1) (KL(p || q) + {args.regression} smooth-L1(f^, f)), p the target\'s '
                    'next-token law at T = 1, on the positions where the drafter runs (chains starting at the prompt\'s '
                    'second-to-last position or later, predicting completion tokens)',
            'optimizer': f'AdamW, lr {args.lr}, weight decay 0.01, warmup {args.warmup} steps, cosine to 0 over the '
                         f'{args.minutes}-minute budget; gradient norm clipped at 1',
            'batch_records': args.batch, 'steps': step, 'seconds': training_seconds, 'seed': args.seed,
            'curve': curve,
        },
        'evaluation': {
            'metric': 'mean sum_x min(p, q) on held-out completion positions (the acceptance probability of one '
                      'draft at T = 1), by preset; depth d: the d-th draft of a chain fed the true tokens; '
                      'draft_model: speclab-draft\'s at the depth-1 positions; float16 weights as in the file',
            'by_preset': metrics,
        },
        'golden': {'computed_by': 'torch (float16-rounded weights, float32 compute)',
                   'note': 'the first draft call after each preset prompt: features_in = the float32 target\'s feature at '
                           'the prompt\'s second-to-last position (rounded to 6 decimals), input_id = its last token',
                   'rows': golden_of(head, target, target_manifest['golden']['prompts'], device)},
    }
    write_manifest(args.out, manifest)
    try:
        check = onnxruntime_check(onnx_path, head, held_out[:3] + held_out[-2:])
    except Exception as error:  # the files are written; say why the check did not run
        check = {'error': repr(error)}
    print(f'onnxruntime against torch: {check}', flush=True)
    if check is not None:
        manifest['export_check'] = check
        write_manifest(args.out, manifest)
    print(f'wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes): {trainable} trained parameters + {embedding.numel()} frozen, '
          f'{macs} multiply-adds a position (the target: {target_macs}); {step} steps in {training_seconds} s; '
          f'{time.time() - started:.0f} s in all', flush=True)


if __name__ == '__main__':
    main()
