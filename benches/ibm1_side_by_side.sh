#!/usr/bin/env bash
# IBM Model 1 training side by side in one run: bitext (`bitext train ibm1`, EM) and eflomal's
# IBM-1 stage (`eflomal-align -m 1`, collapsed Gibbs sampling; Östling & Tiedemann 2016), on the
# same 105k German–English training pairs of ../shared/data/train, pinned to 1 core and on all
# cores, for ROUNDS rounds with the load before each run. Then the scoring speed of the three
# lexical scorers (`bitext score`) on the same pairs.
# Needs eflomal: EFLOMAL=/tmp/efl/bin/eflomal-align (python3 -m venv /tmp/efl &&
# /tmp/efl/bin/pip install eflomal).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${BITEXT_SHARED:-../shared}
EFLOMAL=${EFLOMAL:-/tmp/efl/bin/eflomal-align}
ROUNDS=${ROUNDS:-2}
WORK=${WORK:-/tmp/ibm1-bench}
mkdir -p "$WORK"
cargo build --release --quiet -p bitext-cli --no-default-features
BITEXT="${CARGO_TARGET_DIR:-target}/release/bitext"
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
# German<TAB>English, pairs with an empty side left out (bitext refuses them, naming the line).
T="$SHARED/data/train"
{ awk -F'\t' '{print $2"\t"$1}' "$T/gettext.en-de.tsv"; paste "$T/wmt-sample.en-de.de" "$T/wmt-sample.en-de.en"; } \
  | awk -F'\t' '$1 ~ /[^ ]/ && $2 ~ /[^ ]/' > "$WORK/train.tsv"
echo "pairs: $(wc -l < "$WORK/train.tsv")"
# eflomal reads whitespace-tokenized text: the same lowercased words (a regex close to bitext's
# word tokenizer; token counts printed).
python3 - "$WORK" <<'PY'
import re, sys
w = sys.argv[1]; tok = re.compile(r"\w+|[^\w\s]"); n = [0, 0]
with open(f"{w}/train.tsv") as f, open(f"{w}/de", "w") as d, open(f"{w}/en", "w") as e:
    for line in f:
        s, t = line.rstrip("\n").split("\t")
        a, b = tok.findall(s.lower()), tok.findall(t.lower())
        n[0] += len(a); n[1] += len(b)
        d.write(" ".join(a) + "\n"); e.write(" ".join(b) + "\n")
print(f"eflomal input: {n[0]} German and {n[1]} English tokens")
PY
TIME="wall %e s, user %U s, peak RSS %M KB"
for r in $(seq "$ROUNDS"); do
  echo "== round $r"
  for cores in 1 2; do
    pin=(taskset -c 0); [ "$cores" = 2 ] && pin=(taskset -c 0,1)
    echo "-- bitext train ibm1, 5 iterations each way, $cores core(s); $(load)"
    RAYON_NUM_THREADS=$cores /usr/bin/time -f "$TIME" "${pin[@]}" "$BITEXT" train ibm1 \
      --input "$WORK/train.tsv" -o "$WORK/model" 2>&1 | grep -E "iteration|trained|wall"
    for it in 5 10; do
      echo "-- eflomal-align -m 1 -1 $it (both directions), $cores core(s); $(load)"
      /usr/bin/time -f "$TIME" "${pin[@]}" "$EFLOMAL" -s "$WORK/de" -t "$WORK/en" -m 1 -1 "$it" \
        -2 0 -3 0 --n-samplers 1 -f "$WORK/fwd" -r "$WORK/rev" --overwrite 2>&1 | tail -1
    done
  done
done
echo "== scoring the same pairs (bitext score, all cores); $(load)"
for s in "ibm1 --model $WORK/model" levenshtein length-ratio; do
  # shellcheck disable=SC2086
  /usr/bin/time -f "$TIME" "$BITEXT" score --scorer $s --input "$WORK/train.tsv" \
    --output "$WORK/scored.tsv" 2>&1 | tail -2 | sed "s|^|${s%% *}: |"
done
