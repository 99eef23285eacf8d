#!/bin/bash
# Device run 3 (CPU only): Flex on 16 cores, each training batch whole (--batch-pieces 1)
# against one piece per thread (the default), one epoch each, same seed.
exec > >(tee $OUT/log3.txt) 2>&1
set -x
lscpu | grep -E 'Model name|^CPU\(s\)'
B=/tmp/bitext; xz -dc .gpu/bitext.xz > $B; chmod +x $B
D=/tmp/data; mkdir -p $D/train $D/spm $D/bwe
cp .gpu/wmt-sample.* $D/train/; cp .gpu/use-multilingual-v3-128k.model $D/spm/
python3 .gpu/unpack.py $D/bwe/usem.spm128k.vec
export BITEXT_DATA=$D
for p in 0 1; do
  /usr/bin/time -f "pieces $p wall %e s" timeout 75 $B train siamese --recipe recipes/siamese-news.json --epochs 1 --batch-pieces $p -o /tmp/m$p
done
