#!/usr/bin/env bash
# Exact EMD side by side in one run: POT's C++ network simplex (emd_c, one thread) and bitext's,
# alternating for ROUNDS rounds on the same machine, with the load before each run.
#   1. the same problems: the cases file, timed by benches/emd_pot_cases.py and `bitext emd check`;
#   2. POT's own benchmark script (../shared/bench/emd_pot.py: fresh problems of the same kind).
# Needs a Python with numpy and POT: PY=/tmp/ref/bin/python (python3 -m venv /tmp/ref &&
# /tmp/ref/bin/pip install numpy POT).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-/tmp/ref/bin/python}
SHARED=${BITEXT_SHARED:-../shared}
ROUNDS=${ROUNDS:-3}
MIN_TIME=${MIN_TIME:-2}
CASES="$SHARED/data/emd/pot-emd-cases.jsonl"
cargo build --release --quiet -p bitext-cli
BITEXT="${CARGO_TARGET_DIR:-target}/release/bitext"
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
for r in $(seq "$ROUNDS"); do
  echo "== round $r"
  echo "-- POT emd_c on $CASES; $(load)"
  "$PY" benches/emd_pot_cases.py --cases "$CASES" --min-time "$MIN_TIME"
  echo "-- bitext emd check on $CASES; $(load)"
  "$BITEXT" emd check --cases "$CASES" --min-time "$MIN_TIME"
  echo "-- POT emd_pot.py (its own problems); $(load)"
  "$PY" "$SHARED/bench/emd_pot.py" --sizes 10,20,50,100,500 --no-pyemd --min-time "$MIN_TIME"
done
