"""The Ray driver on a local cluster: a head and two worker nodes on 127.0.0.1 (one CPU each,
one of them with an ``encoder`` resource) run a 3-shard mining plan of two embedding files, a
3-shard plan from text to pairs whose embed steps must all run on the ``encoder`` node, and a
3-shard filter plan (cosine of a bag of words, a word budget) and a 3-shard cleaning plan of a
noisy copy of that TSV (rules, near-duplicates, the cosine and a threshold); each output must
equal the single-process command's byte for byte.

    python tests/test_local_cluster.py --bitext target/debug/bitext

Exits 0 when it passes, 1 when it fails (``cargo xtask ci`` runs it; it skips it, saying so,
only when ``ray`` cannot be imported).
"""

from __future__ import annotations

import argparse
import json
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


def write_text(dir_: str, n: int, m: int, planted: int, seed: int):
    """Comparable toy corpora and their word vectors: ``n`` source sentences of words
    ``a0 … a29``, ``m`` target sentences of words ``b0 … b29`` of which the first ``planted``
    translate sources (words reversed and renamed); ``a{i}`` and ``b{i}`` are noisy copies of
    one random vector. Returns the two texts and the encoder spec."""
    rng = random.Random(seed)
    words = lambda: [rng.randrange(30) for _ in range(2 + rng.randrange(6))]  # noqa: E731
    src = [words() for _ in range(n)]
    tgt = [list(reversed(src[j])) for j in range(planted)] + [words() for _ in range(m - planted)]
    paths = []
    for name, prefix, rows in (("src.txt", "a", src), ("tgt.txt", "b", tgt)):
        p = os.path.join(dir_, name)
        with open(p, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(" ".join(f"{prefix}{i}" for i in r) + "\n")
        paths.append(p)
    base = [[rng.gauss(0, 1) for _ in range(D)] for _ in range(30)]
    vecs = []
    for prefix in ("a", "b"):
        p = os.path.join(dir_, f"{prefix}.vec")
        with open(p, "w", encoding="utf-8") as f:
            f.write(f"30 {D}\n")
            for i, v in enumerate(base):
                noisy = " ".join(f"{x + 0.1 * rng.gauss(0, 1):.6f}" for x in v)
                f.write(f"{prefix}{i} {noisy}\n")
        vecs.append(p)
    spec = json.dumps({"type": "bow", "vectors": vecs[0], "target_vectors": vecs[1], "lowercase": False})
    return paths[0], paths[1], spec


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
        for extra in ([], ["--resources", json.dumps({"encoder": 1})]):
            subprocess.run(
                [ray, "start", f"--address=127.0.0.1:{port}", *common, *extra],
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
        return text_plan(bitext, tmp, rayapi)
    finally:
        try:
            import ray as rayapi

            rayapi.shutdown()
        except Exception:  # noqa: BLE001 - best effort
            pass
        subprocess.run([ray, "stop", "--force"], env=env, capture_output=True)


def text_plan(bitext: str, tmp: str, rayapi) -> int:
    """Text to pairs: embed steps on the ``encoder`` node, the output single-process's."""
    from bitext_ray import mine

    s, t, spec = write_text(tmp, 300, 240, 120, 11)
    text = ["-q", "-k", "4", "--src-text", s, "--tgt-text", t, "--encoder", spec]
    x, y = os.path.join(tmp, "xs.npy"), os.path.join(tmp, "ys.npy")
    single = subprocess.run(
        [bitext, "mine", *text, "--src-embeddings", x, "--tgt-embeddings", y],
        check=True, capture_output=True,
    ).stdout
    encoder_node = [n["NodeID"] for n in rayapi.nodes() if n["Alive"] and "encoder" in n["Resources"]]
    out = os.path.join(tmp, "mined-text.tsv")
    lines = []
    reports = mine(
        [*text, "--shards", "3"],
        os.path.join(tmp, "work-text"),
        bitext=bitext,
        output=out,
        embed_resources={"resources": {"encoder": 1}},
        progress=lambda done, total, line: lines.append((done, total)),
    )
    with open(out, "rb") as f:
        got = f.read()
    embed_nodes = {r.split("\t")[1] for r in reports if r.startswith("embed-")}
    embeds = sum(r.startswith("embed-") for r in reports)
    if embeds != 6 or embed_nodes != {f"node {encoder_node[0]}"}:
        print(f"FAIL: {embeds} embed steps on {embed_nodes}, not on {encoder_node}", file=sys.stderr)
        return 1
    if lines[-1] != (len(reports), len(reports)):
        print(f"FAIL: progress ended at {lines[-1]} of {len(reports)} steps", file=sys.stderr)
        return 1
    if got != single or len(single.splitlines()) < 50:
        print("FAIL: the text plan's output differs from single-process bitext mine (or is short)", file=sys.stderr)
        return 1
    print(f"ok: text to {len(single.splitlines())} pairs in {len(reports)} steps, the 6 embed steps on the "
          "encoder node; byte-identical to single-process mining", file=sys.stderr)
    return filter_plan(bitext, tmp, spec, s, t)


def filter_plan(bitext: str, tmp: str, spec: str, s: str, t: str) -> int:
    """A TSV of the first 240 source and target lines side by side, filtered in 3 shards."""
    from bitext_ray import filter_tsv

    tsv = os.path.join(tmp, "pairs.tsv")
    with open(s, encoding="utf-8") as fs, open(t, encoding="utf-8") as ft, open(tsv, "w", encoding="utf-8") as f:
        for a, b in zip(fs, ft):
            f.write(f"{a.strip()}\t{b.strip()}\n")
    args = ["-q", "--input", tsv, "--scorer", "cosine", "--encoder", spec, "--budget-words", "600"]
    want, got = os.path.join(tmp, "filtered-single.tsv"), os.path.join(tmp, "filtered-ray.tsv")
    subprocess.run([bitext, "filter", *args, "-o", want], check=True, capture_output=True)
    reports = filter_tsv([*args, "-o", got, "--shards", "3"], os.path.join(tmp, "work-filter"), bitext=bitext)
    with open(want, "rb") as a, open(got, "rb") as b:
        single, ray_out = a.read(), b.read()
    if len(reports) != 5 or single != ray_out or not 20 < len(single.splitlines()) < 240:
        print(f"FAIL: the filter plan ({len(reports)} steps) differs from single-process bitext filter",
              file=sys.stderr)
        return 1
    print(f"ok: filter plan of {len(reports)} steps kept {len(single.splitlines())} lines, byte-identical",
          file=sys.stderr)
    return clean_plan(bitext, tmp, spec, tsv)


def clean_plan(bitext: str, tmp: str, spec: str, tsv: str) -> int:
    """The filter's TSV made noisy (copies, boilerplate, markup, disagreeing numbers), cleaned
    in 3 shards: the kept and removed lines as one process writes them."""
    from bitext_ray import clean_tsv

    # The toy words (`a27`) spelt with letters only (`aim`): the rules and the near-duplicate
    # keys ignore digits.
    def letters(text: str) -> str:
        return "".join("ghijklmnop"[int(c)] if c.isdigit() else c for c in text)

    spec_json = json.loads(spec)
    for key in ("vectors", "target_vectors"):
        with open(spec_json[key], encoding="utf-8") as f:
            head, *rows = f.read().splitlines()
        spec_json[key] = spec_json[key] + ".letters.vec"
        with open(spec_json[key], "w", encoding="utf-8") as f:
            f.write("\n".join([head, *(letters(r.split(" ", 1)[0]) + " " + r.split(" ", 1)[1] for r in rows)]) + "\n")
    spec_json["lowercase"] = True
    spec = json.dumps(spec_json)
    with open(tsv, encoding="utf-8") as f:
        pairs = [letters(p) for p in f.read().splitlines()]
    rng = random.Random(5)
    noisy = []
    for i, pair in enumerate(pairs):
        noisy.append(pair)
        kind = rng.randrange(6)
        if kind == 0:
            noisy.append(pair.upper())
        elif kind == 1:
            noisy.append("Home\tStart")
        elif kind == 2:
            noisy.append(f"<b>{pair.split(chr(9))[0]}</b>\t{pair.split(chr(9))[1]}")
        elif kind == 3:
            noisy.append(f"{pair.split(chr(9))[0]} {i}\t{pair.split(chr(9))[1]} {i + 1}")
    crawl = os.path.join(tmp, "crawl.tsv")
    with open(crawl, "w", encoding="utf-8") as f:
        f.write("\n".join(noisy) + "\n")
    args = ["-q", "--input", crawl, "--encoder", spec, "--min-score", "0.2"]
    outs = {}
    for name in ("single", "ray"):
        outs[name] = [os.path.join(tmp, f"clean-{name}.{ext}") for ext in ("tsv", "removed.tsv")]
    single_args = [*args, "-o", outs["single"][0], "--removed", outs["single"][1]]
    subprocess.run([bitext, "clean", *single_args], check=True, capture_output=True)
    ray_args = [*args, "-o", outs["ray"][0], "--removed", outs["ray"][1], "--shards", "3"]
    reports = clean_tsv(ray_args, os.path.join(tmp, "work-clean"), bitext=bitext)
    got = [open(p, "rb").read() for p in outs["ray"]]
    want = [open(p, "rb").read() for p in outs["single"]]
    removed = want[1].decode("utf-8")
    kinds = [k for k in ("duplicate", "boilerplate", "markup", "numbers", "min_score") if f"\t{k}\t" in removed]
    if got != want or len(kinds) < 4 or not 20 < len(want[0].splitlines()) < len(noisy):
        print(f"FAIL: the cleaning plan ({len(reports)} steps) differs from single-process bitext clean "
              f"(or removed too few kinds: {kinds})", file=sys.stderr)
        return 1
    print(f"ok: cleaning plan of {len(reports)} steps kept {len(want[0].splitlines())} of {len(noisy)} lines "
          f"(removed: {', '.join(kinds)}), byte-identical", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
