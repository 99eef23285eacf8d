"""The Ray driver on a local cluster: a head and two worker nodes on 127.0.0.1 (one CPU each)
run a 3-shard mining plan; the output must equal single-process ``bitext mine`` byte for byte.

    python tests/test_local_cluster.py --bitext target/debug/bitext

Exits 0 when it passes, 1 when it fails (``cargo xtask ci`` runs it; it skips it, saying so,
only when ``ray`` cannot be imported).
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

D = 16


def write_planted(dir_: str, n: int, m: int, planted: int, seed: int):
    """``n`` sources and ``m`` targets (raw little-endian f32); target j < planted is a noisy
    copy of source j."""
    rng = random.Random(seed)
    xs = [[2.0 * rng.gauss(0, 1) for _ in range(D)] for _ in range(n)]
    ys = [[rng.gauss(0, 1) for _ in range(D)] for _ in range(m)]
    for j in range(planted):
        ys[j] = [a + 0.4 * rng.gauss(0, 1) for a in xs[j]]
    paths = []
    for name, rows in (("x.f32", xs), ("y.f32", ys)):
        p = os.path.join(dir_, name)
        with open(p, "wb") as f:
            for r in rows:
                f.write(struct.pack(f"<{D}f", *r))
        paths.append(p)
    return paths


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_cli() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "ray")
    return exe if os.path.exists(exe) else "ray"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bitext", required=True)
    a = ap.parse_args()
    bitext = os.path.abspath(a.bitext)
    import ray  # noqa: F401  (fails early, before a cluster is started)

    from bitext_ray import mine

    tmp = tempfile.mkdtemp(prefix="btxray")
    x, y = write_planted(tmp, 400, 350, 150, 7)
    args = ["-q", "--dim", str(D), "--src-embeddings", x, "--tgt-embeddings", y, "-k", "4"]
    single = subprocess.run([bitext, "mine", *args], check=True, capture_output=True).stdout
    port = free_port()
    ray = ray_cli()
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    try:
        subprocess.run(
            [ray, "start", "--head", f"--port={port}", "--include-dashboard=false",
             f"--temp-dir={tmp}/r", *common],
            check=True, env=env, capture_output=True,
        )
        for _ in range(2):
            subprocess.run(
                [ray, "start", f"--address=127.0.0.1:{port}", *common],
                check=True, env=env, capture_output=True,
            )
        import ray as rayapi

        rayapi.init(address=f"127.0.0.1:{port}", log_to_driver=False)
        alive = [n for n in rayapi.nodes() if n["Alive"]]
        if len(alive) != 3:
            print(f"FAIL: expected 3 Ray nodes, found {len(alive)}", file=sys.stderr)
            return 1
        out = os.path.join(tmp, "mined.tsv")
        work = os.path.join(tmp, "work")
        reports = mine([*args, "--shards", "3"], work, bitext=bitext, output=out)
        with open(out, "rb") as f:
            got = f.read()
        nodes = {r.split("\t")[1] for r in reports}
        print(f"{len(reports)} steps as Ray tasks on {len(nodes)} of 3 nodes", file=sys.stderr)
        if len(reports) != 3 * 3 + 2 * 3 + 2 + 2 * 3 + 2:
            print(f"FAIL: {len(reports)} steps ran", file=sys.stderr)
            return 1
        if got != single:
            print("FAIL: the Ray run's output differs from single-process bitext mine", file=sys.stderr)
            return 1
        if len(single.splitlines()) < 50:
            print("FAIL: too few pairs mined to compare", file=sys.stderr)
            return 1
        print(f"ok: {len(single.splitlines())} pairs, byte-identical to single-process mining", file=sys.stderr)
        return 0
    finally:
        try:
            import ray as rayapi

            rayapi.shutdown()
        except Exception:  # noqa: BLE001 - best effort
            pass
        subprocess.run([ray, "stop", "--force"], env=env, capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
