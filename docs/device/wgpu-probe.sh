#!/bin/bash
# Device run 1: does wgpu find the GPU, where does its time go, and training + encoding speed
# against Flex on 16 cores.
exec > >(tee $OUT/log.txt) 2>&1
set -x
source .gpu/setup.sh
vulkan; nproc; lscpu | grep 'Model name'
head -1000 $D/train/wmt-sample.en-de.de > /tmp/p.de; head -1000 $D/train/wmt-sample.en-de.en > /tmp/p.en
TO=60 CUBECL_DEBUG_LOG=/tmp/cubecl.log CUBECL_DEBUG_OPTION=profile train wgpu 0.75 probe --epochs 2 --batch 64 --src-text /tmp/p.de --tgt-text /tmp/p.en 2>&1 | tee /tmp/probe.txt
wc -l /tmp/cubecl.log; head -c 2000 /tmp/cubecl.log; gzip -c /tmp/cubecl.log | head -c 15000000 > $OUT/cubecl-profile.log.gz
TO=90 train flex 1 flex
if grep -q '^epoch 1' /tmp/probe.txt; then
  TO=90 train wgpu 1 wgpu 2>&1 | tee /tmp/w.txt
  grep -q '^epoch 1' /tmp/w.txt && TO=90 train wgpu 1 wgpu512 --batch 512 --max-tokens 40960
  mine /tmp/m-flex wgpu flex-on-wgpu
  mine /tmp/m-wgpu flex wgpu-on-flex
  mine /tmp/m-wgpu512 flex wgpu512-on-flex
fi
mine /tmp/m-flex flex flex-on-flex
