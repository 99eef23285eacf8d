#!/bin/bash
# Device run 9 (issue 31, GPU): where run 8's time went on CUDA. The `speed` example of
# bitext-neural (release, `--features cuda`; carried as .gpu/speed) times the siamese paper
# model's steps after warm-up steps that it times one by one: the first steps compile and tune
# the kernels, the later ones are the steady state. Encoding (sorted batches of 512 sentences)
# first, then training steps of 512 pairs, on CUDA, then the same on Flex with 16 threads.
# Prepared here: `cargo build --release -p bitext-cli -p bitext-neural --example speed
# --features bitext-neural/cuda` (the CLI's feature set, so burn is not rebuilt), then
# `strip -o /tmp/speed target/release/examples/speed; xz -6 -c /tmp/speed > .gpu/speed.xz`;
# the call carried only that file and this script (14 MB).
exec > >(tee "$OUT"/log9.txt) 2>&1
export CUDA_PATH=/usr/local/cuda
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
S=/tmp/speed; python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('.gpu/speed.xz'),open('$S','wb'))"; chmod +x $S
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # timeout backend threads only
  timeout "$1" $S --backend "$2" --threads "$3" --only "$4" --reps 1 --warmup 4 --min-steps 10 \
    --min-time 4 --train-batch 512 --infer-batch 512 2>&1 | grep -v '^\s*$'
}
run 55 cuda 1 siamese/infer-sorted
run 75 cuda 1 siamese/train
run 25 flex 16 siamese/infer-sorted
run 30 flex 16 siamese/train
