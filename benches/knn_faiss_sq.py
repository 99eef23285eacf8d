#!/usr/bin/env python3
"""faiss inner-product kNN at three precisions, for side-by-side runs with
`examples/knn_bench.rs --precision f32|bf16|int8` (see knn_precision_side_by_side.sh).

Database = DATA/tgt.f32, queries = the first --n-queries rows of DATA/src.f32 (raw f32 + .json
headers, as ../shared/bench/gen_embeddings.py and knn_bench --write make them). For each index
(`IndexFlatIP`, `IndexScalarQuantizer` fp16 and 8-bit, inner product) prints the median
queries/s over --repeat searches, the index build time, and how many queries got exactly the
top-k ids of the exact f32 search: `--ref-ids FILE` (raw little-endian i64, n_q × k, as
`knn_bench --ids` writes them) or else the `IndexFlatIP` of this run. faiss's scalar quantizers
return approximate scores and may return other neighbours; bitext's reduced precisions return
the f32 search's by construction. Peak RSS of the process is printed at the end (run one index
per process to read it per index).
"""
import argparse
import os
import resource
import statistics
import sys
import time

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--data", required=True)
p.add_argument("--n-queries", type=int, default=4096)
p.add_argument("-k", type=int, default=4)
p.add_argument("--threads", type=int, default=1)
p.add_argument("--repeat", type=int, default=3)
p.add_argument("--indexes", default="flat,sq_fp16,sq_8bit")
p.add_argument("--ref-ids")
p.add_argument("--shared-bench", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "bench"))
a = p.parse_args()
os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
sys.path.insert(0, a.shared_bench)

import numpy as np  # noqa: E402
import faiss  # noqa: E402
from refio import load_matrix  # noqa: E402

faiss.omp_set_num_threads(a.threads)
db = load_matrix(os.path.join(a.data, "tgt.f32"))
q = np.ascontiguousarray(load_matrix(os.path.join(a.data, "src.f32"))[: a.n_queries])
nq, n, d = q.shape[0], db.shape[0], db.shape[1]
ref = np.fromfile(a.ref_ids, dtype="<i8").reshape(nq, a.k) if a.ref_ids else None
for name in a.indexes.split(","):
    t = time.perf_counter()
    if name == "flat":
        index = faiss.IndexFlatIP(d)
    else:
        qt = {"sq_fp16": faiss.ScalarQuantizer.QT_fp16, "sq_8bit": faiss.ScalarQuantizer.QT_8bit}[name]
        index = faiss.IndexScalarQuantizer(d, qt, faiss.METRIC_INNER_PRODUCT)
        index.train(db)
    index.add(db)
    build = time.perf_counter() - t
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        _, ids = index.search(q, a.k)
        times.append(time.perf_counter() - t)
    if name == "flat" and ref is None:
        ref = ids
    same = int((ids == ref).all(axis=1).sum()) if ref is not None else -1
    med = statistics.median(times)
    print(f"faiss {name:<8} n_q={nq} n_db={n} d={d} k={a.k} threads={a.threads}: median {nq / med:7.0f} q/s "
          f"({nq / max(times):.0f}..{nq / min(times):.0f}), {2.0 * nq * n * d / med / 1e9:6.1f} GFLOP/s; "
          f"build {build:.2f} s; top-{a.k} ids equal to the exact search's for {same} of {nq} queries; "
          f"times {[round(x, 3) for x in times]}", flush=True)
    del index
print(f"faiss peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
