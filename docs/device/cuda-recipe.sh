#!/bin/bash
# Device run 12 (issue 31, GPU), prepared 2026-11-28 and not yet run: the news recipe on CUDA
# against Flex on 16 cores in the same wall time, now that the caches work (runs 10 and 11,
# docs/BENCHMARKS.md "CUDA after autotuning"). The first CUDA run tunes and compiles the
# recipe's kernels (into ~/.cache/cubecl) and trains for what is left of its 5 minutes; the
# second, a new process, finds them and trains for one minute; Flex trains one minute; each
# model's newsdev F1 is mined on Flex. Prepared as cuda.sh says: `BIN=<release bitext built
# with --features bitext-neural/cuda> docs/device/prepare.sh`, carry [".gpu"], run
# `bash .gpu/cuda-recipe.sh`, timeout 560 s.
exec > >(tee "$OUT"/log12.txt) 2>&1
source .gpu/setup.sh
nproc; lscpu | grep -E 'Model name'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export CUDA_PATH=/usr/local/cuda
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export CUBECL_AUTOTUNE_LEVEL=minimal
TO=320 train cuda 5 cuda-cold --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$' | tee /tmp/cold.txt
grep -q 'cannot run on this machine' /tmp/cold.txt && exit 1
du -sh ~/.cache/cubecl
TO=85 train cuda 1 cuda-warm --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$'
TO=85 train flex 1 flex --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$'
for m in cuda-cold cuda-warm flex; do [ -f /tmp/m-$m/weights.bpk ] && mine /tmp/m-$m flex $m; done
