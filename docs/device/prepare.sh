#!/bin/bash
# Fills .gpu/ (add `/.gpu/` to .git/info/exclude) with what the device runs of
# docs/BENCHMARKS.md ("On a GPU, and on 16 cores") read there: a stripped release `bitext`
# (xz), the WMT de-en sample, USE-M's sentencepiece model, newsdev, the subword vectors cut to
# the pieces of the sample and newsdev and stored as f16 (python3 with numpy; unpack.py turns
# them back into a .vec there), and these scripts. Run from the repository root:
#   BIN=path/to/bitext docs/device/prepare.sh    (built with --features bitext-neural/wgpu,
#   or bitext-neural/cuda for cuda.sh)
# then `device run` with carry [".gpu", ".gl"] and `bash .gpu/wgpu-probe.sh` (see device's
# README for .gl, the Vulkan loader).
set -euo pipefail
D=${BITEXT_DATA:-../shared/data}
BIN=${BIN:?give BIN=path/to/bitext}
PY=${PYTHON:-python3}
mkdir -p .gpu
strip -o .gpu/bitext "$BIN" && xz -f -T2 -6 .gpu/bitext
cp "$D"/train/wmt-sample.en-de.{de,en} "$D"/spm/use-multilingual-v3-128k.model .gpu/
cp "$D"/dev/bucc-style/de-en.newsdev.{de,en,gold} .gpu/
cp docs/device/*.sh docs/device/*.py .gpu/
for f in "$D"/train/wmt-sample.en-de.{de,en} "$D"/dev/bucc-style/de-en.newsdev.{de,en}; do
  "$BIN" tokenize encode --model "$D"/spm/use-multilingual-v3-128k.model --input "$f" \
    --output-format piece --empty keep -o ".gpu/$(basename "$f").pieces"
done
cat .gpu/*.pieces | tr ' ' '\n' | sort -u > .gpu/pieces.txt
"$PY" - "$D"/bwe/usem.spm128k.vec <<'PY'
import gzip, sys, numpy as np
keep = set(open('.gpu/pieces.txt', encoding='utf-8').read().split('\n'))
words, vecs = [], []
with open(sys.argv[1], encoding='utf-8') as f:
    f.readline()
    for line in f:
        w, rest = line.split(' ', 1)
        if w in keep:
            words.append(w); vecs.append(np.array(rest.split(), dtype=np.float32))
with gzip.open('.gpu/vec.words.gz', 'wt', encoding='utf-8') as o:
    o.write('\n'.join(words) + '\n')
with gzip.open('.gpu/vec.f16.gz', 'wb') as o:
    o.write(np.stack(vecs).astype(np.float16).tobytes())
print(len(words), 'vectors')
PY
rm .gpu/*.pieces .gpu/pieces.txt
du -sh .gpu
