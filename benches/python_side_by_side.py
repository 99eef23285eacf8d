#!/usr/bin/env python3
"""The Python bindings against the Python tools, side by side in one run (issue 32).

- kNN: ``bitext.knn(x, y, k)`` against ``faiss.IndexFlatIP`` (add + search) on the same
  arrays, in this process, at 1 and 2 threads (``threads=`` / ``faiss.omp_set_num_threads``).
- Mining: ``bitext.mine(x, y)`` (ratio margin, k = 4, max-score retrieval, threshold 0)
  against the LASER-style script ``../shared/bench/mine_faiss.py`` (faiss, same settings), its
  own ``mine_total`` timing (no I/O), at 1 and 2 threads; the pairs are compared.

Data: ``../shared/bench/gen_embeddings.py`` (seeded unit rows with planted pairs). Each
measurement is the best of ``--reps`` runs, interleaved. Needs numpy and faiss-cpu, and the
``bitext`` module built in release (``maturin develop --release`` or an installed wheel).

    python benches/python_side_by_side.py --ref ../shared/bench --n 20000 --d 512
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import faiss
import numpy as np

import bitext


def args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ref", default="../shared/bench", help="the reference scripts' directory")
    p.add_argument("--n", type=int, default=20000, help="rows per side")
    p.add_argument("--d", type=int, default=512, help="dimension")
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", default="1,2")
    return p.parse_args()


def cpu():
    model, flags = platform.processor(), ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and not model:
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                have = set(line.split(":", 1)[1].split())
                flags = " ".join(sorted(f for f in have if f.startswith(("avx", "fma", "f16c"))))
                break
    return f"{model}, {os.cpu_count()} CPUs, {flags}"


def best(f, reps):
    times, out = [], None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    a = args()
    ref = os.path.abspath(a.ref)
    work = tempfile.mkdtemp(prefix="bitext-py-bench-")
    subprocess.run([sys.executable, os.path.join(ref, "gen_embeddings.py"), "--n-src", str(a.n),
                    "--n-tgt", str(a.n), "--d", str(a.d), "--out", work], check=True,
                   capture_output=True)
    load = lambda name: np.fromfile(os.path.join(work, name), dtype="<f4").reshape(a.n, a.d)
    x, y = load("src.f32"), load("tgt.f32")
    print(f"# {a.n} x {a.n}, d = {a.d}, k = {a.k}, best of {a.reps}; {cpu()}")
    print(f"# bitext {bitext.__version__}, faiss {faiss.__version__}, numpy {np.__version__}")
    rows = []
    for t in [int(v) for v in a.threads.split(",")]:
        faiss.omp_set_num_threads(t)

        def flat():
            index = faiss.IndexFlatIP(a.d)
            index.add(y)
            return index.search(x, a.k)

        tf, (fs, fi) = best(flat, a.reps)
        tb, (bs, bi) = best(lambda: bitext.knn(x, y, a.k, threads=t), a.reps)
        # faiss's BLAS products round differently from bitext's sequential dot products: rows
        # whose lists differ hold near-ties (their k-th scores within the rounding).
        # Where the lists differ, which one is the float64 order?
        differ = np.flatnonzero(~(fi == bi).all(axis=1))
        exact = lambda i: np.argsort(-(y.astype(np.float64) @ x[i].astype(np.float64)),
                                     kind="stable")[: a.k]
        right = [(bool((exact(i) == bi[i]).all()), bool((exact(i) == fi[i]).all()))
                 for i in differ]
        rows.append(("knn one way", t, tf, tb, f"same ids in {a.n - len(differ)} of {a.n} "
                     f"rows; of the others, the float64 order is bitext's in "
                     f"{sum(r[0] for r in right)}, faiss's in {sum(r[1] for r in right)}; "
                     f"max abs score difference {float(np.abs(fs - bs).max()):.1e}"))

        laser = []
        for _ in range(a.reps):
            out = os.path.join(work, f"laser{t}.tsv")
            rec = os.path.join(work, f"laser{t}.jsonl")
            env = dict(os.environ, OMP_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t))
            subprocess.run([sys.executable, os.path.join(ref, "mine_faiss.py"), "--data", work,
                            "--threads", str(t), "--margin", "ratio", "--retrieval", "max",
                            "-k", str(a.k), "--output", out, "--json", rec], check=True,
                           capture_output=True, env=env)
            with open(rec) as f:
                laser.append(json.loads(f.read().splitlines()[-1])["times_s"]["mine_total"])
        tm, (pairs, scores) = best(
            lambda: bitext.mine(x, y, k=a.k, margin="ratio", retrieval="max", threshold=0.0,
                                threads=t), a.reps)
        theirs = {tuple(map(int, l.split("\t")[1:3])) for l in open(out).read().splitlines()}
        ours = {(int(s), int(g)) for s, g in pairs}
        rows.append(("mine (ratio, max)", t, min(laser), tm,
                     f"{len(ours)} pairs, same set: {ours == theirs}"))
    print("| measurement | threads | faiss / LASER-style s | bitext s | ratio | check |")
    print("|---|---|---|---|---|---|")
    for name, t, theirs, ours, check in rows:
        print(f"| {name} | {t} | {theirs:.2f} | {ours:.2f} | {theirs / ours:.2f}x | {check} |")


if __name__ == "__main__":
    main()
