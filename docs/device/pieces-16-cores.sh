#!/bin/bash
# Device run 3 (CPU only): Flex on 16 cores, one epoch of the news recipe per run, same seed:
# each training batch whole (--batch-pieces 1), in 2 pieces (the default), one piece per
# thread (0), and one piece per thread with 16 glibc arenas (MALLOC_ARENA_MAX, which
# `tune_allocator` then leaves alone) instead of the one arena bitext sets.
exec > >(tee $OUT/log3.txt) 2>&1
set -x
lscpu | grep -E 'Model name|^CPU\(s\)'
source .gpu/setup.sh
run() { # tag pieces [env...]
  tag=$1; p=$2; shift 2
  env "$@" /usr/bin/time -f "$tag wall %e s, max rss %M KB" timeout 70 $B train siamese --recipe recipes/siamese-news.json --epochs 1 --batch-pieces $p -o /tmp/m-$tag 2>&1 | grep -v -E '^\s*$' | tail -4
}
run whole 1
run pieces2 2
run pieces0 0
run pieces0-arenas16 0 MALLOC_ARENA_MAX=16
run pieces8-arenas16 8 MALLOC_ARENA_MAX=16
