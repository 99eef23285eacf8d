"""score, levenshtein and Ibm1: the same scores as `bitext score` and `bitext train ibm1` on
the same sentences; Levenshtein against the textbook dynamic program."""

import json

import numpy as np
import pytest

import bitext

SRC = [
    "das haus ist klein", "das buch ist gut", "ein kleines haus", "der hund schläft",
    "die katze ist klein", "ein gutes buch", "das haus ist groß", "der hund ist gut",
]
TGT = [
    "the house is small", "the book is good", "a small house", "the dog sleeps",
    "the cat is small", "a good book", "the house is big", "the dog is good",
]


def tsv(path, src, tgt):
    path.write_text("".join(f"{s}\t{t}\n" for s, t in zip(src, tgt)), encoding="utf-8")
    return path


def scored(path):
    return np.array([float(line.split("\t")[-1]) for line in path.read_text().splitlines()])


def dp(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


@pytest.mark.parametrize(
    "a, b", [("kitten", "sitting"), ("", "abc"), ("", ""), ("straße", "strasse"), ("日本語", "日本")]
)
def test_levenshtein_is_the_textbook_distance(a, b):
    assert bitext.levenshtein(a, b) == dp(a, b)
    longer = max(len(a), len(b))
    assert bitext.levenshtein(a, b, normalized=True) == (dp(a, b) / longer if longer else 0.0)


@pytest.mark.parametrize("spec, flags", [
    ("levenshtein", ["--scorer", "levenshtein"]),
    ('{"type": "length_ratio", "unit": "chars"}', ["--scorer", "length-ratio"]),
])
def test_sentence_scorers_equal_the_command_line(tmp_path, run, spec, flags):
    inp = tsv(tmp_path / "pairs.tsv", SRC, TGT)
    run("score", "--input", inp, "-o", tmp_path / "out.tsv", *flags)
    np.testing.assert_array_equal(bitext.score(spec, SRC, TGT), scored(tmp_path / "out.tsv"))


def test_the_emd_scorer_equals_the_command_line(tmp_path, run):
    rng = np.random.default_rng(5)
    words = sorted({w for s in SRC + TGT for w in s.split()})
    vec = rng.standard_normal((len(words), 6))
    for name in ("de.vec", "en.vec"):
        lines = [f"{len(words)} 6"] + [w + " " + " ".join(f"{x:.6f}" for x in v) for w, v in zip(words, vec)]
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = json.dumps({"type": "emd", "src_vectors": str(tmp_path / "de.vec"),
                       "tgt_vectors": str(tmp_path / "en.vec")})
    inp = tsv(tmp_path / "pairs.tsv", SRC, TGT)
    run("score", "--input", inp, "-o", tmp_path / "out.tsv", "--scorer-spec", spec)
    got = bitext.score(spec, SRC, TGT)
    np.testing.assert_array_equal(got, scored(tmp_path / "out.tsv"))
    assert np.all(got <= 0)


def test_ibm1_trains_saves_and_scores_as_the_command_line(tmp_path, run):
    inp = tsv(tmp_path / "pairs.tsv", SRC, TGT)
    run("train", "ibm1", "--input", inp, "-o", tmp_path / "cli-model", "-q", "--iterations", 4)
    model = bitext.Ibm1.train(SRC, TGT, iterations=4)
    assert model.pairs == len(SRC)
    model.save(tmp_path / "py-model")
    run("score", "--input", inp, "-o", tmp_path / "out.tsv", "--scorer-spec",
        f"ibm1:{tmp_path / 'py-model'}")
    cli = bitext.Ibm1.load(tmp_path / "cli-model")
    np.testing.assert_array_equal(model.score(SRC, TGT), cli.score(SRC, TGT))
    np.testing.assert_array_equal(model.score(SRC, TGT), scored(tmp_path / "out.tsv"))
    np.testing.assert_array_equal(
        bitext.score(f"ibm1:{tmp_path / 'cli-model'}", SRC, TGT), scored(tmp_path / "out.tsv")
    )
    assert model.t("haus", "house") > model.t("haus", "dog")


def test_bad_text_input_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="src"):
        bitext.score("levenshtein", "one string", TGT)
    with pytest.raises(ValueError, match="sentences"):
        bitext.score("levenshtein", SRC, TGT[:3])
    with pytest.raises(ValueError, match="scorer"):
        bitext.score("no-such-scorer", SRC, TGT)
    with pytest.raises(ValueError, match="tgt"):
        bitext.Ibm1.train(SRC, [1, 2, 3])
    with pytest.raises(ValueError):
        bitext.Ibm1.train(["", "a"], ["b", "c"])
    with pytest.raises(ValueError, match="missing"):
        bitext.Ibm1.load(tmp_path / "missing")
