#!/bin/bash
# Device run 8 (issue 31, GPU): burn's CUDA backend (cubecl-cuda through NVRTC, the patched copy
# in vendor/) against Flex on the same machine's 16 cores. The binary is a release `bitext`
# built with `--features bitext-neural/cuda`; prepare.sh (BIN=that binary) fills .gpu/, and
# `device run` carries [".gpu"] (no Vulkan loader needed: CUDA finds the driver's libcuda).
# The news recipe is trained for one minute on each backend (same seed, batches of 512 pairs):
# CUDA twice (the second run finds CubeCL's autotune and PTX caches filled by the first), then
# Flex; then the newsdev F1 of each model (mined on Flex), and encoding the 10,000 German
# sentences of the sample on each backend.
exec > >(tee "$OUT"/log8.txt) 2>&1
source .gpu/setup.sh
nproc; lscpu | grep -E 'Model name|Flags' | cut -c1-200
nvidia-smi --query-gpu=name,driver_version --format=csv
# NVRTC and the CUDA headers: from the toolkit if it is there, else from the pip wheels.
export CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
NV=$(python3 -c "import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))" 2>/dev/null)/nvidia
LIBS=$(ls -d "$CUDA_PATH"/lib64 "$NV"/cuda_nvrtc/lib "$NV"/cu13/lib "$NV"/cuda_runtime/lib 2>/dev/null | tr '\n' ':')
export LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:-}
echo "CUDA_PATH=$CUDA_PATH LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
ls "$CUDA_PATH"/include/cuda_fp16.h; ldconfig -p | grep -E 'libcuda.so|libnvrtc' | head -4
ls "$NV"/*/lib 2>/dev/null | grep -i nvrtc | head -4
TO=100 train cuda 1 cuda-cold --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$' | tee /tmp/cold.txt
# If CUDA cannot run here, the first run says why: stop before the long runs.
grep -q 'cannot run on this machine' /tmp/cold.txt && exit 1
TO=90 train cuda 1 cuda-warm --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$'
TO=80 train flex 1 flex --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$'
for m in cuda-cold cuda-warm flex; do [ -f /tmp/m-$m/weights.bpk ] && mine /tmp/m-$m flex $m; done
enc() { # model backend tag
  /usr/bin/time -f "encode $3 wall %e s" timeout 60 $B embed --model /tmp/m-$1 --backend $2 \
    --input $D/train/wmt-sample.en-de.de --side source -o /tmp/e-$3.npy 2>&1
}
for m in cuda-warm cuda-cold flex; do [ -f /tmp/m-$m/weights.bpk ] && break; done
enc $m flex flex
enc $m cuda cuda
enc $m cuda cuda-again
python3 -c "import numpy as n; a=n.load('/tmp/e-flex.npy'); b=n.load('/tmp/e-cuda.npy'); print('max |flex - cuda| =', abs(a-b).max())"
# The recipe's own batch (128 pairs), one minute on each backend, while time is left.
TO=75 train cuda 1 cuda-b128 2>&1 | grep -v -E '^\s*$'
TO=70 train flex 1 flex-b128 2>&1 | grep -v -E '^\s*$'
for m in cuda-b128 flex-b128; do [ -f /tmp/m-$m/weights.bpk ] && mine /tmp/m-$m flex $m; done
