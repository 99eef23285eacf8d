#!/bin/bash
# Device run 1: does wgpu find the GPU, where does its time go, and training + encoding speed
# against Flex on 16 cores.
exec > >(tee $OUT/log.txt) 2>&1
set -x
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi -L; nproc; lscpu | grep 'Model name'
B=/tmp/bitext; xz -dc .gpu/bitext.xz > $B || python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('.gpu/bitext.xz'),open('$B','wb'))"; chmod +x $B
D=/tmp/data; mkdir -p $D/train $D/spm $D/bwe
cp .gpu/wmt-sample.* $D/train/; cp .gpu/use-multilingual-v3-128k.model $D/spm/
python3 .gpu/unpack.py $D/bwe/usem.spm128k.vec
export BITEXT_DATA=$D
N=.gpu/de-en.newsdev
train() { # backend time-limit-min tag extra...
  be=$1; tl=$2; tag=$3; shift 3
  /usr/bin/time -f "$tag wall %e s, max rss %M KB" timeout ${TO:-150} $B train siamese --recipe recipes/siamese-news.json --backend $be --time-limit $tl -o /tmp/m-$tag "$@"
}
mine() { # model backend tag
  /usr/bin/time -f "$3 embed de wall %e s" timeout 40 $B embed --model $1 --backend $2 --input $N.de --side source -q -o /tmp/$3.de.npy
  /usr/bin/time -f "$3 embed en wall %e s" timeout 40 $B embed --model $1 --backend $2 --input $N.en --side target -q -o /tmp/$3.en.npy
  $B mine --src-embeddings /tmp/$3.de.npy --tgt-embeddings /tmp/$3.en.npy --src-text $N.de --tgt-text $N.en --retrieval max -q -o /tmp/$3.tsv && $B eval bucc --gold $N.gold --mined /tmp/$3.tsv 2>&1 | tail -1
}
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
