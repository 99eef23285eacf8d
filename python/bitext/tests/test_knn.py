"""knn and knn_both: exact against numpy and faiss, every precision and thread count the same,
float16 accepted, no copy of float32 input, bad input raising ValueError."""

import re
import subprocess
import sys
import threading

import faiss
import numpy as np
import pytest

import bitext
from bitext import _bitext
from conftest import embeddings


def brute(queries, database, k):
    sims = queries.astype(np.float64) @ database.astype(np.float64).T
    ids = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return ids


def test_knn_matches_numpy_and_faiss_flat_ip():
    q, d = embeddings(200, 500, 48, seed=1)
    scores, ids = bitext.knn(q, d, 5)
    assert scores.dtype == np.float32 and ids.dtype == np.int64
    assert scores.shape == ids.shape == (200, 5)
    np.testing.assert_array_equal(ids, brute(q, d, 5))
    index = faiss.IndexFlatIP(48)
    index.add(d)
    fs, fi = index.search(q, 5)
    np.testing.assert_array_equal(ids, fi)
    np.testing.assert_allclose(scores, fs, rtol=1e-5, atol=1e-5)


def test_l2_matches_faiss_flat_l2():
    q, d = embeddings(100, 300, 32, seed=2)
    scores, ids = bitext.knn(q, d, 4, metric="l2")
    index = faiss.IndexFlatL2(32)
    index.add(d)
    fs, fi = index.search(q, 4)
    np.testing.assert_array_equal(ids, fi)
    np.testing.assert_allclose(scores, fs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("precision", ["f32", "bf16", "int8", "auto"])
@pytest.mark.parametrize("threads", [1, 2])
def test_every_precision_and_thread_count_gives_the_same_lists(precision, threads):
    q, d = embeddings(150, 400, 64, seed=3)
    ref_scores, ref_ids = bitext.knn(q, d, 4, precision="f32", threads=1)
    scores, ids = bitext.knn(q, d, 4, precision=precision, threads=threads)
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_array_equal(scores, ref_scores)


def test_knn_both_is_knn_each_way():
    s, t = embeddings(120, 90, 24, seed=4)
    (fs, fi), (bs, bi) = bitext.knn_both(s, t, 3, k_tgt=2)
    s1, i1 = bitext.knn(s, t, 3)
    s2, i2 = bitext.knn(t, s, 2)
    np.testing.assert_array_equal(fi, i1)
    np.testing.assert_array_equal(bi, i2)
    np.testing.assert_array_equal(fs, s1)
    np.testing.assert_array_equal(bs, s2)


def test_float16_is_searched_as_its_widened_float32():
    q, d = embeddings(50, 200, 16, seed=5)
    qh, dh = q.astype(np.float16), d.astype(np.float16)
    a = bitext.knn(qh, dh, 3)
    b = bitext.knn(qh.astype(np.float32), dh.astype(np.float32), 3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_float32_c_contiguous_input_is_read_in_place():
    q, _ = embeddings(10, 1, 8, seed=6)
    assert _bitext._input_address(q) == q.ctypes.data
    # float16 and a Fortran-order copy are not read in place (one is widened, one refused).
    assert _bitext._input_address(q.astype(np.float16)) != q.ctypes.data


NO_COPY = """
import resource, sys
import numpy as np
import bitext
rows, dim = 60_000, 512  # 123 MB of float32
d = np.ones((rows, dim), dtype=np.float32)
q = np.ones((2, dim), dtype=np.float32)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
bitext.knn(q, d, 1, precision="f32", threads=1)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024 / d.nbytes)
"""


def test_a_large_database_is_not_copied():
    # Peak memory of a fresh process (ru_maxrss) grows by far less than the matrix searched.
    out = subprocess.run([sys.executable, "-c", NO_COPY], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    growth = float(out.stdout)
    assert growth < 0.25, f"peak memory grew by {growth:.2f} × the database"


def test_the_gil_is_released_during_a_search():
    q, d = embeddings(3000, 3000, 256, seed=7)
    inside, done = threading.Event(), threading.Event()

    def search():
        inside.set()
        bitext.knn(q, d, 4, precision="f32", threads=1)
        done.set()

    worker = threading.Thread(target=search)
    worker.start()
    inside.wait()
    ticks = 0
    while not done.is_set():
        ticks += 1
        done.wait(0.002)
    worker.join()
    # With the GIL held for the whole search, this thread could not have run meanwhile.
    assert ticks >= 10, f"the main thread ran {ticks} times during the search"


def misaligned(q):
    """A C-contiguous float32 copy of `q` whose buffer starts one byte off alignment."""
    raw = np.zeros(q.nbytes + 1, dtype=np.uint8)
    out = np.frombuffer(raw.data, dtype=np.float32, count=q.size, offset=1).reshape(q.shape)
    assert out.flags.c_contiguous and not out.flags.aligned
    return out


@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda q: q.astype(np.float64), "expected float32 (or float16), got float64"),
        (lambda q: q.astype(np.int32), "expected float32 (or float16), got int32"),
        (lambda q: q[:, ::2], "not C-contiguous"),
        (lambda q: np.asfortranarray(q), "not C-contiguous"),
        (lambda q: q[0], "expected a 2-d array"),
        (lambda q: q[None], "expected a 2-d array"),
        (lambda q: q.tolist(), "expected a numpy array of float32, got list"),
        (lambda q: np.where(np.arange(q.size).reshape(q.shape) == 7, np.nan, q).astype(np.float32), "NaN"),
        (lambda q: np.where(np.arange(q.size).reshape(q.shape) == 7, np.inf, q).astype(np.float32), "row 0"),
        (lambda q: q[:, :8].copy(), "dim"),
        (lambda q: misaligned(q), "not aligned"),
    ],
)
def test_bad_queries_raise_value_error(bad, message):
    q, d = embeddings(20, 30, 16, seed=8)
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        bitext.knn(bad(q), d, 2)
    assert "queries" in str(err.value) or message == "dim"


def test_bad_arguments_raise_value_error():
    q, d = embeddings(20, 30, 16, seed=9)
    with pytest.raises(ValueError, match="metric"):
        bitext.knn(q, d, 2, metric="cosh")
    with pytest.raises(ValueError, match="precision"):
        bitext.knn(q, d, 2, precision="fp8")
    with pytest.raises(ValueError):
        bitext.knn(q, d, 31)
    with pytest.raises(ValueError):
        bitext.knn(q, d, 0)
    with pytest.raises(ValueError):
        bitext.knn_both(q, d[:2], 3)
