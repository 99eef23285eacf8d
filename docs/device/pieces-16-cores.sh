#!/bin/bash
# Device run 3 (CPU only): Flex on 16 cores, each training batch whole (--batch-pieces 1)
# against one piece per thread (--batch-pieces 0), one epoch each, same seed.
exec > >(tee $OUT/log3.txt) 2>&1
set -x
lscpu | grep -E 'Model name|^CPU\(s\)'
source .gpu/setup.sh
for p in 0 1; do
  /usr/bin/time -f "pieces $p wall %e s" timeout 75 $B train siamese --recipe recipes/siamese-news.json --epochs 1 --batch-pieces $p -o /tmp/m$p
done
