#!/usr/bin/env bash
# Per-shard embedding rates of text plans (docs/SCALING.md, "embedding and filter steps"): one
# embed step run alone (bitext mine-step, /usr/bin/time -v) with 4 shards and with 1 shard, so
# that the fixed cost (loading the encoder) separates from the per-sentence rate.
#   SRC, TGT: sentence files (one per line, none empty); ENCODERS: "name=SPEC ..." (default: the
#   bag of USE-M pieces, the trained siamese model in MODEL, the USE-M graph in USEM_ONNX, with
#   BITEXT_ONNXRUNTIME set); WORK (/tmp/embedrates)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${SRC:?set SRC to a sentence file}; TGT=${TGT:?set TGT to a sentence file}
D=../shared/data; WORK=${WORK:-/tmp/embedrates}
BOW='{"type":"bow","vectors":"'$D'/bwe/usem.spm128k.vec","no_known_word":"zero","pieces":{"type":"sentencepiece","model":"'$D'/spm/use-multilingual-v3-128k.model"}}'
ENCODERS=${ENCODERS:-"bow=$BOW model=model:${MODEL:-} onnx=onnx:${USEM_ONNX:-}"}
cargo build --release --quiet -p bitext-cli
B="${CARGO_TARGET_DIR:-target}/release/bitext"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for pair in $ENCODERS; do
  name=${pair%%=*}; spec=${pair#*=}
  for shards in 4 1; do
    w="$WORK/$name-$shards"; rm -rf "$w"
    "$B" mine -q --src-text "$SRC" --tgt-text "$TGT" --encoder "$spec" --shards "$shards" --work-dir "$w" --plan-only 2>/dev/null
    /usr/bin/time -v "$B" mine-step --work-dir "$w" embed-src-0 2> "$w.time"
    rows=$(python3 -c "import json,glob; print(json.load(open(glob.glob('$w/embed-src-0-*.done')[0]))['embedded']['rows'])")
    echo "$name, $shards shards: embed-src-0, $rows sentences"
    grep -E "Elapsed|Maximum resident|User time|System time" "$w.time" | sed 's/^\s*/  /'
  done
done
