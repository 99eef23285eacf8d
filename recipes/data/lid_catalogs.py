#!/usr/bin/env python3
"""A language-identification dev set from the translation catalogues of Debian packages: real
sentences of free software in some ninety languages (help texts, error messages, descriptions of
settings), each labelled with the language of its catalogue. bitext's identifier and the Python
LID tools read it side by side in benches/lid_side_by_side.py.

    python3 recipes/data/lid_catalogs.py OUT_DIR [--n 300] [--min 100] [--seed 0]
        [--min-words 3] [--debs DIR]                         (BITEXT_DATA: ../shared/data)

Downloads the packages of PACKAGES with `apt-get download` (about 30 MB, Debian's registry;
with --debs DIR, into DIR, and a package whose .deb is already there is not fetched again),
reads every gettext catalogue `/usr/share/locale/CODE/LC_MESSAGES/*.mo` out of them with
`dpkg-deb --fsys-tarfile` (the charset of the catalogue's header honoured), and writes
OUT_DIR/lid-dev.tsv: `lang<TAB>sentence`, one sentence a line, the languages in the order of
their codes, each language's sentences in the order drawn.

The label is the catalogue's code written as fastText's lid.176 writes languages (lid_code):
the part before `_REGION` and `@modifier` (pt_BR -> pt, zh_CN, zh_TW, zh_HK -> zh, ru_UA -> ru,
bn_IN -> bn, ca@valencia -> ca; the script variants sr@latin, sr@Latn, sr@ije -> sr,
be@latin -> be, uz@cyrillic -> uz), then RENAMED: nb -> no (lid.176 names Norwegian Bokmål
`no`; Nynorsk stays nn), az_IR -> azb (South Azerbaijani, Arabic script), kmr -> ku,
gsw -> als, fil -> tl, and the old codes iw -> he, in -> id, ji -> yi. Catalogues of English
(en_GB, en_CA, en@quot, en@boldquot, en@shaw) are left out (the set holds translations), and
so is every language that lid.176 does not name (LID176: ab, ang, crh, dz, fur, kg, lg, mi,
nso, rw, wo, xh, ...).

A translated message counts line by line (a message of several lines is split at its line
breaks; whitespace is collapsed). A line is kept when it reads as a sentence (is_sentence): at
least --min-words words (or, in a script written without spaces, at least 6 characters of
Chinese or Japanese, or 12 of Thai, Lao, Khmer, Myanmar or Tibetan), letters and marks at
least 60% of its characters, and no placeholder or markup: `%`, `$`, `{`, `}`, `<`, `>`, `=`,
`\\`, `_`, `&`, `@`, `|`, a tab, a URL, a command-line option (`-a`, `--all`) or a path
(`/etc`). A line equal to a line of its English message, or to any English line of the
catalogues read (case and spacing aside), is left out as untranslated, and so is a line found
under two languages, and every sentence of the dev and test sets under BITEXT_DATA/dev (any
file, the last tab field of a line). A language with fewer than --min distinct sentences is
left out; of the others, --n sentences are drawn (all when fewer), seeded by --seed and the
language's code, from the language's sentences sorted: the same packages give the same file.
(Debian 12 bookworm's packages as served in December 2026 give 88 languages, 25,907
sentences.)

The file is written to a temporary file and renamed into place (a link is followed, a device
or FIFO written in place). A catalogue that cannot be read is an error naming the package and
the file. The catalogues carry their packages' licences (GPL and LGPL mostly): the files stay
out of the repository. Standard library only.
"""
import argparse
import io
import random
import re
import subprocess
import sys
import tarfile
import unicodedata
from pathlib import Path

from gettext_mo import debs_option, downloaded, held_out, read_mo, write

# Packages with many complete translations, sentence-like messages among them (help texts of
# the GNU tools, GLib's and GTK's errors and property descriptions, the descriptions of Debian's
# tasks and of debconf's and apt's questions).
PACKAGES = sorted("""
    apt aptitude-common bash coreutils debconf-i18n diffutils dpkg findutils gettext
    gettext-base gnupg-l10n grep libc-l10n libglib2.0-data libgtk-3-common man-db psmisc sed
    tar tasksel-data util-linux-locales wget
""".split())

# The 176 labels of fastText's lid.176 (`__label__xx` in lid.176.bin and lid.176.ftz).
LID176 = frozenset("""
    af als am an ar arz as ast av az azb ba bar bcl be bg bh bn bo bpy br bs bxr ca cbk ce ceb
    ckb co cs cv cy da de diq dsb dty dv el eml en eo es et eu fa fi fr frr fy ga gd gl gn gom
    gu gv he hi hif hr hsb ht hu hy ia id ie ilo io is it ja jbo jv ka kk km kn ko krc ku kv kw
    ky la lb lez li lmo lo lrc lt lv mai mg mhr min mk ml mn mr mrj ms mt mwl my myv mzn nah
    nap nds ne new nl nn no oc or os pa pam pfl pl pms pnb ps pt qu rm ro ru rue sa sah sc scn
    sco sd sh si sk sl so sq sr su sv sw ta te tg th tk tl tr tt tyv ug uk ur uz vec vep vi vls
    vo wa war wuu xal xmf yi yo yue zh
""".split())
assert len(LID176) == 176
# Catalogue languages that lid.176 spells another way (a full code with its region first).
RENAMED = {"az_IR": "azb", "nb": "no", "kmr": "ku", "gsw": "als", "fil": "tl", "iw": "he",
           "in": "id", "ji": "yi"}
# Modifiers that name a script or a spelling of the language itself; others (quot, boldquot,
# shaw) mark a transformed English and are left out.
SAME_LANGUAGE = {"latin", "Latn", "cyrillic", "Cyrl", "ije", "valencia"}
CATALOGUE = re.compile(r"/usr/share/locale/(?P<code>[^/]+)/LC_MESSAGES/[^/]+\.mo$")


def lid_code(code):
    """The lid.176 label of a catalogue's language code, or None when the set leaves it out
    (English, a modifier that is no spelling of the language, a language lid.176 lacks)."""
    code = code.split(".")[0]  # de_DE.UTF-8
    base, _, modifier = code.partition("@")
    if modifier and modifier not in SAME_LANGUAGE:
        return None
    lang = RENAMED.get(base) or RENAMED.get(base.split("_")[0]) or base.split("_")[0]
    if lang == "en" or lang not in LID176:
        return None
    return lang


def catalogues(tar_bytes, package):
    """(language code, name, .mo bytes) of the gettext catalogues in a package's file-system
    tar, in the order of their paths."""
    found = []
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as t:
        for m in t.getmembers():
            hit = m.isfile() and CATALOGUE.search(m.name)
            if hit:
                found.append((hit["code"], f"{package}:{m.name.lstrip('.')}",
                              t.extractfile(m).read()))
    return sorted(found, key=lambda c: c[1])


def lines(text):
    """The non-empty lines of a message, whitespace collapsed."""
    return [c for c in (re.sub(r"\s+", " ", x).strip() for x in text.split("\n")) if c]


# A placeholder, markup, an accelerator or a character of code: the line is left out.
UNWANTED = re.compile(r"[%${}<>=\\_&@|\t]|://|www\."
                      r"|(?:^|[\s(\[\"'`“‘«])(?:--?[A-Za-z0-9]|[~.]*/\w)")
# Scripts written without spaces between words, and how many of their characters make a
# sentence: kana and CJK ideographs (a word of one to three characters), and Thai, Lao,
# Tibetan, Myanmar and Khmer (whose vowel signs and tone marks are characters of their own).
UNSPACED = [(((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)), 6),
            (((0x0E00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF)), 12)]


def unspaced_sentence(line):
    """Whether a line holds enough characters of a script written without spaces."""
    for ranges, least in UNSPACED:
        if sum(any(a <= ord(c) <= b for a, b in ranges) for c in line) >= least:
            return True
    return False


def is_sentence(line, min_words=3):
    """Whether a line reads as a sentence of words (see the module's docstring)."""
    if UNWANTED.search(line):
        return False
    chars = [c for c in line if not c.isspace()]
    letters = sum(unicodedata.category(c)[0] in "LM" for c in chars)
    if not chars or letters < 0.6 * len(chars):
        return False
    return len(line.split()) >= min_words or unspaced_sentence(line)


def fold(line):
    return " ".join(line.split()).casefold()


def sentences(messages, english, held, min_words=3):
    """The sentences of a catalogue's (msgid, msgstr) pairs, in order: the lines of each
    translation that read as sentences, less those equal to a line of their message's English
    or found in `english` (folded lines) or in `held`."""
    out = []
    for mid, mstr in messages:
        own = {fold(x) for x in lines(mid)}
        for line in lines(mstr):
            f = fold(line)
            if (is_sentence(line, min_words) and f not in own and f not in english
                    and line not in held):
                out.append(line)
    return out


def draw(pools, n, least, seed):
    """{lang: up to n sentences} from {lang: sentences}: each language's distinct sentences
    less those found under another language; a language with fewer than `least` is left out.
    The draw is seeded by `seed` and the language, from the sentences sorted."""
    owners = {}
    for lang, pool in pools.items():
        for s in set(pool):
            owners.setdefault(s, set()).add(lang)
    out = {}
    for lang in sorted(pools):
        pool = sorted({s for s in pools[lang] if len(owners[s]) == 1})
        if len(pool) >= least:
            out[lang] = random.Random(f"{seed}:{lang}").sample(pool, min(n, len(pool)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", metavar="OUT_DIR")
    p.add_argument("--n", type=int, default=300, help="sentences a language (default 300)")
    p.add_argument("--min", type=int, default=100,
                   help="fewest distinct sentences a language needs (default 100)")
    p.add_argument("--seed", default="0", help="seed of the draw (default 0)")
    p.add_argument("--min-words", type=int, default=3, help="fewest words a sentence has")
    debs_option(p)
    a = p.parse_args()
    held = held_out()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with downloaded(PACKAGES, a.debs) as debs:
        read = []  # (lid label, name, messages)
        skipped = set()
        for package in PACKAGES:
            print(debs[package].name, file=sys.stderr)
            try:
                tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(debs[package])],
                                     check=True, capture_output=True).stdout
            except subprocess.CalledProcessError as err:
                sys.exit(f"{debs[package]}: dpkg-deb failed: {err.stderr.decode().strip()}")
            for code, name, data in catalogues(tar, package):
                lang = lid_code(code)
                if lang is None:
                    skipped.add(code)
                    continue
                read.append((lang, name, read_mo(data, name)))
    english = {fold(x) for _, _, messages in read for mid, _ in messages for x in lines(mid)}
    pools = {}
    for lang, name, messages in read:
        pools.setdefault(lang, []).extend(sentences(messages, english, held, a.min_words))
    drawn = draw(pools, a.n, a.min, a.seed)
    small = sorted(set(pools) - set(drawn))
    write(out / "lid-dev.tsv",
          "".join(f"{lang}\t{s}\n" for lang, chosen in drawn.items() for s in chosen))
    print(f"catalogue languages left out: {' '.join(sorted(skipped))}", file=sys.stderr)
    print("too few sentences (distinct): " + " ".join(
        f"{lang} ({len(set(pools[lang]))})" for lang in small), file=sys.stderr)
    print(" ".join(f"{lang} {len(chosen)}" for lang, chosen in drawn.items()), file=sys.stderr)
    print(f"{out / 'lid-dev.tsv'}: {sum(map(len, drawn.values()))} sentences in "
          f"{len(drawn)} languages")


if __name__ == "__main__":
    main()
