#!/bin/sh
# npm run models:build — rebuilds the bundled pair from seeds: the tokenized corpus, then the draft and
# the target (tools/train/train.py, PyTorch from Debian: apt-get install python3-torch python3-numpy
# libopenblas0-pthread). Loss on the completion only, warmup then cosine decay over fixed step counts; the
# target also stops early once its held-out field accuracy (seed 2) reaches the thresholds. Checkpoints go
# to $DATA, so a rerun with the same DATA resumes where it stopped. Never run by CI. The committed pair
# predates this recipe (README, "Bundled models").
set -eu
PYTHON=${PYTHON:-/usr/bin/python3}
DATA=${DATA:-$(mktemp -d)}
[ -f "$DATA/heldout.json" ] || npx tsx tools/train/export-corpus.ts "$DATA" --records 60000 --validation 1400 --heldout 140
nice -n 10 "$PYTHON" tools/train/train.py --data "$DATA" --name speclab-draft --width 32 --layers 1 --heads 2 \
  --lr 3e-3 --batch 16 --steps 1500 --eval-every 500 --threads 1 --checkpoint "$DATA/draft.pt"
nice -n 10 "$PYTHON" tools/train/train.py --data "$DATA" --name speclab-target --width 128 --layers 4 --heads 4 \
  --lr 2.5e-3 --warmup 40 --batch 12 --steps 1000 --eval-every 100 --stop-at 0.97 --stop-custom-at 0.85 --threads 1 \
  --checkpoint "$DATA/target.pt"
