"""Shared fixtures: the `bitext` binary the parity tests compare with (BITEXT_BIN, which
`cargo xtask ci` sets to the binary its test step built), seeded data, a runner."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest


@pytest.fixture(scope="session")
def bitext_bin() -> Path:
    path = os.environ.get("BITEXT_BIN")
    if not path or not Path(path).is_file():
        raise RuntimeError(
            "set BITEXT_BIN to a built `bitext` binary (cargo xtask ci does): the parity tests "
            "compare the module with it"
        )
    return Path(path)


@pytest.fixture
def run(bitext_bin):
    """Run `bitext ARGS...`, failing the test with its stderr when it fails."""

    def go(*args):
        done = subprocess.run(
            [str(bitext_bin), *map(str, args)], capture_output=True, text=True
        )
        assert done.returncode == 0, f"bitext {' '.join(map(str, args))}:\n{done.stderr}"
        return done

    return go


def embeddings(n: int, m: int, dim: int, seed: int, planted: int = 0):
    """Two seeded float32 matrices; the first `planted` target rows are noisy copies of the
    first source rows (translations to find)."""
    rng = np.random.default_rng(seed)
    src = rng.standard_normal((n, dim)).astype(np.float32)
    tgt = rng.standard_normal((m, dim)).astype(np.float32)
    tgt[:planted] = src[:planted] + 0.3 * rng.standard_normal((planted, dim)).astype(np.float32)
    return src, tgt


def read_pairs(path: Path):
    """`score<TAB>src<TAB>tgt` lines of `bitext mine` → (pairs, scores)."""
    pairs, scores = [], []
    for line in path.read_text().splitlines():
        score, s, t = line.split("\t")
        pairs.append((int(s), int(t)))
        scores.append(float(score))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2), np.array(scores)
