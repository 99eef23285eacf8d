"""Encoder: the vectors `bitext embed` writes for the same spec and sentences (bag of words,
mean and TF-IDF; a siamese and an autoencoder model trained by `bitext train`, each side; the
ONNX encoder when ONNX Runtime and the USE-M graph are at hand, as for the Rust tests); bad
specs and sentences raising ValueError."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import bitext

SENTENCES = ["das haus ist klein", "ein gutes buch", "der hund schläft", "das Buch ist gut"]


@pytest.fixture
def vectors(tmp_path):
    rng = np.random.default_rng(8)
    words = sorted({w.lower() for s in SENTENCES for w in s.split()})
    lines = [f"{len(words)} 5"] + [
        w + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(5)) for w in words
    ]
    path = tmp_path / "de.vec"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "text.txt").write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("tfidf", [False, True])
def test_bag_of_words_equals_bitext_embed(tmp_path, run, vectors, tfidf):
    extra = ["--tfidf"] if tfidf else []
    run("embed", "--vectors", vectors, "--input", tmp_path / "text.txt", "-q", "-o",
        tmp_path / "cli.npy", *extra)
    spec = {"type": "bow", "vectors": str(vectors)}
    if tfidf:
        spec["weighting"] = "tf_idf"
    enc = bitext.Encoder(json.dumps(spec), idf_reference=SENTENCES if tfidf else None)
    got = enc.encode(SENTENCES)
    assert got.dtype == np.float32 and got.shape == (4, enc.dim) == (4, 5)
    np.testing.assert_array_equal(got, np.load(tmp_path / "cli.npy"))
    np.testing.assert_array_equal(enc.encode(SENTENCES, side="target"), got)


@pytest.mark.parametrize("family, options", [
    ("siamese", ["--negatives", "1"]),
    ("autoencoder", ["--candidates", "8"]),
])
def test_a_trained_model_encodes_as_bitext_embed(tmp_path, run, family, options):
    # A tiny model trained here (one epoch of the small preset on 60 made-up pairs).
    rng = np.random.default_rng(9)
    de = "haus buch hund katze klein groß gut alt neu rot".split()
    en = "house book dog cat small big good old new red".split()
    idx = [rng.integers(0, 10, rng.integers(3, 8)) for _ in range(60)]
    src = [" ".join(de[j] for j in row) for row in idx]
    tgt = [" ".join(en[j] for j in row) for row in idx]
    (tmp_path / "de.txt").write_text("\n".join(src) + "\n", encoding="utf-8")
    (tmp_path / "en.txt").write_text("\n".join(tgt) + "\n", encoding="utf-8")
    model = tmp_path / family
    run("train", family, "--src", tmp_path / "de.txt", "--tgt", tmp_path / "en.txt", "-o", model,
        "--preset", "small", "--epochs", "1", "-q", *options)
    enc = bitext.Encoder(f"model:{model}")
    for side, text, sentences in (("source", "de.txt", src), ("target", "en.txt", tgt)):
        run("embed", "--model", model, "--input", tmp_path / text, "--side", side, "-q", "-o",
            tmp_path / f"{side}.npy")
        got = enc.encode(sentences, side=side)
        np.testing.assert_array_equal(got, np.load(tmp_path / f"{side}.npy"))
        assert got.shape == (60, enc.dim)


@pytest.mark.skipif(
    not (os.environ.get("BITEXT_ONNXRUNTIME") and os.environ.get("USEM_ONNX")),
    reason="needs ONNX Runtime (BITEXT_ONNXRUNTIME) and the USE-M graph (USEM_ONNX), as "
    "crates/onnx/tests/usem.rs; .ci/run fetches both",
)
def test_the_onnx_encoder_equals_bitext_embed(tmp_path, run):
    graph = Path(os.environ["USEM_ONNX"])
    text = tmp_path / "text.txt"
    text.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    run("embed", "--encoder", f"onnx:{graph}", "--input", text, "-q", "-o", tmp_path / "cli.npy")
    got = bitext.Encoder(f"onnx:{graph}").encode(SENTENCES)
    np.testing.assert_array_equal(got, np.load(tmp_path / "cli.npy"))


def test_bad_encoder_input_raises_value_error(tmp_path, vectors):
    with pytest.raises(ValueError, match="spec"):
        bitext.Encoder("nonsense:spec")
    with pytest.raises(ValueError, match="missing.vec"):
        bitext.Encoder(f"bow:{tmp_path / 'missing.vec'}")
    with pytest.raises(ValueError, match="missing-model"):
        bitext.Encoder(f"model:{tmp_path / 'missing-model'}")
    enc = bitext.Encoder(f"bow:{vectors}")
    with pytest.raises(ValueError, match="side"):
        enc.encode(SENTENCES, side="left")
    with pytest.raises(ValueError, match="sentences"):
        enc.encode("one string")
    with pytest.raises(ValueError):
        enc.encode(["zzz unknown words only"])


def test_hf_names_resolve_in_the_hugging_face_cache(tmp_path, monkeypatch):
    hub = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    with pytest.raises(ValueError, match="not in the Hugging Face cache"):
        bitext.Encoder("hf:org/tiny")
    # A snapshot with a graph and its tokenizer.json resolves: what fails is loading that graph.
    commit = "0123456789abcdef0123456789abcdef01234567"
    snapshot = hub / "models--org--tiny" / "snapshots" / commit
    (snapshot / "onnx").mkdir(parents=True)
    (snapshot / "onnx" / "model.onnx").write_bytes(b"not a graph")
    (snapshot / "tokenizer.json").write_text("{}", encoding="utf-8")
    (hub / "models--org--tiny" / "refs").mkdir()
    (hub / "models--org--tiny" / "refs" / "main").write_text(commit, encoding="utf-8")
    with pytest.raises(ValueError) as failed:
        bitext.Encoder("hf:org/tiny")
    assert str(snapshot / "onnx" / "model.onnx") in str(failed.value)
