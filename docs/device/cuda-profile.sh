#!/bin/bash
# Device run 10 (issue 31, GPU), prepared on 2026-11-27 and not yet run: where CUDA's warm-up
# time goes. Run 9 (cuda-steady.sh) saw a ready batch encode in 0.062 s against Flex's 0.160 s
# on 16 cores, but 27 s before the first batch and 1.7 s for the third, a new shape: compiling
# (NVRTC), autotuning (matmul) or burn's fusion? CubeCL logs all three when CUBECL_DEBUG_LOG
# names a file (cubecl-runtime 0.11's config: compilation and autotune logs in full,
# profiling at medium); CUBECL_AUTOTUNE_LEVEL=minimal cuts the autotune candidates.
# Three CUDA runs of the speed example (12 timed warm-up steps, so all 8 shapes of the sorted
# batches finish), the logs compressed and summarised, then Flex on 16 cores beside them.
# Prepared as cuda-steady.sh says (.gpu/speed.xz from the CLI's feature set with
# --features bitext-neural/cuda); carry [".gpu"] and run `bash .gpu/cuda-profile.sh`, timeout
# about 480 s.
exec > >(tee "$OUT"/log10.txt) 2>&1
export CUDA_PATH=/usr/local/cuda
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
S=/tmp/speed; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('.gpu/speed.xz'),open('$S','wb'))"; chmod +x $S
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # timeout backend threads only warmup
  timeout "$1" $S --backend "$2" --threads "$3" --only "$4" --reps 1 --warmup "$5" \
    --min-steps 10 --min-time 4 --train-batch 512 --infer-batch 512 2>&1 | grep -v '^\s*$'
}
# What a log holds: lines by their first words (kernel names and tuning keys cut), then xz.
summary() {
  local f=$1
  [ -s "$f" ] || { echo "no log $f"; return; }
  echo "== $f: $(wc -l < "$f") lines, $(wc -c < "$f") bytes"
  cut -c1-40 "$f" | sed 's/[0-9]\+/N/g' | sort | uniq -c | sort -rn | head -25
  xz -6 -c "$f" > "$OUT/$(basename "$f").xz" && rm -f "$f"
}
CUBECL_DEBUG_LOG=/tmp/cubecl-infer.log run 150 cuda 1 siamese/infer-sorted 12
summary /tmp/cubecl-infer.log
CUBECL_AUTOTUNE_LEVEL=minimal CUBECL_DEBUG_LOG=/tmp/cubecl-infer-min.log \
  run 90 cuda 1 siamese/infer-sorted 12
summary /tmp/cubecl-infer-min.log
CUBECL_AUTOTUNE_LEVEL=minimal CUBECL_DEBUG_LOG=/tmp/cubecl-train-min.log \
  run 120 cuda 1 siamese/train 6
summary /tmp/cubecl-train-min.log
run 30 flex 16 siamese/infer-sorted 4
run 40 flex 16 siamese/train 4
