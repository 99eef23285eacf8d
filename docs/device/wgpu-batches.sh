#!/bin/bash
# Device run 2: wgpu with CUBECL_AUTOTUNE_LEVEL=minimal and larger batches, against Flex on
# 16 cores, for the same wall time (1 minute each); quality as newsdev F1 of each model.
exec > >(tee $OUT/log2.txt) 2>&1
set -x
source .gpu/setup.sh
vulkan; nproc; lscpu | grep 'Model name'
printf '[autotune.logger]\nfile = "/tmp/autotune.log"\nlevel = "full"\n' > cubecl.toml
export CUBECL_AUTOTUNE_LEVEL=minimal
wtrain() { rm -f /tmp/autotune.log; train wgpu "$@"; python3 .gpu/tunesum.py /tmp/autotune.log $2; }
wtrain 1 wgpu128
wtrain 1 wgpu512 --batch 512 --max-tokens 40960
wtrain 1 wgpu1024 --batch 1024 --max-tokens 81920
train flex 1 flex512 --batch 512 --max-tokens 40960
for m in wgpu128 wgpu512 wgpu1024 flex512; do [ -d /tmp/m-$m ] && mine /tmp/m-$m flex $m; done
# encoding 10,000 sentences: Flex (16 cores) and wgpu
for be in flex wgpu; do for m in flex512; do
  rm -f /tmp/autotune.log
  /usr/bin/time -f "encode $m on $be wall %e s" timeout 60 $B embed --model /tmp/m-$m --backend $be --input $D/train/wmt-sample.en-de.de --side source -o /tmp/e-$be.npy
  python3 .gpu/tunesum.py /tmp/autotune.log encode-$be
done; done
