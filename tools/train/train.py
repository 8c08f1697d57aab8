"""Trains one bundled model on the tokenized corpus, exports it to ONNX and writes its manifest.

  /usr/bin/python3 tools/train/train.py --data <dir from exportCorpus.ts> --name speclab-target \
      --width 256 --layers 6 --heads 8 --steps 3000 --eval-every 250 --stop-at 0.97 --checkpoint <file>

The loss is on the completion only. With --eval-every it decodes the held-out prompts (seed 2) greedily and
stops once every kind of record reaches --stop-at field accuracy (--stop-custom-at for custom schemas);
with --checkpoint it saves there at each evaluation and resumes from it when it exists. Writes
public/models/<name>/{onnx/model.onnx, tokenizer.json, manifest.json}. Deterministic in --seed, the step
count and the stopping rule (up to floating-point summation order across thread counts).
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
from model import INPUTS, Decoder, export_onnx  # noqa: E402

TOKENIZER = 'public/models/speclab-tokenizer/tokenizer.json'
STOP_TOKEN = '<|endoftext|>'


def load(data: str, split: str):
    tokens = np.fromfile(os.path.join(data, f'{split}.tokens'), dtype='<u2').astype(np.int64)
    starts = np.fromfile(os.path.join(data, f'{split}.starts'), dtype='<u4').astype(np.int64)
    prompts = np.fromfile(os.path.join(data, f'{split}.prompts'), dtype='<u4').astype(np.int64)
    ends = np.append(starts[1:], len(tokens))
    return torch.from_numpy(tokens), starts, ends, prompts


def batch_of(split, picks, pad_id: int):
    """One record a row, from position 0 as the app's prompts start, padded at the end to the longest. The
    targets are the completion only (the prompt is given, not predicted): the rest is ignored (-100)."""
    tokens, starts, ends, prompts = split
    length = int(max(ends[i] - starts[i] for i in picks)) - 1
    inputs = torch.full((len(picks), length), pad_id, dtype=torch.int64)
    targets = torch.full((len(picks), length), -100, dtype=torch.int64)
    for row, i in enumerate(picks):
        record = tokens[starts[i]:ends[i]]
        inputs[row, :len(record) - 1] = record[:-1]
        targets[row, prompts[i] - 1:len(record) - 1] = record[prompts[i]:]
    return inputs, targets


def loss_of(model, inputs, targets):
    batch, length = inputs.shape
    mask = torch.ones(batch, length, dtype=torch.int64)
    positions = torch.arange(length).unsqueeze(0).repeat(batch, 1)
    logits = model(inputs, mask, positions, None, *model.empty_past(batch))[0]
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100)


def byte_decoder(tokenizer):
    """Token id → bytes, inverting GPT-2's byte-level alphabet (tools/train/byteLevel.ts)."""
    printable = lambda b: 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255
    char_to_byte, following = {}, 256
    for b in range(256):
        if printable(b):
            char_to_byte[chr(b)] = b
        else:
            char_to_byte[chr(following)] = b
            following += 1
    return {token_id: bytes(char_to_byte[c] for c in token) for token, token_id in tokenizer['model']['vocab'].items()}


def greedy(model, prompts, stop_id: int, context: int, max_new: int):
    """Greedy continuations of a batch of prompts (left-padded), with the KV cache; no grammar mask."""
    batch, longest = len(prompts), max(len(p) for p in prompts)
    ids = torch.zeros(batch, longest, dtype=torch.int64)
    mask = torch.zeros(batch, longest, dtype=torch.int64)
    for row, prompt in enumerate(prompts):
        ids[row, longest - len(prompt):] = torch.tensor(prompt)
        mask[row, longest - len(prompt):] = 1
    positions = (mask.cumsum(1) - 1).clamp(min=0)
    past = model.empty_past(batch)
    out = [[] for _ in range(batch)]
    done = torch.zeros(batch, dtype=torch.bool)
    for _ in range(min(max_new, context - longest)):
        logits, *past = model(ids, mask, positions, None, *past)
        chosen = logits[:, -1].argmax(-1)
        for row in range(batch):
            if not done[row]:
                out[row].append(int(chosen[row]))
        done |= chosen == stop_id
        if bool(done.all()):
            break
        ids = chosen.unsqueeze(1)
        positions = positions[:, -1:] + 1
        mask = torch.cat([mask, torch.ones(batch, 1, dtype=torch.int64)], dim=1)
    return out


def field_accuracy(model, heldout, decode, stop_id: int, context: int):
    """Share of expected JSON fields written exactly, per kind of record, by greedy decoding (no mask)."""
    model.eval()
    hits, totals = {}, {}
    with torch.no_grad():
        for begin in range(0, len(heldout), 70):
            chunk = heldout[begin:begin + 70]
            for record, generated in zip(chunk, greedy(model, [r['input_ids'] for r in chunk], stop_id, context, 96)):
                text = b''.join(decode.get(t, b'') for t in generated if t != stop_id).decode('utf-8', 'replace')
                if record['trigger'] is not None:
                    text = text.split(record['trigger'], 1)[1] if record['trigger'] in text else ''
                try:
                    written = json.loads(text)
                except ValueError:
                    written = {}
                if not isinstance(written, dict):
                    written = {}
                kind = record['preset']
                for key, value in record['expected'].items():
                    totals[kind] = totals.get(kind, 0) + 1
                    same = key in written and json.dumps(written[key]) == json.dumps(value)
                    hits[kind] = hits.get(kind, 0) + int(same)
    model.train()
    return {kind: round(hits[kind] / totals[kind], 4) for kind in sorted(totals)}


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


def files_of(out: str):
    """The manifest's file list: bytes and sha256 of the model and its tokenizer."""
    return [{'path': path, 'bytes': os.path.getsize(os.path.join(out, path)), 'sha256': sha256(os.path.join(out, path))}
            for path in ('onnx/model.onnx', 'tokenizer.json')]


def write_manifest(out: str, manifest) -> None:
    """<out>/manifest.json, indented as committed, with a final newline."""
    with open(os.path.join(out, 'manifest.json'), 'w') as handle:
        json.dump(manifest, handle, indent=1)
        handle.write('\n')


def io_of(layers: int, heads: int, head_dim: int):
    """The manifest's io section: the exported inputs and outputs, in the graph's order."""
    return {
        'inputs': INPUTS + [f'past_key_values.{i}.{kind}' for i in range(layers) for kind in ('key', 'value')],
        'outputs': ['logits'] + [f'present.{i}.{kind}' for i in range(layers) for kind in ('key', 'value')],
        'past_shape': ['batch_size', heads, 'past_sequence_length', head_dim],
    }


def golden_of(model, prompts):
    """Torch logits at each prompt's last position (one prefill, no cache), rounded to 6 decimals."""
    golden = []
    with torch.no_grad():
        for prompt in prompts:
            ids = torch.tensor([prompt['input_ids']])
            logits = model(ids, torch.ones_like(ids), torch.arange(ids.shape[1]).unsqueeze(0), None, *model.empty_past(1))[0]
            golden.append({'preset': prompt['preset'], 'input_ids': prompt['input_ids'],
                           'last_logits': [round(float(x), 6) for x in logits[0, -1]]})
    return golden


def with_context(state, context: int):
    """state with its position embeddings extended to context: the learned positions are kept and each new one
    starts from the last learned position, which training then moves."""
    learned = state['position_embedding.weight']
    if context < learned.shape[0]:
        raise SystemExit(f'a context of {context} is shorter than the learned {learned.shape[0]}')
    return {**state, 'position_embedding.weight': torch.cat([learned, learned[-1:].repeat(context - learned.shape[0], 1)])}


def initial_weights(model, folder: str) -> None:
    """Loads a committed model's weights (read back from its ONNX file) into model, at model's context."""
    from reexport import decoder_for, weights_of
    committed = decoder_for(json.load(open(os.path.join(folder, 'manifest.json'))))
    state = weights_of(os.path.join(folder, 'onnx', 'model.onnx'), committed)
    model.load_state_dict(with_context(state, model.config['context']), strict=True)


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
    parser.add_argument('--warmup', type=int, default=100)
    parser.add_argument('--steps', type=int, required=True, help='the schedule length: cosine decay ends here')
    parser.add_argument('--eval-every', type=int, default=0, help='measure held-out field accuracy every N steps')
    parser.add_argument('--stop-at', type=float, default=0, help='stop once every kind reaches this field accuracy')
    parser.add_argument('--stop-custom-at', type=float, default=0, help='the threshold for custom schemas')
    parser.add_argument('--checkpoint', help='a file to save to at each evaluation, and to resume from')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--init-from', help='a bundled model folder (public/models/<name>) to fine-tune from, its context extended to --context')
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    generator = np.random.default_rng(args.seed)
    tokenizer = json.load(open(TOKENIZER))
    vocab = len(tokenizer['model']['vocab']) + sum(1 for t in tokenizer['added_tokens'] if t['content'] not in tokenizer['model']['vocab'])
    stop_id = next(t['id'] for t in tokenizer['added_tokens'] if t['content'] == STOP_TOKEN)
    decode = byte_decoder(tokenizer)
    train = load(args.data, 'train')
    validation = load(args.data, 'validation')
    heldout = json.load(open(os.path.join(args.data, 'heldout.json')))

    model = Decoder(vocab, args.context, args.width, args.layers, args.heads)
    if args.init_from and not (args.checkpoint and os.path.exists(args.checkpoint)):
        initial_weights(model, args.init_from)
        print(f'{args.name}: starting from the weights of {args.init_from}', flush=True)
    parameters = sum(p.numel() for p in model.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    step, seconds, train_loss, history, stopped_by = 0, 0.0, float('nan'), [], 'steps'
    if args.checkpoint and os.path.exists(args.checkpoint):
        saved = torch.load(args.checkpoint)
        model.load_state_dict(saved['model'])
        optimizer.load_state_dict(saved['optimizer'])
        generator.bit_generator.state = saved['numpy_rng']
        torch.set_rng_state(saved['torch_rng'])
        step, seconds, train_loss, history = saved['step'], saved['seconds'], saved['train_loss'], saved['history']
        print(f'{args.name}: resumed at step {step}', flush=True)
    started = time.time() - seconds
    model.train()
    while step < args.steps:
        # Linear warmup, then cosine decay to a tenth of the peak by the last step.
        progress = step / args.steps
        scale = min(1.0, (step + 1) / args.warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
        for group in optimizer.param_groups:
            group['lr'] = args.lr * scale
        inputs, targets = batch_of(train, generator.integers(0, len(train[1]), args.batch), stop_id)
        loss = loss_of(model, inputs, targets)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        train_loss = 0.9 * train_loss + 0.1 * loss.item() if step else loss.item()
        step += 1
        if step % 25 == 0:
            print(f'{args.name} step {step} loss {train_loss:.3f} lr {args.lr * scale:.2e} {time.time() - started:.0f}s', flush=True)
        if args.eval_every and (step % args.eval_every == 0 or step == args.steps):
            accuracy = field_accuracy(model, heldout, decode, stop_id, args.context)
            history.append({'step': step, 'seconds': round(time.time() - started), 'train_loss': round(train_loss, 4), 'field_accuracy': accuracy})
            print(f'{args.name} step {step} held-out field accuracy {accuracy}', flush=True)
            if args.checkpoint:
                torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'numpy_rng': generator.bit_generator.state,
                            'torch_rng': torch.get_rng_state(), 'step': step, 'seconds': time.time() - started,
                            'train_loss': train_loss, 'history': history}, args.checkpoint + '.tmp')
                os.replace(args.checkpoint + '.tmp', args.checkpoint)
            if args.stop_at and all(value >= (args.stop_custom_at if kind == 'custom' else args.stop_at) for kind, value in accuracy.items()):
                stopped_by = 'held-out field accuracy'
                break
    seconds = time.time() - started

    model.eval()
    with torch.no_grad():
        picks = np.arange(len(validation[1]))
        losses = [loss_of(model, *batch_of(validation, picks[i:i + 64], stop_id)).item() for i in range(0, len(picks), 64)]
    validation_loss = float(np.mean(losses))
    print(f'{args.name}: {step} steps in {seconds:.0f}s, validation loss {validation_loss:.4f} (completion tokens)', flush=True)

    out = os.path.join('public/models', args.name)
    os.makedirs(os.path.join(out, 'onnx'), exist_ok=True)
    onnx_path = os.path.join(out, 'onnx', 'model.onnx')
    export_onnx(model, onnx_path)
    shutil.copyfile(TOKENIZER, os.path.join(out, 'tokenizer.json'))

    golden = golden_of(model, json.load(open(os.path.join(args.data, 'golden-prompts.json'))))
    layers, heads, head_dim = args.layers, args.heads, args.width // args.heads
    manifest = {
        'name': args.name,
        'format': 'speclab-model/1',
        'architecture': {'type': 'gpt2-style decoder, pre-LayerNorm, tied embeddings', 'vocab_size': vocab,
                         'context_length': args.context, 'width': args.width, 'layers': layers, 'heads': heads,
                         'head_dim': head_dim, 'parameters': parameters, 'dtype': 'float32'},
        'tokenizer': {'file': 'tokenizer.json', 'vocab_size': vocab, 'stop_token': STOP_TOKEN, 'stop_token_id': stop_id,
                      'special_tokens': {t['content']: t['id'] for t in tokenizer['added_tokens']}},
        'io': io_of(layers, heads, head_dim),
        'files': files_of(out),
        'training': {'seed': args.seed, 'corpus': 'tools/train/corpus.ts, seed 1 (validation and held-out field accuracy: seed 2)',
                     'train_records': int(len(train[1])), 'train_tokens': int(len(train[0])),
                     'loss': 'cross-entropy on the completion tokens only, one record a row from position 0',
                     'batch': args.batch, 'context': args.context, 'learning_rate': args.lr,
                     'schedule': f'linear warmup over {args.warmup} steps, cosine decay to a tenth over {args.steps} steps',
                     'steps': step, 'stopped_by': stopped_by, 'seconds': round(seconds), 'threads': args.threads,
                     'torch': torch.__version__, 'final_train_loss': round(train_loss, 4) if step else None,
                     'validation_loss': round(validation_loss, 4), 'history': history},
        'golden': {'computed_by': 'torch', 'note': 'logits at the last prompt position', 'prompts': golden},
    }
    write_manifest(out, manifest)
    print(f'wrote {out}', flush=True)


if __name__ == '__main__':
    main()
