#!/usr/bin/env python3
"""English-French and English-German pairs from the gettext catalogues of three free games in
Debian: the Wesnoth campaigns' story dialogue, FreedroidRPG's dialogues and Widelands'
scenarios and help. Everyday spoken register ("Come back and talk to me when ...", "I should
have ..."), which the software catalogues of ../shared/data/train lack; the siamese student
reads them beside those (docs/EVALUATION.md, "Game dialogue").

    python3 recipes/data/game_dialogue.py OUT_DIR     (BITEXT_DATA: ../shared/data)

Downloads the packages with `apt-get download` (about 740 MB, Debian's registry), reads the
French and German `.mo` catalogues out of them with `dpkg-deb`, and writes
OUT_DIR/games.en-fr.tsv and OUT_DIR/games.en-de.tsv (english<TAB>translation, the layout of
gettext.en-*.tsv), each written to a temporary file and renamed into place. A message counts
when its English and its translation split into the same number of lines; markup is dropped,
lines with a placeholder (`%`, `$`, `{`), a tab or of one word are left out, and so is every
pair with a side equal to a sentence of the dev and test sets under BITEXT_DATA/dev (Tatoeba,
newsdev, newstest-dev, docalign). The games are GPL-2+: the files stay out of the repository.
Standard library only.
"""
import io
import os
import re
import struct
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

# In the order of their catalogues' names (wesnoth-1.16-ttb holds wesnoth-tb.mo): the order
# the pairs are written in.
WESNOTH = [f"wesnoth-1.16-{c}" for c in (
    "did dm dw ei httt l low nr sof sota sotbe ttb thot trow tsg utbs").split()]
# Each package with the catalogues read from it (a name pattern under its locale folder).
SOURCES = [("wesnoth", p, r"^wesnoth-.*\.mo$") for p in WESNOTH] + [
    ("freedroidrpg", "freedroidrpg-data", r"^freedroidrpg-dialogs\.mo$"),
    ("widelands", "widelands-data", r"\.mo$"),
]
TAG = re.compile(r"<[^>]*>")


def read_mo(data, name):
    """(msgid, msgstr) of a compiled catalogue: the singular forms, contexts dropped."""
    if len(data) < 20:
        sys.exit(f"{name}: too short for a .mo catalogue ({len(data)} bytes)")
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0x950412DE, 0xDE120495):
        sys.exit(f"{name}: not a .mo catalogue (magic {magic:#x})")
    e = "<" if magic == 0x950412DE else ">"
    _, n, orig, trans = struct.unpack(e + "4I", data[4:20])
    out = []
    for i in range(n):
        ol, oo = struct.unpack(e + "2I", data[orig + 8 * i:orig + 8 * i + 8])
        tl, to = struct.unpack(e + "2I", data[trans + 8 * i:trans + 8 * i + 8])
        if oo + ol > len(data) or to + tl > len(data):
            sys.exit(f"{name}: message {i} points past the end of the file")
        try:
            mid = data[oo:oo + ol].decode("utf8")
            mstr = data[to:to + tl].decode("utf8")
        except UnicodeDecodeError as err:
            sys.exit(f"{name}: message {i} is not UTF-8 ({err})")
        if mid and mstr:
            out.append((mid.split("\x04")[-1].split("\x00")[0], mstr.split("\x00")[0]))
    return out


def lines(text):
    return [c for c in (re.sub(r"\s+", " ", TAG.sub("", x)).strip()
                        for x in re.split(r"\n\s*\n|\n", text)) if c]


def held_out(data_dir):
    """Every sentence of the dev and test sets (the last tab field of a line)."""
    dev = Path(data_dir) / "dev"
    files = [*dev.glob("tatoeba/*"), *dev.glob("newstest-dev*"),
             *dev.glob("bucc-style/*.de"), *dev.glob("bucc-style/*.en"),
             *dev.glob("docalign/dev.??")]
    if not files:
        sys.exit(f"{dev}: no dev or test sets found (set BITEXT_DATA)")
    seen = set()
    for f in files:
        for line in f.read_text(encoding="utf8", errors="replace").splitlines():
            s = line.split("\t")[-1].strip()
            if s:
                seen.add(s)
    return seen


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    held = held_out(os.environ.get("BITEXT_DATA", "../shared/data"))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        packages = sorted({p for _, p, _ in SOURCES})
        try:
            subprocess.run(["apt-get", "download", *packages], cwd=tmp, check=True)
        except FileNotFoundError:
            sys.exit("apt-get not found: the packages come from Debian's registry")
        except subprocess.CalledProcessError as err:
            sys.exit(f"apt-get download {' '.join(packages)} failed ({err.returncode})")
        debs = {p: next(Path(tmp).glob(f"{p}_*.deb")) for p in packages}
        catalogues = {"fr": [], "de": []}
        for _, package, pattern in SOURCES:
            print(f"{debs[package].name}", file=sys.stderr)
            tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(debs[package])],
                                 check=True, capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(tar)) as t:
                found = []
                for m in t.getmembers():
                    parts = m.name.split("/")
                    if (m.isfile() and "locale" in parts and len(parts) >= 3
                            and parts[-2] == "LC_MESSAGES" and parts[-3] in catalogues
                            and re.search(pattern, parts[-1])):
                        found.append((parts[-3], parts[-1], m))
                for lang, name, m in sorted(found, key=lambda x: (x[0], x[1])):
                    catalogues[lang].append((f"{package}:{m.name}", t.extractfile(m).read()))
        for lang, cats in catalogues.items():
            pairs, seen, dropped = [], set(), 0
            for name, data in cats:
                for mid, mstr in read_mo(data, name):
                    a, b = lines(mid), lines(mstr)
                    if len(a) != len(b):
                        continue
                    for x, y in zip(a, b):
                        if (len(x) < 2 or x == y or "\t" in x + y or "$" in x or "{" in x
                                or "%" in x + y or len(x.split()) < 2):
                            continue
                        if x in held or y in held:
                            dropped += 1
                            continue
                        if (x, y) not in seen:
                            seen.add((x, y))
                            pairs.append(f"{x}\t{y}\n")
            path = out / f"games.en-{lang}.tsv"
            part = path.with_suffix(".tsv.part")
            part.write_text("".join(pairs), encoding="utf8")
            part.replace(path)
            print(f"{path}: {len(pairs)} pairs ({dropped} left out as dev/test sentences)")


if __name__ == "__main__":
    main()
