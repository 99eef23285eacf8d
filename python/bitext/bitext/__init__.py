"""bitext: mining and filtering parallel sentences, from Python.

A thin layer over the bitext Rust libraries (the extension module ``bitext._bitext``): numpy
arrays in and out, C-contiguous float32 matrices read in place without a copy, the GIL
released during every long call, library errors raised as ``ValueError`` with the library's
message.

- ``knn(queries, database, k)`` and ``knn_both(src, tgt, k)``: exact kNN search (f32, or bf16 /
  int8 scans with a certified re-rank).
- ``mine(src, tgt, k=4, margin="ratio", retrieval="max")``: margin mining, the pairs and scores
  ``bitext mine`` writes; ``margin_scores(src, tgt, pairs)``.
- ``emd(a, b, cost)``: the Earth Mover's Distance (exact network simplex).
- ``score(spec, src, tgt)``: any sentence scorer of ``bitext score`` (EMD sentence distance,
  IBM-1, Levenshtein, length ratio); ``levenshtein(a, b)``; ``Ibm1`` (train, load, save, score).
- ``calibrate(scores, labels)`` → ``Calibration`` (probabilities, thresholds for a precision).
- ``Classifier.load(dir)``: a pair classifier of ``bitext train classifier`` (``score``,
  ``probability``, ``min_score``, ``explain``).
- ``Encoder(spec).encode(sentences)``: bag of words, trained neural models, ONNX encoders.
"""

from ._bitext import (
    Calibration,
    Classifier,
    Encoder,
    Ibm1,
    __version__,
    calibrate,
    emd,
    knn,
    knn_both,
    levenshtein,
    margin_scores,
    mine,
    score,
)

__all__ = [
    "Calibration",
    "Classifier",
    "Encoder",
    "Ibm1",
    "__version__",
    "calibrate",
    "emd",
    "knn",
    "knn_both",
    "levenshtein",
    "margin_scores",
    "mine",
    "score",
]
