#!/usr/bin/env bash
# Issue 29's measurements on whatever CPU this is: `bitext mine` at every --precision (and the
# AVX2 int8 kernel forced through the index spec) against LASER-style mining with faiss
# (../shared/bench/mine_faiss.py), and the one-way exact kNN (examples/knn_bench.rs) against
# faiss IndexFlatIP (../shared/bench/bench_knn.py), at 1 and 2 threads, on the same files.
# Every bitext run must write the same bytes as the f32 run (checked). `auto` runs twice: with
# an empty measurement cache (it measures) and again (it reads the cache); its summary line
# says which, what each path was estimated at, and what the measurement cost.
#   DATA:   src.f32 / tgt.f32 (+ .json) from ../shared/bench/gen_embeddings.py
#   PY:     a Python with numpy and faiss-cpu (python3 -m venv /tmp/ref && /tmp/ref/bin/pip
#           install numpy faiss-cpu)
#   BITEXT: a release `bitext` (default: built here, without `neural`); BEFORE: optionally an
#           older `bitext` to run the same mining commands with (its precisions as they were)
#   THREADS ("1 2"), REPEAT (3), NQ (the knn queries; default: all source rows), SHARED,
#   EXTRA_KERNELS (e.g. "amx:bf16 amx:int8": precisions run with a forced kernel as well),
#   LIMIT (300: seconds after which a mining run is killed, e.g. an older portable bf16 scan)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:?set DATA}; PY=${PY:-/tmp/ref/bin/python}; SHARED=${SHARED:-../shared}
THREADS=${THREADS:-1 2}; REPEAT=${REPEAT:-3}
if [ -z "${BITEXT:-}" ]; then
  cargo build --release --quiet -p bitext-cli --no-default-features
  BITEXT="${CARGO_TARGET_DIR:-target}/release/bitext"
fi
cargo build --release --quiet --example knn_bench
KNN="${CARGO_TARGET_DIR:-target}/release/examples/knn_bench"
D=$("$PY" -c "import json; print(json.load(open('$DATA/src.json'))['d'])")
NS=$("$PY" -c "import json; print(json.load(open('$DATA/src.json'))['n'])")
NQ=${NQ:-$NS}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|f16c|avx512f|avx512bw|avx512_vnni|avx512_bf16|avx_vnni)$' | tr '\n' ' ')"
echo "data: $DATA (d = $D, $NS source rows)"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
export BITEXT_AUTO_CACHE="$WORK/auto-precision.json"
TIME="wall %e s, user %U s, peak RSS %M KB"
mine() { # label binary out extra...
  local label=$1 bin=$2 out=$3; shift 3
  echo "-- $label (load $(cut -d' ' -f1 /proc/loadavg))"
  timeout "${LIMIT:-300}" /usr/bin/time -f "$TIME" "$bin" mine --src-embeddings "$DATA/src.f32" --trg-embeddings "$DATA/tgt.f32" \
    --dim "$D" --margin ratio --retrieval max -k 4 --threshold 0 --threads "$t" -o "$out" "$@" 2>&1 \
    | grep -E 'wall|kNN|mined|signal' || echo "   (killed after ${LIMIT:-300} s)"
}
for t in $THREADS; do
  echo "== mining, threads $t"
  echo "-- LASER-style mine_faiss.py (load $(cut -d' ' -f1 /proc/loadavg))"
  OMP_WAIT_POLICY=PASSIVE /usr/bin/time -f "$TIME" "$PY" "$SHARED/bench/mine_faiss.py" --data "$DATA" \
    --threads "$t" --margin ratio --retrieval max -k 4 --output "$WORK/ref.tsv" 2>&1 | grep -E 'wall|knn' || true
  mine "bitext f32" "$BITEXT" "$WORK/f32.tsv" --precision f32
  rm -f "$BITEXT_AUTO_CACHE"
  for p in auto auto bf16 int8; do
    mine "bitext $p" "$BITEXT" "$WORK/$p.tsv" --precision "$p"
    echo "   same bytes as f32: $(cmp -s "$WORK/$p.tsv" "$WORK/f32.tsv" && echo yes || echo NO)"
  done
  for p in ${EXTRA_KERNELS:-}; do # e.g. EXTRA_KERNELS="amx:bf16 amx:int8"
    mine "bitext ${p#*:}, ${p%%:*} kernel forced" "$BITEXT" "$WORK/x.tsv" \
      --index "{\"type\":\"exact\",\"kernel\":\"${p%%:*}\",\"precision\":\"${p#*:}\"}"
    echo "   same bytes as f32: $(cmp -s "$WORK/x.tsv" "$WORK/f32.tsv" && echo yes || echo NO)"
  done
  mine "bitext int8, AVX2 kernel forced" "$BITEXT" "$WORK/avx2.tsv" \
    --index '{"type":"exact","kernel":"avx2","precision":"int8"}'
  echo "   same bytes as f32: $(cmp -s "$WORK/avx2.tsv" "$WORK/f32.tsv" && echo yes || echo NO)"
  if [ -n "${BEFORE:-}" ]; then
    for p in f32 int8 bf16; do
      mine "before: bitext $p" "$BEFORE" "$WORK/before-$p.tsv" --precision "$p"
      echo "   same bytes as f32: $(cmp -s "$WORK/before-$p.tsv" "$WORK/f32.tsv" && echo yes || echo NO)"
    done
  fi
  echo "== one-way kNN of $NQ queries, threads $t"
  OMP_WAIT_POLICY=PASSIVE "$PY" "$SHARED/bench/bench_knn.py" --data "$DATA" --n-queries "$NQ" -k 4 \
    --threads "$t" --repeat "$REPEAT" --backends faiss 2>&1 | grep -iE 'faiss' || true
  rm -f "$BITEXT_AUTO_CACHE"
  extra=(); for p in ${EXTRA_KERNELS:-}; do extra+=("--precision ${p#*:} --kernel ${p%%:*}"); done
  for args in "--precision f32" "--precision auto" "--precision auto" "--precision bf16" \
      "--precision int8" "--precision int8 --kernel avx2" "${extra[@]}"; do
    "$KNN" --data "$DATA" --nq "$NQ" -k 4 --threads "$t" --repeat "$REPEAT" $args \
      | grep -E 'bitext exact|forward' | sed -E 's/times \[[^]]*\]; //'
  done
done
