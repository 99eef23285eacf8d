#!/bin/bash
# Device run 7 (issue 31, GPU): the padded recurrence (rnn/padded.rs) on wgpu against Flex on
# the same machine's 16 cores. The binary is built with `--features bitext-neural/vulkan`
# (kernels compiled to SPIR-V); if it fails, the WGSL build (`bitext-neural/wgpu`) takes over.
# prepare.sh fills .gpu/; then both stripped builds go in one archive, .gpu/bins.tar.xz
# (`tar -cf - bitext bitext-wgsl | xz -9e --lzma2=preset=9e,dict=128MiB`: 26.6 MB for both).
# The news recipe is trained for one minute on each backend (same seed, batches of 512 pairs):
# wgpu twice, first with CubeCL's autotuning cache empty (cold), then with it filled (warm);
# then the newsdev F1 of each model (mined on Flex), and encoding the 10,000 German sentences of
# the sample on each backend, with the packed layout on wgpu last (BITEXT_RNN_LAYOUT=packed).
exec > >(tee $OUT/log7.txt) 2>&1
python3 -c "import tarfile; tarfile.open('.gpu/bins.tar.xz').extractall('/tmp')"  # both builds, one xz stream
cp /tmp/bitext /tmp/bitext-spirv
source .gpu/setup.sh  # (its bitext.xz is not there: the builds above are; ignore that error)
B=/tmp/bitext-spirv; BW=/tmp/bitext-wgsl; ls -la $B $BW
vulkan; nproc; lscpu | grep 'Model name'
printf '[autotune.logger]\nfile = "/tmp/autotune.log"\nlevel = "full"\n' > cubecl.toml
wtrain() { rm -f /tmp/autotune.log; train wgpu "$@" 2>&1 | grep -v -E '^\s*$|XDG'; python3 .gpu/tunesum.py /tmp/autotune.log $2; }
TO=150 wtrain 1 wgpu-cold --batch 512 --max-tokens 40960
if [ ! -f /tmp/m-wgpu-cold/weights.bpk ]; then echo "SPIR-V build failed: WGSL build"; B=$BW; TO=150 wtrain 1 wgpu-cold --batch 512 --max-tokens 40960; fi
TO=100 wtrain 1 wgpu-warm --batch 512 --max-tokens 40960
TO=100 train flex 1 flex --batch 512 --max-tokens 40960 2>&1 | grep -v -E '^\s*$'
for m in wgpu-cold wgpu-warm flex; do [ -f /tmp/m-$m/weights.bpk ] && mine /tmp/m-$m flex $m; done
enc() { # model backend tag [env...]
  m=$1; be=$2; tag=$3; shift 3; rm -f /tmp/autotune.log
  env "$@" /usr/bin/time -f "encode $tag wall %e s" timeout ${TO:-60} $B embed --model /tmp/m-$m --backend $be --input $D/train/wmt-sample.en-de.de --side source -o /tmp/e-$tag.npy 2>&1 | grep -v XDG
  python3 .gpu/tunesum.py /tmp/autotune.log encode-$tag
}
for m in flex wgpu-warm wgpu-cold; do [ -f /tmp/m-$m/weights.bpk ] && break; done
enc $m flex flex
enc $m wgpu wgpu-padded
python3 -c "import numpy as n; a=n.load('/tmp/e-flex.npy'); b=n.load('/tmp/e-wgpu-padded.npy'); print('max |flex - wgpu| =', abs(a-b).max())"
TO=25 enc $m wgpu wgpu-packed BITEXT_RNN_LAYOUT=packed
nvidia-smi --query-gpu=name,driver_version --format=csv
