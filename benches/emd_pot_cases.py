#!/usr/bin/env python3
"""Time POT's C++ network simplex (ot.lp.emd_wrap.emd_c, one thread) on the problems of an EMD
cases file (pot-emd-cases.jsonl), grouped and timed as `bitext emd check` does: per size, the
problems are solved cyclically for at least --min-time seconds; solves/s = 1 / median time.

    python3 benches/emd_pot_cases.py --cases ../shared/data/emd/pot-emd-cases.jsonl
"""
import argparse
import json
import statistics
import time

import numpy as np
from ot.lp import emd_wrap


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", required=True)
    p.add_argument("--min-time", type=float, default=1.0)
    p.add_argument("--max-iter", type=int, default=100000, help="POT's default numItermax")
    args = p.parse_args()
    groups = {}
    for line in open(args.cases):
        if not line.strip():
            continue
        c = json.loads(line)
        if c["kind"] == "euclid" and c["n"] == c["m"]:
            key = (c["n"], f"{c['n']}×{c['m']}")
        else:
            key = (10**9, f"{c['kind']}, mixed sizes")
        prob = (np.asarray(c["a"]), np.asarray(c["b"]),
                np.ascontiguousarray(np.asarray(c["cost"]).reshape(c["n"], c["m"])), c["optimum"])
        groups.setdefault(key, []).append(prob)
    print(f"{'size':<24} {'cases':>6} {'solves/s':>12} {'median ms':>12} {'max rel dev':>12}")
    for key in sorted(groups):
        probs = groups[key]
        worst = 0.0
        for a, b, m, opt in probs:
            cost = emd_wrap.emd_c(a, b, m, args.max_iter, 1, None, None)[1]
            worst = max(worst, abs(cost - opt) / abs(opt))
        times, start = [], time.perf_counter()
        while len(times) < 5 or time.perf_counter() - start < args.min_time:
            a, b, m, _ = probs[len(times) % len(probs)]
            t = time.perf_counter()
            emd_wrap.emd_c(a, b, m, args.max_iter, 1, None, None)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        print(f"{key[1]:<24} {len(probs):>6} {1 / med:>12.1f} {med * 1e3:>12.4f} {worst:>12.2e}", flush=True)


if __name__ == "__main__":
    main()
