#!/bin/bash
# Device run 10 (issue 31, GPU): where CUDA's warm-up time goes, and what CubeCL's caches buy
# a second process. Run 9 (cuda-steady.sh) saw a ready batch encode in 0.062 s against Flex's
# 0.160 s on 16 cores, but 27 s before the first batch and 1.7 s for the third, a new shape:
# compiling (NVRTC), autotuning (matmul) or burn's fusion? CubeCL logs all three when
# CUBECL_DEBUG_LOG names a file (cubecl-runtime 0.11's config: compilation and autotune logs in
# full, profiling at medium); CUBECL_AUTOTUNE_LEVEL=minimal cuts the autotune candidates.
# CubeCL keeps autotune results on disk by default, but compiled kernels only when its config
# says `[compilation] cache = true`: run 8's second process found tuning done and compiled every
# kernel again. bitext now turns that cache on (`backend::cubecl_defaults`, in ~/.cache/cubecl),
# and each measurement runs twice, the second process finding both caches filled by the first.
# The speed example (12 timed warm-up steps for encoding, so all 8 shapes of the sorted batches
# finish; 6 for training), the logs compressed and summarised, then Flex on 16 cores beside.
# Prepared as cuda-steady.sh says (.gpu/speed.xz from --features bitext-neural/cuda); carry
# [".gpu"] and run `bash .gpu/cuda-profile.sh`, timeout 500 s (the parts below sum to 430 s).
exec > >(tee "$OUT"/log10.txt) 2>&1
export CUDA_PATH=/usr/local/cuda
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
S=/tmp/speed; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('.gpu/speed.xz'),open('$S','wb'))"; chmod +x $S
nproc; lscpu | grep -E 'Model name|Flags' | cut -c1-300
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # timeout backend threads only warmup
  local t0=$(date +%s.%N)
  timeout "$1" $S --backend "$2" --threads "$3" --only "$4" --reps 1 --warmup "$5" \
    --min-steps 10 --min-time 4 --train-batch 512 --infer-batch 512 2>&1 | grep -v '^\s*$'
  echo "-- process wall $(python3 -c "import time;print(round(time.time()-$t0,1))") s (limit $1 s)"
}
# What a log holds: lines by their first words (kernel names and tuning keys cut), then xz.
summary() {
  local f=$1
  [ -s "$f" ] || { echo "no log $f"; return; }
  echo "== $f: $(wc -l < "$f") lines, $(wc -c < "$f") bytes"
  python3 .gpu/tunesum.py "$f" "$(basename "$f")"
  cut -c1-40 "$f" | sed 's/[0-9]\+/N/g' | sort | uniq -c | sort -rn | head -20
  xz -6 -c "$f" > "$OUT/$(basename "$f").xz" && rm -f "$f"
}
echo "### encoding, default autotune, caches empty"
CUBECL_DEBUG_LOG=/tmp/cubecl-infer.log run 120 cuda 1 siamese/infer-sorted 12
summary /tmp/cubecl-infer.log
echo "### encoding, a second process (autotune and kernel caches filled)"
CUBECL_DEBUG_LOG=/tmp/cubecl-infer-2.log run 45 cuda 1 siamese/infer-sorted 12
summary /tmp/cubecl-infer-2.log
echo "### training, minimal autotune, caches as left"
CUBECL_AUTOTUNE_LEVEL=minimal CUBECL_DEBUG_LOG=/tmp/cubecl-train.log \
  run 130 cuda 1 siamese/train 6
summary /tmp/cubecl-train.log
echo "### training, a second process"
CUBECL_AUTOTUNE_LEVEL=minimal CUBECL_DEBUG_LOG=/tmp/cubecl-train-2.log \
  run 70 cuda 1 siamese/train 6
summary /tmp/cubecl-train-2.log
du -sh ~/.cache/cubecl 2>/dev/null; find ~/.cache/cubecl -type f | head -5
echo "### Flex, 16 threads"
run 25 flex 16 siamese/infer-sorted 4
run 40 flex 16 siamese/train 4
