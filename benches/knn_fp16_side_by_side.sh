#!/usr/bin/env bash
# Exact inner-product kNN over a binary16 database (LASER --fp16 files) searched in place
# (ExactIndex::over_half: never widened as a whole, rows normalised as they are widened) side
# by side with the same database as f32, at f32, bf16 and int8 (--verify: ids and score bits
# equal the f32 search of the widened rows); then a quantised copy saved and mapped back.
#   DATA: a directory with src.f32/tgt.f32 (+ .json) and tgt.f16, e.g. from
#         cargo run --release --example knn_bench -- --n 100000 --d 1024 --write DATA --fp16
#         (or numpy: x.astype('<f2').tofile('tgt.f16') for gen_embeddings.py's tgt.f32)
#   NQ (8192), K (4), THREADS (1), REPEAT (3)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:?set DATA to a directory with src.f32, tgt.f32 and tgt.f16}
NQ=${NQ:-8192}; K=${K:-4}; THREADS=${THREADS:-1}; REPEAT=${REPEAT:-3}
cargo build --release --quiet --example knn_bench
BENCH="${CARGO_TARGET_DIR:-target}/release/examples/knn_bench"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; data $DATA"
COPY=$(mktemp -d); trap 'rm -rf "$COPY"' EXIT
for t in $THREADS; do
  echo "== threads $t, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for p in f32 bf16 int8; do
    "$BENCH" --data "$DATA" --nq "$NQ" -k "$K" --threads "$t" --repeat "$REPEAT" --precision "$p" --verify
    "$BENCH" --data "$DATA" --nq "$NQ" -k "$K" --threads "$t" --repeat "$REPEAT" --precision "$p" --fp16 --verify
  done
  for p in bf16 int8; do
    "$BENCH" --data "$DATA" --nq "$NQ" -k "$K" --threads "$t" --repeat 1 --precision "$p" --fp16 \
      --save-quantized "$COPY/tgt.$p"
    "$BENCH" --data "$DATA" --nq "$NQ" -k "$K" --threads "$t" --repeat "$REPEAT" --fp16 \
      --quantized "$COPY/tgt.$p" --verify
  done
done
