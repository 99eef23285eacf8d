#!/bin/bash
# Device run 5 (CPU only): batch pieces against glibc arenas on 16 cores (docs/BENCHMARKS.md, "On a GPU, and on 16 cores").
exec > >(tee $OUT/log5.txt) 2>&1
source .gpu/setup.sh
run() { tag=$1; p=$2; shift 2
  env "$@" /usr/bin/time -f "$tag wall %e s, max rss %M KB" timeout 70 $B train siamese --recipe recipes/siamese-news.json --epochs 1 --batch-pieces $p -o /tmp/m-$tag 2>&1 | grep -E 'epoch|wall'
}
run whole-arenas16 1 MALLOC_ARENA_MAX=16
run pieces4-arenas16 4 MALLOC_ARENA_MAX=16
run pieces8-arenas128 8 MALLOC_ARENA_MAX=128
run pieces16-arenas16 16 MALLOC_ARENA_MAX=16
run pieces8-arenas16 8 MALLOC_ARENA_MAX=16
