#!/usr/bin/env bash
# Encoding speed of trained models, two builds of `bitext` side by side in one run
# (docs/BENCHMARKS.md, "Input projections by id"): `bitext embed` of the same sentences with
# each model, the builds alternating, REPS times each; prints the rate `bitext embed` reports
# (sentences over the seconds of encoding, the model's loading excluded).
#   OLD: the other build's binary (e.g. one built at an earlier commit); MODELS: model
#   directories written by `bitext train`; INPUT: sentences, one per line (default: the German
#   side of newsdev, 6 times: 10,800 sentences); REPS (3); TEACHER: an encoder spec (e.g. the
#   USE-M graph: '{"type":"onnx","model":"'$USEM_ONNX'","threads":2}', with BITEXT_ONNXRUNTIME
#   set), encoded by the new build after each repetition of the models, for the ratio
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${OLD:?set OLD to the other bitext binary}; MODELS=${MODELS:?set MODELS to model directories}
REPS=${REPS:-3}; WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
if [ -z "${INPUT:-}" ]; then
  INPUT=$WORK/input.txt
  for _ in 1 2 3 4 5 6; do cut -f2 ../shared/data/dev/bucc-style/de-en.newsdev.de; done > "$INPUT"
fi
cargo build --release --quiet -p bitext-cli
NEW="${CARGO_TARGET_DIR:-target}/release/bitext"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512f|avx512_bf16|avx512_vnni)$' | xargs)"
echo "input: $INPUT, $(wc -l < "$INPUT") sentences"
for model in $MODELS; do
  for rep in $(seq "$REPS"); do
    for build in old new; do
      bin=$OLD; [ "$build" = new ] && bin=$NEW
      rate=$("$bin" embed --input "$INPUT" --text-format plain --model "$model" \
        --output "$WORK/out.npy" 2>&1 | grep -o '([0-9]* sentences/s[^)]*)')
      echo "$(basename "$model") $build rep $rep: $rate"
    done
  done
done
if [ -n "${TEACHER:-}" ]; then
  for rep in $(seq "$REPS"); do
    rate=$("$NEW" embed --input "$INPUT" --text-format plain --encoder "$TEACHER" \
      --output "$WORK/out.npy" 2>&1 | grep -o '([0-9]* sentences/s[^)]*)')
    echo "teacher rep $rep: $rate"
  done
fi
