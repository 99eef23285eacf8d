#!/usr/bin/env bash
# Exact inner-product kNN at f32, bf16 and int8 (bitext's certified re-rank: the f32 top-k by
# construction, checked with --verify) side by side with faiss IndexFlatIP and
# IndexScalarQuantizer fp16 / 8-bit (approximate), in one run, on the same files.
#   DATA: a directory with src.f32/tgt.f32 (+ .json), e.g. from
#         python ../shared/bench/gen_embeddings.py --n-src 100000 --n-tgt 100000 --d 1024 --out DATA
#   PY:   a Python with numpy and faiss-cpu (python3 -m venv /tmp/ref && /tmp/ref/bin/pip install numpy faiss-cpu)
#   NQ (4096), K (4), THREADS ("1 2"), REPEAT (3), INDEXES (flat sq_fp16 sq_8bit)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:?set DATA to a directory with src.f32 and tgt.f32}
PY=${PY:-/tmp/ref/bin/python}
NQ=${NQ:-4096}; K=${K:-4}; THREADS=${THREADS:-1 2}; REPEAT=${REPEAT:-3}
INDEXES=${INDEXES:-flat sq_fp16 sq_8bit}
cargo build --release --quiet --example knn_bench
BENCH="${CARGO_TARGET_DIR:-target}/release/examples/knn_bench"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; data $DATA"
REF=$(mktemp); trap 'rm -f "$REF"' EXIT
for t in $THREADS; do
  echo "== threads $t, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for p in f32 bf16 int8; do
    extra=(--verify); [ "$p" = f32 ] && extra=(--ids "$REF")
    "$BENCH" --data "$DATA" --nq "$NQ" -k "$K" --threads "$t" --repeat "$REPEAT" --precision "$p" "${extra[@]}"
  done
  for i in $INDEXES; do
    "$PY" benches/knn_faiss_sq.py --data "$DATA" --n-queries "$NQ" -k "$K" --threads "$t" \
      --repeat "$REPEAT" --indexes "$i" --ref-ids "$REF"
  done
done
