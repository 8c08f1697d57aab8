#!/bin/sh
# npm run models:build — rebuilds the bundled pair from seeds: the tokenized corpus, then the draft and
# the target (tools/train/train.py, PyTorch from Debian: apt-get install python3-torch python3-numpy
# libopenblas0-pthread). Fixed step counts make the rebuild independent of machine speed. Never run by CI.
set -eu
PYTHON=${PYTHON:-/usr/bin/python3}
DATA=${DATA:-$(mktemp -d)}
npx tsx tools/train/export-corpus.ts "$DATA"
"$PYTHON" tools/train/train.py --data "$DATA" --name speclab-draft --width 32 --layers 1 --heads 2 --lr 2e-3 --steps 2400
"$PYTHON" tools/train/train.py --data "$DATA" --name speclab-target --width 256 --layers 6 --heads 8 --lr 8e-4 --steps 900
