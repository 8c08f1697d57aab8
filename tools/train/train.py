"""Trains one bundled model on the tokenized corpus, exports it to ONNX and writes its manifest.

  /usr/bin/python3 tools/train/train.py --data <dir from export-corpus.ts> --name speclab-target \
      --width 256 --layers 6 --heads 8 --steps 900

Writes public/models/<name>/{onnx/model.onnx, tokenizer.json, manifest.json}. Deterministic in --seed and
the step count (up to floating-point summation order across thread counts).
"""
import argparse
import hashlib
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from model import Decoder, export_onnx  # noqa: E402

TOKENIZER = 'public/models/speclab-tokenizer/tokenizer.json'
STOP_TOKEN = '<|endoftext|>'


def load(data: str, split: str):
    tokens = np.fromfile(os.path.join(data, f'{split}.tokens'), dtype='<u2').astype(np.int64)
    starts = np.fromfile(os.path.join(data, f'{split}.starts'), dtype='<u4').astype(np.int64)
    return torch.from_numpy(tokens), starts


def windows(tokens, starts, context: int, picks):
    """Windows of context+1 tokens that begin at record starts, as the app's prompts do (position 0)."""
    rows = []
    for start in starts[picks]:
        row = tokens[start:start + context + 1]
        if len(row) < context + 1:
            row = torch.cat([row, tokens[:context + 1 - len(row)]])
        rows.append(row)
    batch = torch.stack(rows)
    return batch[:, :-1], batch[:, 1:]


def loss_of(model, inputs, targets):
    batch, length = inputs.shape
    mask = torch.ones(batch, length, dtype=torch.int64)
    positions = torch.arange(length).unsqueeze(0).repeat(batch, 1)
    logits = model(inputs, mask, positions, *model.empty_past(batch))[0]
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--data', required=True)
    parser.add_argument('--name', required=True)
    parser.add_argument('--width', type=int, required=True)
    parser.add_argument('--layers', type=int, required=True)
    parser.add_argument('--heads', type=int, required=True)
    parser.add_argument('--context', type=int, default=128)
    parser.add_argument('--batch', type=int, default=32)
    parser.add_argument('--lr', type=float, default=1e-3)
    parser.add_argument('--steps', type=int, required=True)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--threads', type=int, default=2)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    generator = np.random.default_rng(args.seed)
    tokenizer = json.load(open(TOKENIZER))
    vocab = len(tokenizer['model']['vocab']) + sum(1 for t in tokenizer['added_tokens'] if t['content'] not in tokenizer['model']['vocab'])
    stop_id = next(t['id'] for t in tokenizer['added_tokens'] if t['content'] == STOP_TOKEN)
    train_tokens, train_starts = load(args.data, 'train')
    validation_tokens, validation_starts = load(args.data, 'validation')

    model = Decoder(vocab, args.context, args.width, args.layers, args.heads)
    parameters = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = 50
    started = time.time()
    step = 0
    train_loss = float('nan')
    model.train()
    while step < args.steps:
        # Linear warmup, then cosine decay to a tenth of the peak by the last step.
        progress = step / args.steps
        scale = min(1.0, (step + 1) / warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
        for group in optimizer.param_groups:
            group['lr'] = args.lr * scale
        inputs, targets = windows(train_tokens, train_starts, args.context, generator.integers(0, len(train_starts), args.batch))
        loss = loss_of(model, inputs, targets)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        train_loss = 0.9 * train_loss + 0.1 * loss.item() if step else loss.item()
        step += 1
        if step % 50 == 0:
            print(f'{args.name} step {step} loss {train_loss:.3f} {time.time() - started:.0f}s', flush=True)
    seconds = time.time() - started

    model.eval()
    with torch.no_grad():
        picks = np.arange(len(validation_starts))
        losses = [loss_of(model, *windows(validation_tokens, validation_starts, args.context, picks[i:i + 64])).item()
                  for i in range(0, len(picks), 64)]
    validation_loss = float(np.mean(losses))
    print(f'{args.name}: {step} steps in {seconds:.0f}s, validation loss {validation_loss:.4f}', flush=True)

    out = os.path.join('public/models', args.name)
    os.makedirs(os.path.join(out, 'onnx'), exist_ok=True)
    onnx_path = os.path.join(out, 'onnx', 'model.onnx')
    export_onnx(model, onnx_path)
    shutil.copyfile(TOKENIZER, os.path.join(out, 'tokenizer.json'))

    golden = []
    with torch.no_grad():
        for prompt in json.load(open(os.path.join(args.data, 'golden-prompts.json'))):
            ids = torch.tensor([prompt['input_ids']])
            length = ids.shape[1]
            logits = model(ids, torch.ones_like(ids), torch.arange(length).unsqueeze(0), *model.empty_past(1))[0]
            golden.append({'preset': prompt['preset'], 'input_ids': prompt['input_ids'],
                           'last_logits': [round(float(x), 6) for x in logits[0, -1]]})

    layers, heads, head_dim = args.layers, args.heads, args.width // args.heads
    manifest = {
        'name': args.name,
        'format': 'speclab-model/1',
        'architecture': {'type': 'gpt2-style decoder, pre-LayerNorm, tied embeddings', 'vocab_size': vocab,
                         'context_length': args.context, 'width': args.width, 'layers': layers, 'heads': heads,
                         'head_dim': head_dim, 'parameters': parameters, 'dtype': 'float32'},
        'tokenizer': {'file': 'tokenizer.json', 'vocab_size': vocab, 'stop_token': STOP_TOKEN, 'stop_token_id': stop_id,
                      'special_tokens': {t['content']: t['id'] for t in tokenizer['added_tokens']}},
        'io': {
            'inputs': ['input_ids', 'attention_mask', 'position_ids'] +
                      [f'past_key_values.{i}.{kind}' for i in range(layers) for kind in ('key', 'value')],
            'outputs': ['logits'] + [f'present.{i}.{kind}' for i in range(layers) for kind in ('key', 'value')],
            'past_shape': ['batch_size', heads, 'past_sequence_length', head_dim],
        },
        'files': [{'path': path, 'bytes': os.path.getsize(os.path.join(out, path)), 'sha256': sha256(os.path.join(out, path))}
                  for path in ('onnx/model.onnx', 'tokenizer.json')],
        'training': {'seed': args.seed, 'corpus': 'tools/train/corpus.ts, seed 1 (validation: seed 2)',
                     'train_records': int(len(train_starts)), 'train_tokens': int(len(train_tokens)),
                     'batch': args.batch, 'context': args.context, 'learning_rate': args.lr, 'steps': step,
                     'seconds': round(seconds), 'threads': args.threads, 'torch': torch.__version__,
                     'final_train_loss': round(train_loss, 4), 'validation_loss': round(validation_loss, 4)},
        'golden': {'computed_by': 'torch', 'note': 'logits at the last prompt position', 'prompts': golden},
    }
    with open(os.path.join(out, 'manifest.json'), 'w') as handle:
        json.dump(manifest, handle, indent=1)
        handle.write('\n')
    print(f'wrote {out}', flush=True)


if __name__ == '__main__':
    main()
