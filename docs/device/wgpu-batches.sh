#!/bin/bash
# Device run 2: wgpu with CUBECL_AUTOTUNE_LEVEL=minimal and larger batches, against Flex on
# 16 cores, for the same wall time (1 minute each); quality as newsdev F1 of each model.
exec > >(tee $OUT/log2.txt) 2>&1
set -x
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi -L; lscpu | grep 'Model name'
B=/tmp/bitext; xz -dc .gpu/bitext.xz > $B; chmod +x $B
D=/tmp/data; mkdir -p $D/train $D/spm $D/bwe
cp .gpu/wmt-sample.* $D/train/; cp .gpu/use-multilingual-v3-128k.model $D/spm/
python3 .gpu/unpack.py $D/bwe/usem.spm128k.vec
export BITEXT_DATA=$D
N=.gpu/de-en.newsdev
train() { # backend time-limit-min tag extra...
  be=$1; tl=$2; tag=$3; shift 3
  /usr/bin/time -f "$tag wall %e s, max rss %M KB" timeout ${TO:-80} $B train siamese --recipe recipes/siamese-news.json --backend $be --time-limit $tl -o /tmp/m-$tag "$@"
}
mine() { # model backend tag
  timeout 40 $B embed --model $1 --backend $2 --input $N.de --side source -q -o /tmp/$3.de.npy
  timeout 40 $B embed --model $1 --backend $2 --input $N.en --side target -q -o /tmp/$3.en.npy
  $B mine --src-embeddings /tmp/$3.de.npy --tgt-embeddings /tmp/$3.en.npy --src-text $N.de --tgt-text $N.en --retrieval max -q -o /tmp/$3.tsv && $B eval bucc --gold $N.gold --mined /tmp/$3.tsv 2>&1 | tail -1
}
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
