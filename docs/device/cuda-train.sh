#!/bin/bash
# Device run 11 (issue 31, GPU): a CUDA training run long enough to finish autotuning, then its
# steady state, then a second process with CubeCL's caches filled, then Flex on 16 cores with
# the batch in pieces (`--pieces 0`: one per thread, at most 8, as `bitext train siamese`).
# Run 10 (cuda-profile.sh) found autotuning behind the cold start: 6 keys and 111 compiled
# candidates (92 s) before encoding reached its steady state, and a training process tuning
# 14 keys (149 candidates, 117 s) and a second one 7 more (55 s) without finishing a step.
# Prepared as cuda-steady.sh says (.gpu/speed.xz from --features bitext-neural/cuda); carry
# [".gpu"] and run `bash .gpu/cuda-train.sh`, timeout 410 s (the parts below sum to 355 s).
exec > >(tee "$OUT"/log11.txt) 2>&1
export CUDA_PATH=/usr/local/cuda
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
S=/tmp/speed; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('.gpu/speed.xz'),open('$S','wb'))"; chmod +x $S
nproc; lscpu | grep -E 'Model name'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # timeout backend threads only warmup extra...
  local t0=$(date +%s.%N) to=$1 be=$2 th=$3 only=$4 wu=$5; shift 5
  timeout "$to" $S --backend "$be" --threads "$th" --only "$only" --reps 1 --warmup "$wu" \
    --min-steps 10 --min-time 4 --train-batch 512 --infer-batch 512 "$@" 2>&1 | grep -v '^\s*$'
  echo "-- process wall $(python3 -c "import time;print(round(time.time()-$t0,1))") s (limit $to s)"
}
export CUBECL_AUTOTUNE_LEVEL=minimal
echo "### training, CUDA, caches empty: 40 timed warm-up steps"
CUBECL_DEBUG_LOG=/tmp/cubecl-train.log run 280 cuda 1 siamese/train 40
python3 .gpu/tunesum.py /tmp/cubecl-train.log cubecl-train.log
grep -c '^Fastest result' /tmp/cubecl-train.log; xz -6 -c /tmp/cubecl-train.log > "$OUT"/cubecl-train11.log.xz
echo "### training, CUDA, a second process"
run 35 cuda 1 siamese/train 3
du -sh ~/.cache/cubecl
echo "### training, Flex, 16 threads, 8 pieces"
run 40 flex 16 siamese/train 2 --pieces 0
