#!/usr/bin/env python3
"""Everyday sentences for the multilingual student (issue 75), whose largest errors against its
teacher are on Tatoeba's short spoken sentences ("Beeil dich!" / "Hurry it up!"), a register
the software catalogues and game dialogue have little of. Two sources in Debian's packages:

- Ding's German-English dictionary (package trans-de-en, GPL-2+): the example sentences of its
  entries, pairs such as "Beeil dich, sonst kommst du zu spät." / "Hurry up or else you'll be
  late.", written to OUT_DIR/ding.en-de.tsv (english<TAB>german, the layout of
  gettext.en-*.tsv);
- the fortune cookies of seven languages (fortunes: en, BSD; fortunes-de, fortunes-pl,
  fortunes-ru and fortunes-br: pt, GPL-2+; fortunes-es, GPL-2, its quotations presumed in the
  public domain; fortunes-it, public domain): quotations, sayings, jokes and dialogue, one
  sentence a line, written to OUT_DIR/fortunes.XX.txt, for `--teacher-text` (the teacher's
  vector of a sentence needs no translation).

    python3 recipes/data/everyday_text.py OUT_DIR [--debs DIR]     (BITEXT_DATA: ../shared/data)

--debs DIR: the packages are downloaded into DIR, and one already there is not fetched again
(default: a temporary folder, removed at the end).

Ding. A line (`#` a comment) is `GERMAN :: ENGLISH`, each side subentries separated by ` | `
that translate each other in order; a line whose sides have different numbers of subentries is
left out and counted. A subentry is alternatives separated by `; `; the annotations in braces
and brackets (`{adv}`, `[ugs.]`, `[Br.]`) and in parentheses are dropped. The i-th German
alternative is paired with the i-th English one (the last when English has fewer). A pair is
kept when both sides are sentences: they begin with a capital, end in `.`, `!`, `?` or `…`, are
of two words or more, and hold no slash (`ohnehin/sowieso`: a choice, not a sentence) and none
of the dictionary's placeholders (etw., jdn., jdm., jds., sth., sb.).

Fortunes. A file is cookies separated by lines `%`. In a cookie, the attribution (a line
beginning with `--` or a dash, and every line after it) is dropped, a line beginning with a
dialogue dash is an utterance of its own, and the other lines are joined; the text is split
into sentences after `.`, `!`, `?` or `…` followed by a capital. A sentence is kept when it is
of 3 to 30 words and at most 300 characters, and letters are at least 60% of its characters
other than spaces (no code, addresses or ASCII art). Left out: the collections of offensive
cookies (`off/`), `ascii-art`, `asciiart` and `perl`, and the `.dat` indexes; and fortunes-zh (Tang poetry in classical
Chinese, not the language the teacher reads).

Every pair with a side equal to a sentence of the dev and test sets under BITEXT_DATA/dev, and
every such fortune sentence, is left out; pairs and sentences are deduplicated in the order
read (packages as listed, files by path). A file that is not UTF-8 is an error naming it. The
packages' licences allow the files to be used, not committed: they stay out of the repository.
Standard library only.

Measured (Debian 12 bookworm's packages, December 2026): the download 10.5 MB, the reading and
writing 15 s of one core; Ding 19,640 pairs (78 left out as dev/test sentences); fortune
sentences en 21,014, de 25,101, es 11,175, it 14,883, pl 14,130, pt 3,086, ru 22,870.

What it gives the multilingual student, side by side on one machine (2026-12-07, Intel Xeon
family 6 model 207, 2 cores; 30 minutes of training each, the teacher's vectors cached):
`bitext train siamese --recipe recipes/multilingual-distill.json --time-limit 30`, and the same
with OUT_DIR/ding.en-de.tsv added to the recipe's `input` and the seven fortune files as its
`teacher-text`. Tatoeba 1-NN error by cosine, mean of both directions, teacher / without /
with: German 2.10 / 4.60 / 3.85%, French 8.05 / 10.75 / 10.50%, Spanish 6.40 / 11.25 / 9.65%,
Italian 8.60 / 12.40 / 11.50%, Portuguese 5.65 / 7.95 / 7.30%, Dutch 6.90 / 12.25 / 11.90%,
Russian 7.35 / 11.05 / 10.10%, Japanese 8.85 / 14.05 / 13.55%. Better in every language, Dutch
and Japanese (which it adds no text of) through English: the student's mean cosine with the
teacher on Tatoeba's English sentences rose from 0.814-0.822 to 0.834-0.840. With it the run
went at 828 pairs/s against 919 (an 8-minute rerun with it: 924) and peaked at 16.5 GB against
11.8 (reached while the cached teacher lists load, flat through the training).
recipes/multilingual-distill.json reads it (from the folder BITEXT_EVERYDAY names): its
90-minute record is docs/eval/multilingual.md; its memory, now that the teacher's vectors are
held once per distinct sentence, is in docs/BENCHMARKS.md.
"""
import argparse
import re
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gettext_mo import debs_option, downloaded, held_out, write  # noqa: E402
from game_dialogue import HELD_OUT  # noqa: E402

#: Ding's package and the file in it.
DING = ("trans-de-en", "usr/share/trans/de-en")

#: (language, package, the pattern its fortune files match).
FORTUNES = [
    ("en", "fortunes", r"^\./usr/share/games/fortunes/[^/]+$"),
    ("de", "fortunes-de", r"^\./usr/share/games/fortunes/de/[^/]+$"),
    ("es", "fortunes-es", r"^\./usr/share/games/fortunes/es/[^/]+\.fortunes$"),
    ("it", "fortunes-it", r"^\./usr/share/games/fortunes/it/[^/]+$"),
    ("pt", "fortunes-br", r"^\./usr/share/games/fortunes/brasil$"),
    ("pl", "fortunes-pl", r"^\./usr/share/games/fortunes/pl/[^/]+$"),
    ("ru", "fortunes-ru", r"^\./usr/share/games/fortunes/ru/[^/]+$"),
]

#: Fortune files that are not prose.
NOT_PROSE = {"ascii-art", "asciiart", "perl"}

ANNOTATION = re.compile(r"\s*(\{[^}]*\}|\[[^\]]*\]|\([^)]*\))")
PLACEHOLDER = re.compile(r"\b(etw|jdn|jdm|jds|sth|sb)\.")
SENTENCE_END = ".!?…"


def is_sentence(text):
    """Whether a dictionary alternative is a sentence (see the module's documentation)."""
    return (len(text.split()) >= 2 and text[0].isupper() and text[-1] in SENTENCE_END
            and "/" not in text and not PLACEHOLDER.search(text))


def alternatives(subentry):
    """The alternatives of a Ding subentry, annotations dropped and spaces collapsed."""
    out = []
    for alt in subentry.split(";"):
        alt = re.sub(r"\s+", " ", ANNOTATION.sub("", alt)).strip()
        if alt:
            out.append(alt)
    return out


def ding_pairs(text, name):
    """(english, german) sentence pairs of a Ding dictionary's text, and the number of lines
    left out because their sides have different numbers of subentries."""
    pairs, uneven = [], 0
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if " :: " not in line:
            sys.exit(f"{name}:{number}: no ' :: ' between German and English")
        german, english = line.split(" :: ", 1)
        de, en = german.split(" | "), english.split(" | ")
        if len(de) != len(en):
            uneven += 1
            continue
        for d, e in zip(de, en):
            d, e = alternatives(d), alternatives(e)
            for i, x in enumerate(d):
                if e:
                    y = e[min(i, len(e) - 1)]
                    if is_sentence(x) and is_sentence(y):
                        pairs.append((y, x))
    return pairs, uneven


ATTRIBUTION = re.compile(r"^\s*(--|—|―|–\s)")
DIALOGUE = re.compile(r"^\s*[-–—]\s+")
SPLIT = re.compile(r"(?<=[.!?…])[\"»”']?\s+(?=[\"„«“'(¿¡]?[^\W\d_])")


def is_prose(sentence):
    """Whether a fortune sentence is kept (see the module's documentation)."""
    chars = [c for c in sentence if not c.isspace()]
    return (3 <= len(sentence.split()) <= 30 and len(sentence) <= 300
            and sum(c.isalpha() for c in chars) >= 0.6 * len(chars))


def fortune_sentences(text):
    """The sentences of a fortune file's text, in order, kept as `is_prose` says."""
    out = []
    for cookie in re.split(r"^%\s*$", text, flags=re.M):
        utterances, current = [], []
        for line in cookie.split("\n"):
            if ATTRIBUTION.match(line) and not DIALOGUE.match(line):
                break
            if DIALOGUE.match(line):
                if current:
                    utterances.append(current)
                current = [DIALOGUE.sub("", line)]
            elif line.strip():
                current.append(line.strip())
            elif current:
                utterances.append(current)
                current = []
        if current:
            utterances.append(current)
        for u in utterances:
            joined = re.sub(r"\s+", " ", " ".join(u)).strip()
            for s in SPLIT.split(joined):
                s = s.strip()
                if s and s[0].isupper() and is_prose(s):
                    out.append(s)
    return out


def members(deb, pattern):
    """(path, bytes) of the regular files of a package (its .deb read as a stream) whose paths
    match `pattern`, sorted by path."""
    found = []
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)],
                          stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as t:
            for m in t:
                if m.isfile() and re.search(pattern, m.name):
                    found.append((m.name.lstrip("."), t.extractfile(m).read()))
        proc.stdout.read()
    if proc.returncode:
        sys.exit(f"dpkg-deb --fsys-tarfile {deb} failed ({proc.returncode})")
    return sorted(found)


def decode(data, name):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        sys.exit(f"{name}: not UTF-8 ({err})")


def unique(items, held):
    """`items` in order without repeats, and the number left out as dev/test sentences."""
    seen, out, dropped = set(), [], 0
    for item in items:
        sides = item if isinstance(item, tuple) else (item,)
        if any(s in held for s in sides):
            dropped += 1
        elif item not in seen:
            seen.add(item)
            out.append(item)
    return out, dropped


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", metavar="OUT_DIR", type=Path)
    debs_option(ap)
    args = ap.parse_args()
    held = held_out(patterns=HELD_OUT)
    args.out.mkdir(parents=True, exist_ok=True)
    with downloaded([DING[0]] + [p for _, p, _ in FORTUNES], args.debs) as debs:
        files = members(debs[DING[0]], "^\\./" + re.escape(DING[1]) + "$")
        if not files:
            sys.exit(f"{debs[DING[0]]}: no {DING[1]}")
        name = f"{DING[0]}:{files[0][0]}"
        pairs, uneven = ding_pairs(decode(files[0][1], name), name)
        pairs, dropped = unique(pairs, held)
        path = args.out / "ding.en-de.tsv"
        write(path, "".join(f"{e}\t{d}\n" for e, d in pairs))
        print(f"{path}: {len(pairs)} pairs ({dropped} left out as dev/test sentences, "
              f"{uneven} lines with uneven sides)")
        for lang, package, pattern in FORTUNES:
            sentences = []
            for member, data in members(debs[package], pattern):
                base = member.rsplit("/", 1)[-1]
                if "/off/" in member or base in NOT_PROSE or base.endswith(".dat"):
                    continue
                sentences += fortune_sentences(decode(data, f"{package}:{member}"))
            sentences, dropped = unique(sentences, held)
            path = args.out / f"fortunes.{lang}.txt"
            write(path, "".join(f"{s}\n" for s in sentences))
            print(f"{path}: {len(sentences)} sentences ({dropped} left out as dev/test "
                  "sentences)")


if __name__ == "__main__":
    main()
