"""Classifier: a pair classifier trained by `bitext train classifier`, loaded and scored from
Python with the same scores and probabilities as `bitext score --classifier`."""

import numpy as np
import pytest

import bitext

WORDS = [("haus", "house"), ("katze", "cat"), ("hund", "dog"), ("baum", "tree"),
         ("wasser", "water"), ("stadt", "city"), ("kind", "child"), ("buch", "book"),
         ("sieht", "sees"), ("hat", "has"), ("und", "and"), ("der", "the")]


def pairs(n, seed):
    """`n` pairs translated word by word, a number copied in some."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        idx = rng.integers(0, len(WORDS), rng.integers(4, 10))
        src = [WORDS[i][0] for i in idx]
        tgt = [WORDS[i][1] for i in idx]
        if rng.random() < 0.4:
            num = str(int(rng.integers(1, 999)))
            src.append(num)
            tgt.append(num)
        out.append((" ".join(src) + ".", " ".join(tgt) + "."))
    return out


def test_classifier_scores_as_the_command_line(tmp_path, run):
    clean = tmp_path / "clean.tsv"
    clean.write_text("".join(f"{s}\t{t}\n" for s, t in pairs(200, 1)), encoding="utf-8")
    run("train", "classifier", "--input", clean, "-o", tmp_path / "model", "--no-lid", "-q")
    test = pairs(20, 2)
    src = [s for s, _ in test] + [s for s, _ in test]
    tgt = [t for _, t in test] + [t for _, t in test[1:] + test[:1]]
    noisy = tmp_path / "noisy.tsv"
    noisy.write_text("".join(f"{s}\t{t}\n" for s, t in zip(src, tgt)), encoding="utf-8")
    run("score", "--classifier", tmp_path / "model", "--input", noisy, "-o", tmp_path / "out.tsv")
    rows = [line.split("\t") for line in (tmp_path / "out.tsv").read_text().splitlines()]
    want = np.array([float(r[-2]) for r in rows])
    c = bitext.Classifier.load(tmp_path / "model")
    got = c.score(src, tgt)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(c.probability(got), np.array([float(r[-1]) for r in rows]))
    assert got[:20].mean() > got[20:].mean()
    assert 0.0 <= c.min_score(0.9) <= 1.0
    why = c.explain(src[:2], tgt[:2])
    assert len(why) == 2 and "bias" in why[0] and "gate" in why[0]
    assert set(c.features) <= set(why[0])
    with pytest.raises(ValueError, match="sentences"):
        c.score(src, tgt[:3])
    with pytest.raises(ValueError, match="classifier.json"):
        bitext.Classifier.load(tmp_path / "missing")
