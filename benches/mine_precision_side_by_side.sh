#!/usr/bin/env bash
# Margin mining end to end at f32, bf16 and int8 (`bitext mine --precision`, one thread)
# side by side with LASER-style mining (../shared/bench/mine_faiss.py: faiss IndexFlatIP, two
# searches), ratio margin, k = 4, max-score retrieval, threshold 0, on the same files. Checks
# that every precision writes the same bytes as f32 and the same (src, tgt) pairs as the
# reference; prints wall time, CPU and peak RSS of each run (/usr/bin/time).
#   DATA: src.f32 / tgt.f32 (+ .json) from ../shared/bench/gen_embeddings.py
#   PY:   a Python with numpy and faiss-cpu; THREADS (1); SHARED (../shared); BITEXT (a built
#         `bitext` binary; default: build one)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:?set DATA}; PY=${PY:-/tmp/ref/bin/python}; T=${THREADS:-1}; SHARED=${SHARED:-../shared}
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
if [ -z "${BITEXT:-}" ]; then
  cargo build --release --quiet -p bitext-cli --no-default-features
  BITEXT="${CARGO_TARGET_DIR:-target}/release/bitext"
fi
D=$("$PY" -c "import json,sys; print(json.load(open('$DATA/src.json'))['d'])")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; data $DATA (d = $D); threads $T"
TIME="wall %e s, user %U s, sys %S s, peak RSS %M KB"
echo "== load $(cut -d' ' -f1-3 /proc/loadavg): LASER-style (faiss IndexFlatIP)"
OMP_WAIT_POLICY=PASSIVE /usr/bin/time -f "$TIME" "$PY" "$SHARED/bench/mine_faiss.py" --data "$DATA" \
  --threads "$T" --margin ratio --retrieval max -k 4 --output "$WORK/ref.tsv" 2>&1 | grep -E 'wall|knn|time|F1' || true
cut -f2,3 "$WORK/ref.tsv" | sort > "$WORK/ref.pairs"
for p in f32 bf16 int8; do
  echo "== load $(cut -d' ' -f1-3 /proc/loadavg): bitext mine --precision $p"
  /usr/bin/time -f "$TIME" "$BITEXT" mine --src-embeddings "$DATA/src.f32" --trg-embeddings "$DATA/tgt.f32" \
    --dim "$D" --margin ratio --retrieval max -k 4 --threshold 0 --threads "$T" --precision "$p" \
    -o "$WORK/$p.tsv" 2>&1 | grep -v '^\s*$' | grep -vi 'searching\|progress' || true
  cut -f2,3 "$WORK/$p.tsv" | sort > "$WORK/$p.pairs"
  echo "pairs: $(wc -l < "$WORK/$p.tsv"); same bytes as f32: $(cmp -s "$WORK/$p.tsv" "$WORK/f32.tsv" && echo yes || echo NO); same (src, tgt) pairs as the reference ($(wc -l < "$WORK/ref.pairs")): $(cmp -s "$WORK/$p.pairs" "$WORK/ref.pairs" && echo yes || echo NO)"
done
