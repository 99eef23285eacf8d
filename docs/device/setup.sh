# Sourced by the device scripts beside it (run from the repository root, on the device, with
# .gpu/ filled by prepare.sh): unpacks the binary into $B and the data into $D, and defines
# `vulkan` (the carried Vulkan loader and the NVIDIA driver's ICD), `train` and `mine`.
B=/tmp/bitext; xz -dc .gpu/bitext.xz > $B || python3 -c "import lzma,shutil;shutil.copyfileobj(lzma.open('.gpu/bitext.xz'),open('$B','wb'))"; chmod +x $B
D=/tmp/data; mkdir -p $D/train $D/spm $D/bwe
cp .gpu/wmt-sample.* $D/train/; cp .gpu/use-multilingual-v3-128k.model $D/spm/
python3 .gpu/unpack.py $D/bwe/usem.spm128k.vec
export BITEXT_DATA=$D
N=.gpu/de-en.newsdev
vulkan() {
  for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  nvidia-smi -L
}
train() { # backend time-limit-min tag extra... (TO: the command's timeout in seconds)
  be=$1; tl=$2; tag=$3; shift 3
  /usr/bin/time -f "$tag wall %e s, max rss %M KB" timeout ${TO:-80} $B train siamese --recipe recipes/siamese-news.json --backend $be --time-limit $tl -o /tmp/m-$tag "$@"
}
mine() { # model backend tag: newsdev embedded on the backend, mined and scored
  /usr/bin/time -f "$3 embed de wall %e s" timeout 40 $B embed --model $1 --backend $2 --input $N.de --side source -q -o /tmp/$3.de.npy
  /usr/bin/time -f "$3 embed en wall %e s" timeout 40 $B embed --model $1 --backend $2 --input $N.en --side target -q -o /tmp/$3.en.npy
  $B mine --src-embeddings /tmp/$3.de.npy --tgt-embeddings /tmp/$3.en.npy --src-text $N.de --tgt-text $N.en --retrieval max -q -o /tmp/$3.tsv && $B eval bucc --gold $N.gold --mined /tmp/$3.tsv 2>&1 | tail -1
}
