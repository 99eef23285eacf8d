"""mine and margin_scores: the same pairs and scores as `bitext mine` on the same arrays (the
CLI's scores are printed in their shortest exact form, so they compare exactly)."""

import numpy as np
import pytest

import bitext
from conftest import embeddings, read_pairs


@pytest.fixture
def sides(tmp_path):
    src, tgt = embeddings(300, 260, 32, seed=11, planted=150)
    np.save(tmp_path / "src.npy", src)
    np.save(tmp_path / "tgt.npy", tgt)
    return src, tgt, tmp_path


OPTIONS = [
    {},
    {"margin": "distance", "retrieval": "intersect"},
    {"margin": "csls", "retrieval": "fwd", "k": 3},
    {"margin": "absolute", "retrieval": "bwd", "one_to_one": True},
    {"margin": "ratio", "retrieval": "max", "threshold": 1.05, "k": 5, "k_tgt": 2},
    {"top_n": 40},
    {"precision": "int8", "threads": 1},
]


def flags(options):
    out = []
    for key, value in options.items():
        if key == "one_to_one":
            out.append("--one-to-one")
            continue
        name = {"k": "-k", "k_tgt": "--tgt-k"}.get(key, "--" + key.replace("_", "-"))
        out += [name, value]
    return out


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_mine_equals_the_command_line(sides, run, options):
    src, tgt, tmp = sides
    out = tmp / "mined.tsv"
    run("mine", "--src-embeddings", tmp / "src.npy", "--tgt-embeddings", tmp / "tgt.npy",
        "-q", "-o", out, *flags(options))
    cli_pairs, cli_scores = read_pairs(out)
    pairs, scores = bitext.mine(src, tgt, **options)
    assert pairs.dtype == np.int64 and pairs.shape == (len(cli_pairs), 2)
    np.testing.assert_array_equal(pairs, cli_pairs)
    np.testing.assert_array_equal(scores, cli_scores)
    assert len(pairs) > 0


def test_the_planted_translations_are_mined():
    src, tgt = embeddings(300, 260, 32, seed=12, planted=150)
    pairs, scores = bitext.mine(src, tgt)
    found = {(int(s), int(t)) for s, t in pairs}
    assert sum((i, i) in found for i in range(150)) >= 145
    assert np.all(np.diff(scores) <= 0)


def test_margin_scores_equal_the_command_lines_score_mode(sides, run):
    src, tgt, tmp = sides
    src, tgt = src[:200], tgt[:200]
    np.save(tmp / "s200.npy", src)
    np.save(tmp / "t200.npy", tgt)
    out = tmp / "scored.tsv"
    run("mine", "--src-embeddings", tmp / "s200.npy", "--tgt-embeddings", tmp / "t200.npy",
        "--mode", "score", "--margin", "csls", "-q", "-o", out)
    cli_pairs, cli_scores = read_pairs(out)
    scores = bitext.margin_scores(src, tgt, cli_pairs, margin="csls")
    np.testing.assert_array_equal(scores, cli_scores)
    # A list of tuples works as an array of pairs.
    listed = bitext.margin_scores(src, tgt, [tuple(p) for p in cli_pairs[:5]], margin="csls")
    np.testing.assert_array_equal(listed, cli_scores[:5])


def test_bad_mining_arguments_raise_value_error():
    src, tgt = embeddings(30, 30, 8, seed=13)
    with pytest.raises(ValueError, match="margin"):
        bitext.mine(src, tgt, margin="ratios")
    with pytest.raises(ValueError, match="retrieval"):
        bitext.mine(src, tgt, retrieval="both")
    with pytest.raises(ValueError, match="threshold"):
        bitext.mine(src, tgt, threshold=float("nan"))
    with pytest.raises(ValueError, match="index"):
        bitext.mine(src, tgt, index="no such index")
    with pytest.raises(ValueError, match="tgt"):
        bitext.mine(src, tgt.astype(np.float64))
    with pytest.raises(ValueError, match="negative"):
        bitext.margin_scores(src, tgt, [(0, -1)])
    with pytest.raises(ValueError):
        bitext.margin_scores(src, tgt, [(0, 99)])
    raw = np.zeros(8 * 2 + 1, dtype=np.uint8)
    odd = np.frombuffer(raw.data, dtype=np.int64, count=2, offset=1).reshape(1, 2)
    with pytest.raises(ValueError, match="not aligned"):
        bitext.margin_scores(src, tgt, odd)
    zero = src.copy()
    zero[4] = 0
    with pytest.raises(ValueError, match="row 4"):
        bitext.mine(zero, tgt)
