"""Type stubs of the extension module ``bitext._bitext`` (crates/python).

Matrices are 2-d numpy arrays, one row per sentence: C-contiguous float32 (read in place, no
copy) or float16 (widened into a copy). Any other dtype or layout, a wrong shape and NaN or
infinite values raise ValueError naming the argument. Every library error raises ValueError
with the library's message.
"""

from collections.abc import Sequence
from os import PathLike
from typing import Any, Literal, Optional, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

Matrix = Union[npt.NDArray[np.float32], npt.NDArray[np.float16]]
Lists = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]
Path = Union[str, PathLike[str]]

def knn(
    queries: Matrix,
    database: Matrix,
    k: int,
    *,
    metric: Literal["ip", "inner_product", "cosine", "l2"] = "ip",
    precision: Literal["auto", "f32", "bf16", "int8"] = "auto",
    threads: int = 0,
) -> Lists:
    """The k nearest database rows of every query row, best first: (scores, ids), each
    len(queries) × k (float32 scores: inner products, or squared distances for "l2"; int64
    ids). Exact at every precision (bf16 / int8 scans are re-ranked in f32 with a proof).
    threads=0: one per core."""

def knn_both(
    src: Matrix,
    tgt: Matrix,
    k: int = 4,
    *,
    k_tgt: Optional[int] = None,
    metric: Literal["ip", "inner_product", "cosine", "l2"] = "ip",
    precision: Literal["auto", "f32", "bf16", "int8"] = "auto",
    threads: int = 0,
) -> tuple[Lists, Lists]:
    """Both directions from one pass over the similarities: ((scores, ids) of the k nearest
    targets of every source row, (scores, ids) of the k_tgt (default k) nearest sources of
    every target row)."""

def mine(
    src: Matrix,
    tgt: Matrix,
    *,
    k: int = 4,
    k_tgt: Optional[int] = None,
    margin: Literal["absolute", "distance", "ratio", "csls"] = "ratio",
    retrieval: Literal["fwd", "bwd", "intersect", "max"] = "max",
    threshold: Optional[float] = None,
    top_n: Optional[int] = None,
    one_to_one: bool = False,
    index: str = "exact",
    precision: Literal["auto", "f32", "bf16", "int8"] = "auto",
    threads: int = 0,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Margin mining as `bitext mine`: (pairs, scores), pairs an n × 2 array of (source row,
    target row), best first; the same pairs and scores as the command line. threshold keeps
    score > threshold; index is "exact" or a faiss factory string (builds with `faiss`)."""

def margin_scores(
    src: Matrix,
    tgt: Matrix,
    pairs: Union[npt.NDArray[np.int64], Sequence[tuple[int, int]]],
    *,
    k: int = 4,
    k_tgt: Optional[int] = None,
    margin: Literal["absolute", "distance", "ratio", "csls"] = "ratio",
    index: str = "exact",
    precision: Literal["auto", "f32", "bf16", "int8"] = "auto",
    threads: int = 0,
) -> npt.NDArray[np.float64]:
    """The margin score of each (source row, target row) pair over the two sides'
    neighbourhoods (`bitext mine --mode score` scores the pairs (i, i))."""

@overload
def emd(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    cost: npt.NDArray[np.float64],
    *,
    plan: Literal[False] = False,
    partial: bool = False,
) -> float: ...
@overload
def emd(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    cost: npt.NDArray[np.float64],
    *,
    plan: Literal[True],
    partial: bool = False,
) -> tuple[float, npt.NDArray[np.float64]]: ...
def score(
    scorer: str,
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    reference: Optional[tuple[Sequence[str], Sequence[str]]] = None,
) -> npt.NDArray[np.float64]:
    """Scores of the pairs (src[i], tgt[i]) by a `bitext score --scorer` spec of sentences:
    "levenshtein", "ibm1:DIR", or JSON ({"type": "emd", "src_vectors": ..., "tgt_vectors":
    ...}, {"type": "length_ratio", "unit": "chars"}). Higher is better."""

@overload
def levenshtein(a: str, b: str, *, normalized: Literal[False] = False) -> int: ...
@overload
def levenshtein(a: str, b: str, *, normalized: Literal[True]) -> float: ...
def calibrate(
    scores: npt.NDArray[np.float64],
    labels: Union[npt.NDArray[np.bool_], Sequence[int], Sequence[bool]],
    *,
    relevant: Optional[int] = None,
    confidence: float = 0.95,
    source: str = "",
) -> Calibration:
    """Fit the isotonic calibration of labelled scores (1 / True: parallel)."""

class Calibration:
    """A fitted calibration, in the JSON format of `bitext calibrate`."""

    @staticmethod
    def load(path: Path) -> Calibration: ...
    def save(self, path: Path) -> None: ...
    def probability(self, scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def min_score(self, precision: float) -> float: ...
    @property
    def thresholds(self) -> list[dict[str, Any]]: ...
    def to_json(self) -> str: ...

class Classifier:
    """A pair classifier trained by `bitext train classifier`."""

    @staticmethod
    def load(dir: Path) -> Classifier: ...
    def score(self, src: Sequence[str], tgt: Sequence[str]) -> npt.NDArray[np.float64]: ...
    def probability(self, scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def min_score(self, precision: float) -> float: ...
    def explain(self, src: Sequence[str], tgt: Sequence[str]) -> list[dict[str, Any]]: ...
    @property
    def features(self) -> list[str]: ...

class Ibm1:
    """IBM Model 1 trained both ways (`bitext train ibm1`)."""

    @staticmethod
    def train(
        src: Sequence[str],
        tgt: Sequence[str],
        *,
        iterations: int = 5,
        null_word: bool = True,
        keep_case: bool = False,
        spm: Optional[Path] = None,
    ) -> Ibm1: ...
    @staticmethod
    def load(dir: Path) -> Ibm1: ...
    def save(self, dir: Path) -> None: ...
    def score(self, src: Sequence[str], tgt: Sequence[str]) -> npt.NDArray[np.float64]: ...
    @property
    def pairs(self) -> int: ...
    def t(self, src: str, tgt: str) -> float: ...

class Encoder:
    """Any sentence encoder of a `bitext embed --encoder` spec."""

    def __init__(self, spec: str, *, idf_reference: Optional[Sequence[str]] = None) -> None: ...
    @property
    def dim(self) -> int: ...
    def encode(
        self,
        sentences: Sequence[str],
        *,
        side: Literal["source", "target", "src", "tgt"] = "source",
    ) -> npt.NDArray[np.float32]: ...

def _input_address(array: Matrix) -> int:
    """For the tests: the address of the float32 rows the library reads (the numpy buffer's
    own, array.ctypes.data, when read in place)."""
