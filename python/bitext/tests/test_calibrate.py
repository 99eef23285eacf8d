"""calibrate and Calibration: the calibration `bitext calibrate` fits from the same labelled
scores, saved and loaded in its format; bad input raising ValueError."""

import json

import numpy as np
import pytest

import bitext


def sample(seed=3, n=400):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.4
    scores = np.where(labels, rng.normal(1.2, 0.2, n), rng.normal(0.9, 0.2, n))
    return scores, labels


def test_calibrate_equals_the_command_line(tmp_path, run):
    scores, labels = sample()
    (tmp_path / "labelled.tsv").write_text(
        "".join(f"{float(s)!r}\t{int(l)}\n" for s, l in zip(scores, labels))
    )
    run("calibrate", "--scores", tmp_path / "labelled.tsv", "-o", tmp_path / "cal.json")
    cli = json.loads((tmp_path / "cal.json").read_text())
    cal = bitext.calibrate(scores, labels)
    mine = json.loads(cal.to_json())
    cli.pop("source")
    mine.pop("source")
    assert mine == cli
    loaded = bitext.Calibration.load(tmp_path / "cal.json")
    np.testing.assert_array_equal(loaded.probability(scores), cal.probability(scores))


def test_probabilities_rise_with_the_score_and_thresholds_reach_their_precision(tmp_path):
    scores, labels = sample(seed=4)
    cal = bitext.calibrate(scores, labels.astype(int).tolist())
    grid = np.linspace(scores.min(), scores.max(), 50)
    p = cal.probability(grid)
    assert np.all(np.diff(p) >= 0) and 0 <= p.min() and p.max() <= 1
    t = cal.min_score(0.9)
    kept = scores >= t
    assert labels[kept].mean() >= 0.9
    rows = cal.thresholds
    assert rows[-1]["target"] == {"kind": "best_f1"} or "best" in json.dumps(rows[-1]["target"])
    cal.save(tmp_path / "c.json")
    again = bitext.Calibration.load(tmp_path / "c.json")
    assert again.to_json() == cal.to_json()


def test_bad_calibration_input_raises_value_error():
    scores, labels = sample()
    with pytest.raises(ValueError, match="labels"):
        bitext.calibrate(scores, labels[:10])
    with pytest.raises(ValueError, match="labels"):
        bitext.calibrate(scores[:3], [0, 1, 2])
    with pytest.raises(ValueError):
        bitext.calibrate(scores[:3], [1, 1, 1])
    with pytest.raises(ValueError, match="scores"):
        bitext.calibrate(scores.astype(np.float32), labels)
    bad = scores.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError):
        bitext.calibrate(bad, labels)
    cal = bitext.calibrate(scores, labels)
    with pytest.raises(ValueError):
        cal.min_score(1.5)


def test_save_follows_a_link_and_streams_into_a_fifo(tmp_path):
    """The bindings' save methods write through bitext's one writer: a link stays a link, a
    FIFO stays a FIFO and receives the file."""
    import os
    import stat
    import threading

    cal = bitext.calibrate(*sample())
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "c.json").write_text("old")
    link = tmp_path / "c.json"
    link.symlink_to("real/c.json")
    cal.save(link)
    assert link.is_symlink() and os.readlink(link) == "real/c.json"
    assert bitext.Calibration.load(tmp_path / "real" / "c.json").to_json() == cal.to_json()
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["c.json"]

    fifo = tmp_path / "c.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    cal.save(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert got[0] == (tmp_path / "real" / "c.json").read_bytes()
