#!/usr/bin/env bash
# Sharded against single-process exact mining: wall time, CPU and peak RSS (/usr/bin/time -v),
# byte-identical outputs, then each step kind run alone as an engine runs it (bitext mine-step).
#   DATA: src.f32 / tgt.f32 (+ .json) from
#         python ../shared/bench/gen_embeddings.py --n-src 200000 --n-tgt 200000 --d 1024 --out DATA
#   SHARDS (8), THREADS (2), WORK (/tmp/shardwork)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:?set DATA to a directory with src.f32 and tgt.f32}
SHARDS=${SHARDS:-8}; THREADS=${THREADS:-2}; WORK=${WORK:-/tmp/shardwork}
cargo build --release --quiet -p bitext-cli
B="${CARGO_TARGET_DIR:-target}/release/bitext"
D=$(python3 -c "import json;print(json.load(open('$DATA/src.json'))['d'])")
A=(mine -q --dim "$D" --src-embeddings "$DATA/src.f32" --tgt-embeddings "$DATA/tgt.f32" --threads "$THREADS")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
show() { grep -E "Elapsed|Maximum resident|User time|System time" "$1" | sed 's/^\s*/  /'; }
/usr/bin/time -v "$B" "${A[@]}" -o "$WORK.single.tsv" 2> "$WORK.single.time"; echo single:; show "$WORK.single.time"
rm -rf "$WORK"
/usr/bin/time -v "$B" "${A[@]}" --shards "$SHARDS" --work-dir "$WORK" -o "$WORK.sharded.tsv" 2> "$WORK.sharded.time"
echo "sharded ($SHARDS):"; show "$WORK.sharded.time"; grep "steps:" "$WORK.sharded.time"
cmp "$WORK.single.tsv" "$WORK.sharded.tsv" && echo "identical: $(wc -l < "$WORK.single.tsv") pairs"
rm -rf "$WORK.plan"
/usr/bin/time -v "$B" "${A[@]}" --shards "$SHARDS" --work-dir "$WORK.plan" --plan-only 2> "$WORK.step.time"
echo "plan: $(grep Elapsed "$WORK.step.time" | awk '{print $NF}') wall, $(grep 'Maximum resident' "$WORK.step.time" | awk '{print $NF}') kB"
for s in knn-1-2 merge-knn-src-1 merge-knn-trg-2 means-src score-trg-1 retrieve merge; do
  id=$(python3 -c "import json;p=json.load(open('$WORK/plan.json'));print([x['id'] for x in p['steps'] if x['name']=='$s'][0])")
  rm -f "$WORK/$s-$id.done"
  /usr/bin/time -v "$B" mine-step --work-dir "$WORK" "$s" 2> "$WORK.step.time"
  echo "$s: $(grep Elapsed "$WORK.step.time" | awk '{print $NF}') wall, $(grep 'Maximum resident' "$WORK.step.time" | awk '{print $NF}') kB"
done
