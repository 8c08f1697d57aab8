"""Distils the bundled draft towards the bundled target, so that the target accepts more of its drafts.

  npx tsx tools/train/exportCorpus.ts <dir> --records 6000 --validation 400 --heldout 100
  /usr/bin/python3 tools/train/distill.py --data <dir> [--samples 4000] [--steps 3000]

At T = 1 a drafted token is accepted with probability sum_x min(p(x), q(x)), one minus the total variation
between the target's p and the draft's q, so a draft trained towards p rather than towards the corpus is
accepted more. This starts from the committed draft's weights (or, with --width, --layers or --heads that
change its shape, from a fresh draft of that shape) and trains it on the
target's own next-token distributions, KL(p || q), on the completion positions of rows of two kinds, half
each: a corpus record (prompt and reference completion), and a corpus prompt with a completion the target
samples at T = 1 (no grammar mask), so that the draft also meets the contexts the target itself writes. The
target's log-probabilities are computed once. A tenth of the rows is held out; the KL and the mean of
sum_x min(p, q) on them are reported before and after, and kept in the manifest.

Writes public/models/speclab-draft/{onnx/model.onnx, manifest.json}: the new weights exported as
tools/train/model.py exports, the training record, the files' hashes and golden logits. Deterministic in
--seed and the settings (up to floating-point summation order across thread counts). Never run by CI.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from model import export_onnx  # noqa: E402
from reexport import decoder_for, weights_hash, weights_of  # noqa: E402
from train import files_of, golden_of, io_of, load, with_context, write_manifest  # noqa: E402

MODELS = 'public/models'


def committed(name: str):
    """The committed model's manifest and its weights in a Decoder."""
    manifest = json.load(open(os.path.join(MODELS, name, 'manifest.json')))
    model = decoder_for(manifest)
    model.load_state_dict(weights_of(os.path.join(MODELS, name, 'onnx', 'model.onnx'), model), strict=True)
    return manifest, model


def sampled_completion(target, prompt, stop_id: int, context: int, generator):
    """prompt followed by the target's T = 1 continuation, up to its stop token or the context's end."""
    ids, fresh, past = list(prompt), list(prompt), target.empty_past(1)
    while len(ids) < context:
        length = len(ids)
        logits, *past = target(torch.tensor([fresh]), torch.ones(1, length, dtype=torch.int64),
                               torch.arange(length - len(fresh), length).unsqueeze(0), None, *past)
        token = int(torch.multinomial(torch.softmax(logits[0, -1], -1), 1, generator=generator))
        ids.append(token)
        fresh = [token]
        if token == stop_id:
            break
    return ids


def padded(rows, pick, pad_id: int):
    """Inputs (each row but its last token) and the weight of each position: 1 on the completion, else 0."""
    length = max(len(rows[i][0]) for i in pick) - 1
    inputs = torch.full((len(pick), length), pad_id, dtype=torch.int64)
    weights = torch.zeros(len(pick), length)
    for row, i in enumerate(pick):
        tokens, prompt_length = rows[i]
        inputs[row, :len(tokens) - 1] = torch.tensor(tokens[:-1])
        weights[row, prompt_length - 1:len(tokens) - 1] = 1
    return inputs, weights


def log_probs(model, inputs):
    batch, length = inputs.shape
    logits = model(inputs, torch.ones(batch, length, dtype=torch.int64), torch.arange(length).unsqueeze(0).repeat(batch, 1), None,
                   *model.empty_past(batch))[0]
    return torch.log_softmax(logits, -1)


def divergence(target_log_probs, draft_log_probs, weights):
    """Per-position KL(p || q) and sum_x min(p, q), each weighted by `weights`, summed."""
    p, q = target_log_probs.exp(), draft_log_probs.exp()
    kl = (p * (target_log_probs - draft_log_probs)).sum(-1)
    overlap = torch.minimum(p, q).sum(-1)
    return (kl * weights).sum(), (overlap * weights).sum()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data', required=True)
    parser.add_argument('--samples', type=int, default=4000, help='rows: half corpus records, half target samples')
    parser.add_argument('--steps', type=int, default=3000)
    parser.add_argument('--batch', type=int, default=32)
    parser.add_argument('--lr', type=float, default=2e-3)
    parser.add_argument('--warmup', type=int, default=50)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--width', type=int, help="the draft's shape; the committed draft's by default")
    parser.add_argument('--layers', type=int)
    parser.add_argument('--heads', type=int)
    parser.add_argument('--rows', help='a JSON file of the rows: read when it exists (same --data, --samples and --seed), else written')
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    generator = torch.Generator().manual_seed(args.seed)
    pick_rng = np.random.default_rng(args.seed)
    started = time.time()

    _, target = committed('speclab-target')
    manifest, draft = committed('speclab-draft')
    target.eval()
    a = manifest['architecture']
    shape = {'width': args.width or a['width'], 'layers': args.layers or a['layers'], 'heads': args.heads or a['heads']}
    base_weights, base_training = weights_hash(draft.state_dict()), manifest['training']
    if shape != {key: a[key] for key in shape}:
        a.update(shape, head_dim=shape['width'] // shape['heads'])
        draft = decoder_for(manifest)
        a['parameters'] = sum(p.numel() for p in draft.parameters())
        base_weights = base_training = None
    if target.config['context'] > a['context_length']:
        # The draft sees what the target sees: its positions are extended to the target's context.
        a['context_length'] = target.config['context']
        state = with_context(draft.state_dict(), a['context_length'])
        draft = decoder_for(manifest)
        draft.load_state_dict(state, strict=True)
        a['parameters'] = sum(p.numel() for p in draft.parameters())
    stop_id = manifest['tokenizer']['stop_token_id']
    context = manifest['architecture']['context_length']

    tokens, starts, ends, prompts = load(args.data, 'train')
    picks = pick_rng.permutation(len(starts))[:args.samples]
    if args.rows and os.path.exists(args.rows):
        rows = [tuple(row) for row in json.load(open(args.rows))]
        if len(rows) != len(picks) or any(row[1] != int(prompts[i]) for row, i in zip(rows, picks)):
            raise SystemExit(f'{args.rows} holds other rows than --data, --samples and --seed pick')
    else:
        rows = []
        with torch.no_grad():
            for n, i in enumerate(picks):
                record, prompt_length = tokens[starts[i]:ends[i]].tolist(), int(prompts[i])
                completion = record if n % 2 == 0 else sampled_completion(target, record[:prompt_length], stop_id, context, generator)
                rows.append((completion, prompt_length))
        if args.rows:
            json.dump(rows, open(args.rows, 'w'))
    print(f'{len(rows)} rows ({len(rows) // 2} sampled from the target) in {time.time() - started:.0f} s', flush=True)

    # Batches of similar length; the target's log-probabilities once per batch, kept in half precision.
    by_length = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    batches = [by_length[k:k + args.batch] for k in range(0, len(by_length), args.batch)]
    with torch.no_grad():
        teacher = [log_probs(target, padded(rows, pick, stop_id)[0]).half() for pick in batches]
    held_out = list(range(0, len(batches), 10))
    training = [b for b in range(len(batches)) if b not in held_out]

    def evaluate():
        draft.eval()
        kl = overlap = positions = 0.0
        with torch.no_grad():
            for b in held_out:
                inputs, weights = padded(rows, batches[b], stop_id)
                batch_kl, batch_overlap = divergence(teacher[b].float(), log_probs(draft, inputs), weights)
                kl, overlap, positions = kl + float(batch_kl), overlap + float(batch_overlap), positions + float(weights.sum())
        draft.train()
        return {'kl': round(kl / positions, 4), 'acceptance': round(overlap / positions, 4), 'positions': int(positions)}

    before = evaluate()
    print(f'held out before: {before}', flush=True)
    optimizer = torch.optim.AdamW(draft.parameters(), lr=args.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / args.warmup) * 0.5 * (1 + math.cos(math.pi * min(step, args.steps) / args.steps)))
    history = []
    draft.train()
    for step in range(1, args.steps + 1):
        b = training[int(pick_rng.integers(len(training)))]
        inputs, weights = padded(rows, batches[b], stop_id)
        kl, _ = divergence(teacher[b].float(), log_probs(draft, inputs), weights)
        loss = kl / weights.sum()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(draft.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        if step % 500 == 0 or step == args.steps:
            history.append({'step': step, 'seconds': round(time.time() - started), 'train_kl': round(float(loss), 4), 'held_out': evaluate()})
            print(history[-1], flush=True)
    after = history[-1]['held_out']

    draft.eval()
    out = os.path.join(MODELS, 'speclab-draft')
    export_onnx(draft, os.path.join(out, 'onnx', 'model.onnx'))
    manifest['io'] = io_of(a['layers'], a['heads'], a['head_dim'])
    manifest['files'] = files_of(out)
    manifest['golden']['prompts'] = golden_of(draft, manifest['golden']['prompts'])
    manifest['training'] = {
        'method': 'distillation towards speclab-target: KL(target || draft) on the completion positions, '
                  + ('from the committed weights' if base_weights else 'from a fresh draft'),
        'target_weights_sha256': weights_hash(target.state_dict()),
        'base_weights_sha256': base_weights,
        'base_training': base_training,
        'data': f'{len(rows)} of the {len(starts)} records of the train split of tools/train/exportCorpus.ts (corpus.ts, seed 1), '
                'half of them with completions the target sampled at T = 1',
        'seed': args.seed, 'batch': args.batch, 'learning_rate': args.lr,
        'schedule': f'linear warmup over {args.warmup} steps, cosine decay to 0 over {args.steps} steps',
        'steps': args.steps, 'seconds': round(time.time() - started), 'threads': args.threads, 'torch': torch.__version__,
        'held_out_before': before, 'held_out_after': after, 'history': history,
    }
    manifest['export'] = {'by': 'tools/train/distill.py', 'weights_sha256': weights_hash(draft.state_dict()), 'torch': torch.__version__}
    write_manifest(out, manifest)
    print(f'held out: KL {before["kl"]} → {after["kl"]}, sum min(p, q) {before["acceptance"]} → {after["acceptance"]}; wrote {out}', flush=True)


if __name__ == '__main__':
    main()
