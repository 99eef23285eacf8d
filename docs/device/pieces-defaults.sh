#!/bin/bash
# Device run 6 (CPU only): the defaults (one piece per thread up to 8, one arena per core) against the whole batch and one arena.
exec > >(tee $OUT/log6.txt) 2>&1
source .gpu/setup.sh
run() { tag=$1; shift
  env "$@" /usr/bin/time -f "$tag wall %e s, max rss %M KB" timeout 70 $B train siamese --recipe recipes/siamese-news.json --epochs 1 -o /tmp/m-$tag 2>&1 | grep -E 'epoch|wall'
}
nproc
run default-auto
/usr/bin/time -f "whole wall %e s" timeout 70 $B train siamese --recipe recipes/siamese-news.json --epochs 1 --batch-pieces 1 -o /tmp/m-whole 2>&1 | grep -E "epoch|wall"
run one-arena-auto MALLOC_ARENA_MAX=1
