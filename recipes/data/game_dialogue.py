#!/usr/bin/env python3
"""English pairs in every language of the teacher, USE-M (ar, de, es, fr, it, ja, ko, nl, pl, pt,
ru, th, tr, zh_CN, zh_TW), from the translation catalogues of free games in Debian: the Wesnoth
campaigns' story dialogue, FreedroidRPG's dialogues, Widelands' scenarios and help, Warzone
2100's campaign and messages, Flare's quests, SuperTux's and Pingus' levels, and the dialogue of
Fish Fillets and Hedgewars' missions. Everyday spoken register ("Come back and talk to me when
...", "I should have ..."), which the software catalogues of ../shared/data/train lack; the
students read the French and German beside those (docs/EVALUATION.md, "Students distilled from
the pretrained encoder"; the trial that adopted them: docs/notes/evaluation-log.md, "Game
dialogue").

    python3 recipes/data/game_dialogue.py OUT_DIR [--langs fr,de] [--extra] [--debs DIR]
                                                            (BITEXT_DATA: ../shared/data)

--langs: the languages written, separated by commas (default fr,de: the two files the script
wrote before it read the others, byte for byte as they were), or `all` for the fifteen.
--extra: also read two more packages after the nine games (EXTRA): Naev's missions and bar
dialogue (gettext; German, Korean and a few Japanese lines) and GCompris' activity instructions
and feedback (Qt's compiled `.qm` catalogues: short, plain sentences written for children, in
every language of the teacher but Arabic, Japanese, Korean, Thai and simplified Chinese),
written to OUT_DIR/extra.en-XX.tsv beside the games' files, which stay byte for byte as they are
without --extra (a pair a game gave already is not written again).
--debs DIR: the packages are downloaded into DIR and a package whose .deb is already there is
not fetched again (default: a temporary folder, removed at the end).

Downloads the packages with `apt-get download` (about 1.4 GB, Debian's registry), reads the
catalogues of the languages asked out of them with `dpkg-deb` (gettext `.mo` and `.po` files,
the charset a header names honoured, the Lua translation tables of Fish Fillets and Hedgewars,
and with --extra GCompris' `.qm` files), and writes OUT_DIR/games.en-XX.tsv for each
(english<TAB>translation, the layout of gettext.en-*.tsv), each written to a temporary file and
renamed into place (a link is followed, a device or FIFO written in place).

Languages (`language`: lang_code of multilingual_catalogs.py): a catalogue's code with its
region merged: ar (ar, Warzone's ar_SA), es (es, Wesnoth's es_419, SuperTux's es_AR), ja (ja,
Warzone's ja_JP), pt (pt, pt_BR and Hedgewars' pt_PT: one Portuguese, as the teacher and
Tatoeba's `por` have), th (Pingus' th, SuperTux's th_TH), zh_CN and zh_TW apart; a bare zh
(Flare's), SuperTux's cmn, zh_HK and every code with a modifier (sr@latin) are left out, and
so are de_CH (46 of Fish Fillets' levels again in Swiss spelling) and fr_CA (one SuperTux level
set), which stand beside the de and fr catalogues of the same files: French and German are read
from the bare codes fr and de, as before.

A message counts when its English and its translation split into the same number of lines;
markup is dropped, fuzzy entries are left out, and so is a line pair (keep) whose English is of
one word or shorter than 2 characters, holds `$` or `{`, or equals its translation, or with a
`%` or a tab on either side. The translation is never counted in words or characters, so the
lines of Japanese, Chinese and Thai, written without spaces, are kept as those of the other
languages are. Pairs are deduplicated per language, in the order of SOURCES (within a package:
the catalogues in the order of their file names, then paths). Every pair with a side equal to a
sentence of the dev and test sets under BITEXT_DATA/dev (Tatoeba, newsdev, newstest-dev,
docalign) is left out. A catalogue that cannot be read is an error naming the file (and the line
of a `.po` file). The games are GPL-2, GPL-2+ or GPL-3+ (Flare's data also CC-BY-SA-3.0+): the
files stay out of the repository. Standard library only.

Measured (Debian 12 bookworm's packages as served in December 2026, --langs all): the download
1.4 GB (18 s), the reading and writing 110 s of one core and 260 MB of memory (the default
fr,de: 75 s), OUT_DIR 44 MB. Pairs per language, and the games that give them (wesnoth,
freedroidrpg, widelands, warzone2100, flare, supertux, pingus, fillets, hedgewars; - none):

    lang     pairs   wesn  fdrpg  widel  wz2100  flare  stux  ping  fill  hedge
    ar        3445    194      -    828    2406      -    17     -     -      -
    de       29975  10405   5544   5648    2840    913   302   369  1706   2248
    es       25561  10609   4497   4668    2667    912   585   146  1404     73
    fr       26592   9722   5535   5063    2804   1015   295   215  1404    539
    it       26100  10580   5517   3470    2842   1015   297   309  1409    661
    ja       14962  10602      -   3388       6    648   318     -     -      -
    ko       11823   3202      -   4896    2416   1023   286     -     -      -
    nl        9132    233      -   4370    2309      1   304   208  1707      -
    pl       19690   8165      -   3953    2512   1018   313    69  1436   2224
    pt       34790  17382   5545   4265    5193   1322   531   276     -    276
    ru       27523  10648   5550   5210    2858   1020   305    39  1680    213
    th           8      -      -      -       -      -     -     8     -      -
    tr       14380  10649      -    373    2866      -   281   144     -     67
    zh_CN    15491  10652      -   2000    2426      -   228   146     -     39
    zh_TW    12916  10492      -     82    1855     65   276   146     -      -

Thai is nearly absent from these games (Pingus' menu lines alone).

With --extra (the same packages and naev-data 0.8.2, gcompris-qt-data 3.1; 394 MB more to
download; reading all eleven 41 s on two cores, 67 s of CPU), the pairs of both files together:
de 38381 (naev 6071, gcompris 2335), es 28203 (gcompris 2642), fr 29250 (2658), it 28750 (2650),
ja 14996 (naev 34), ko 12516 (naev 693), nl 11754 (gcompris 2622), pl 22331 (2641), pt 39665
(4875: pt and pt_BR), ru 30240 (2717), tr 16442 (2062), zh_TW 15552 (2636); ar, th and zh_CN as
without (their extra.en-XX.tsv empty). The recipes read games.en-XX.tsv alone, the same with or
without --extra: the multilingual student with the extra files listed beside the games' (twice,
as the games are) was no better on Tatoeba in 90 minutes (docs/notes/evaluation-log.md, "One
student for every language, before the everyday text"), so recipes/multilingual-distill.json
does not read them.
"""
import argparse
import re
import struct
import subprocess
import sys
import tarfile
from pathlib import Path

from gettext_mo import debs_option, downloaded, held_out, read_mo, write
from multilingual_catalogs import LANGS, lang_code

# The languages written when --langs is not given: those the script wrote before it read the
# others (their files stay as they were).
DEFAULT_LANGS = ("fr", "de")
# Regional catalogues of French and German beside the bare code's catalogue of the same files
# (Fish Fillets' de_CH: 46 of its levels again in Swiss spelling; SuperTux's fr_CA: one level
# set): left out, so that games.en-de.tsv and games.en-fr.tsv stay those the recipes measured.
LEFT_OUT = frozenset({"de_CH", "fr_CA"})


def language(code):
    """The language of a catalogue's code (lang_code of multilingual_catalogs: pt_BR and pt_PT
    are pt, es_419 and es_AR es, ar_SA ar, ja_JP ja, th_TH th; zh_CN and zh_TW stay two), or
    None when it is left out (a modifier, zh_HK, a bare zh, English, another language, de_CH
    and fr_CA)."""
    return None if code in LEFT_OUT else lang_code(code)


def parse_langs(text):
    """The languages of --langs: `all` (the fifteen of the teacher) or codes separated by
    commas, in the order given, each once."""
    if text.strip() == "all":
        return list(LANGS)
    out = []
    for code in (c.strip() for c in text.split(",")):
        if code not in LANGS:
            raise argparse.ArgumentTypeError(
                f"unknown language {code!r}: one of {', '.join(LANGS)}, or all")
        if code not in out:
            out.append(code)
    return out


# In the order of their catalogues' names (wesnoth-1.16-ttb holds wesnoth-tb.mo): the order
# the pairs are written in.
WESNOTH = [f"wesnoth-1.16-{c}" for c in (
    "did dm dw ei httt l low nr sof sota sotbe ttb thot trow tsg utbs").split()]
# Each package with the catalogues read from it: a pattern of the path inside the package whose
# group `lang` is the catalogue's code (its language by `language`). The pairs of later sources
# that repeat an earlier pair are dropped, so a source added at the end leaves the pairs before
# it as they were.
# A catalogue's code: a language, a region or script, a modifier (fr, pt_BR, es_419, sr@latin).
CODE = r"(?P<lang>[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]+)?(?:@[A-Za-z]+)?)"


def mo(name):
    return rf"/locale/{CODE}/LC_MESSAGES/{name}$"


SOURCES = [("wesnoth", p, mo(r"wesnoth-[^/]*\.mo")) for p in WESNOTH] + [
    ("freedroidrpg", "freedroidrpg-data", mo(r"freedroidrpg-dialogs\.mo")),
    ("widelands", "widelands-data", mo(r"[^/]*\.mo")),
    # Warzone 2100's campaign briefings and messages; Flare's quest and NPC dialogue;
    # SuperTux's level texts and Pingus' level descriptions (.po catalogues, read as text).
    ("warzone2100", "warzone2100-data", mo(r"warzone2100\.mo")),
    ("flare", "flare-game", rf"/mods/[^/]+/languages/data\.{CODE}\.po$"),
    ("supertux", "supertux-data", rf"/supertux2/levels/.*/{CODE}\.po$"),
    ("pingus", "pingus-data", rf"/pingus/data/po/{CODE}\.po$"),
    # Fish Fillets' dialogue of the two fish, level by level, and Hedgewars' mission dialogue
    # (Lua tables of the English line and its translation).
    ("fillets", "fillets-ng-data", rf"/fillets-ng/script/[^/]+/dialogs_{CODE}\.lua$"),
    ("hedgewars", "hedgewars-data", rf"/hedgewars/Data/Locale/{CODE}\.lua$"),
]
# Read after SOURCES with --extra (so the files written without it stay as they were): Naev's
# missions and bar dialogue (a gettext catalogue, German and Korean) and GCompris' activity
# instructions and feedback (Qt's compiled `.qm` catalogues; short, plain sentences written for
# children, Dutch among them).
EXTRA = [
    ("naev", "naev-data", rf"/naev/dat/gettext/{CODE}/LC_MESSAGES/naev\.mo$"),
    ("gcompris", "gcompris-qt-data", rf"/gcompris-qt/translations/gcompris_{CODE}\.qm$"),
]
# The games of EXTRA, whose pairs go to extra.en-XX.tsv.
EXTRA_GAMES = {game for game, _, _ in EXTRA}
TAG = re.compile(r"<[^>]*>")


PO_LINE = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(.*)"$')
PO_CHARSET = re.compile(rb'^"Content-Type:[^"\n]*charset=([A-Za-z0-9_.:-]+)', re.M)
PO_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "a": "", "b": "",
              "f": "", "v": ""}


def po_string(text, name, number):
    """The value of a quoted .po string (its C escapes resolved)."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 == len(text) or text[i + 1] not in PO_ESCAPES:
                sys.exit(f"{name}: line {number}: unknown escape in {text!r}")
            out.append(PO_ESCAPES[text[i + 1]])
            i += 2
        elif c == '"':
            sys.exit(f"{name}: line {number}: unescaped quote in {text!r}")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_po(data, name):
    """(msgid, msgstr) of a .po catalogue: the singular forms; fuzzy and obsolete entries and
    contexts dropped; decoded in the charset its header names (UTF-8 when it names none, as
    SuperTux's misc/pt_BR.po names ISO-8859-1)."""
    hit = PO_CHARSET.search(data)
    charset = hit[1].decode("ascii") if hit and hit[1].upper() != b"CHARSET" else "UTF-8"
    try:
        text = data.decode(charset)
    except (LookupError, UnicodeDecodeError) as err:
        sys.exit(f"{name}: not {charset} ({err})")
    out, entry, key, fuzzy = [], {}, None, False

    def flush():
        if entry.get("msgid") and entry.get("msgstr") and not fuzzy:
            out.append((entry["msgid"], entry["msgstr"]))

    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            if "msgstr" in entry:  # the entry before ends at its first comment or blank line
                flush()
                entry, key, fuzzy = {}, None, False
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        if line.startswith('"'):
            if key is None or not line.endswith('"') or len(line) < 2:
                sys.exit(f"{name}: line {number}: a string outside a message: {line[:60]!r}")
            if key != "skip":
                entry[key] += po_string(line[1:-1], name, number)
            continue
        hit = PO_LINE.match(line)
        if not hit:
            sys.exit(f"{name}: line {number}: not a .po line: {line[:60]!r}")
        word, value = hit[1], po_string(hit[2], name, number)
        if word in ("msgctxt", "msgid") and "msgstr" in entry:
            flush()
            entry, fuzzy = {}, False
        key = {"msgstr[0]": "msgstr", "msgctxt": "skip", "msgid_plural": "skip"}.get(word, word)
        if word.startswith("msgstr[") and word != "msgstr[0]":
            key = "skip"
        if key != "skip":
            entry[key] = value
    if "msgstr" in entry:
        flush()
    return out


LUA_STRING = r'"((?:[^"\\\n]|\\.)*)"'
# Hedgewars: `["English"] = "translation",`; Fish Fillets: `dialogId("id", "font", "English")`
# followed by `dialogStr("translation")`.
LUA_PAIRS = [re.compile(r"^\s*\[" + LUA_STRING + r"\]\s*=\s*" + LUA_STRING, re.M),
             re.compile(r"^dialogId\(\s*" + LUA_STRING + r"\s*,\s*" + LUA_STRING + r"\s*,\s*"
                        + LUA_STRING + r"\s*\)\s*dialogStr\(\s*" + LUA_STRING + r"\s*\)", re.M)]
# `\/` is Lua 5.1's `/` (it keeps the character of an escape it does not know), as Fish
# Fillets' warcraft/dialogs_nl.lua writes `\/etc`.
LUA_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "/": "/"}


def lua_string(text, name):
    """The value of a Lua string literal's body (its escapes resolved)."""
    def one(hit):
        if hit[1] not in LUA_ESCAPES:
            sys.exit(f"{name}: unknown escape \\{hit[1]} in {text!r}")
        return LUA_ESCAPES[hit[1]]
    return re.sub(r"\\(.)", one, text)


def read_lua(data, name):
    """(English, translation) of a game's Lua translation table. Both patterns start at the
    beginning of a line, so a line commented out (`--`, as untranslated entries are) never
    matches."""
    try:
        text = data.decode("utf8")
    except UnicodeDecodeError as err:
        sys.exit(f"{name}: not UTF-8 ({err})")
    text = text.lstrip("\ufeff")
    out = [(hit[1], hit[2]) for hit in LUA_PAIRS[0].finditer(text)]
    out += [(hit[3], hit[4]) for hit in LUA_PAIRS[1].finditer(text)]
    return [(lua_string(a, name), lua_string(b, name)) for a, b in out]


QM_MAGIC = bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd")


def read_qm(data, name):
    """(source text, translation) of a compiled Qt catalogue (`.qm`, as lrelease writes it): the
    first translation of each message (the singular of a numerus message); a message without a
    source text or without a translation is left out. The file is sections (a tag byte, a
    big-endian 32-bit length); the messages' section (tag 0x69) is records of a tag byte and,
    but for the end of a message (1), a length and its bytes: translations in UTF-16 BE (3; the
    length 0xffffffff for none), source text, context and comment in UTF-8 (6, 7, 8)."""
    if data[:16] != QM_MAGIC:
        sys.exit(f"{name}: not a .qm catalogue")

    def length(at, what):
        if at + 4 > len(data):
            sys.exit(f"{name}: {what} at byte {at} runs past the end of the file")
        return struct.unpack(">I", data[at:at + 4])[0]

    out, at = [], 16
    while at < len(data):
        tag, size = data[at], length(at + 1, "a section")
        start, end = at + 5, at + 5 + size
        if end > len(data):
            sys.exit(f"{name}: the section at byte {at} runs past the end of the file")
        at = end
        if tag != 0x69:
            continue
        p, source, translations = start, None, []
        while p < end:
            kind = data[p]
            p += 1
            if kind == 1:
                if source and translations and translations[0]:
                    out.append((source, translations[0]))
                source, translations = None, []
                continue
            if kind not in (3, 6, 7, 8):
                sys.exit(f"{name}: unknown record {kind} at byte {p - 1}")
            n = length(p, f"record {kind}")
            p += 4
            if kind == 3 and n == 0xFFFFFFFF:
                translations.append("")
                continue
            if p + n > end:
                sys.exit(f"{name}: record {kind} at byte {p - 5} runs past its section")
            raw = data[p:p + n]
            p += n
            try:
                if kind == 3:
                    translations.append(raw.decode("utf-16-be"))
                elif kind == 6:
                    source = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                sys.exit(f"{name}: record {kind} at byte {p - n - 5}: {err}")
    return out


def lines(text):
    return [c for c in (re.sub(r"\s+", " ", TAG.sub("", x)).strip()
                        for x in re.split(r"\n\s*\n|\n", text)) if c]


#: The dev and test sets no pair may repeat a sentence of.
HELD_OUT = ("tatoeba/*", "newstest-dev*", "bucc-style/*.de", "bucc-style/*.en", "docalign/dev.??")

def keep(x, y):
    """Whether the pair of lines (English x, translation y) is kept. The filters read the
    English side, but for a tab and `%`, which neither side may hold: the translation is never
    counted in words or characters, so the lines of Japanese, Chinese and Thai, written without
    spaces, are kept as those of the other languages are."""
    return not (len(x) < 2 or x == y or "\t" in x + y or "$" in x or "{" in x
                or "%" in x + y or len(x.split()) < 2)


def catalogues(deb, package, pattern, langs):
    """(language, name, bytes) of the catalogues of `langs` in a package (its .deb read as a
    stream) whose paths match `pattern`, in the order of (language, file name, path); a name is
    PACKAGE:PATH."""
    found = []
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)],
                          stdout=subprocess.PIPE) as proc:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as t:
            for m in t:
                hit = m.isfile() and re.search(pattern, m.name)
                if hit and language(hit["lang"]) in langs:
                    found.append((language(hit["lang"]), m.name.split("/")[-1], m.name,
                                  t.extractfile(m).read()))
        proc.stdout.read()
    if proc.returncode:
        sys.exit(f"dpkg-deb --fsys-tarfile {deb} failed ({proc.returncode})")
    return [(lang, f"{package}:{path}", data)
            for lang, _, path, data in sorted(found, key=lambda c: c[:3])]


# A catalogue's reader by its file name's suffix (gettext's `.mo` else).
READERS = {".po": read_po, ".lua": read_lua, ".qm": read_qm}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", metavar="OUT_DIR", type=Path)
    ap.add_argument("--langs", metavar="CODES", type=parse_langs, default=list(DEFAULT_LANGS),
                    help="languages, separated by commas, or all (default: fr,de)")
    ap.add_argument("--extra", action="store_true",
                    help="also read Naev and GCompris, after the nine games")
    debs_option(ap)
    args = ap.parse_args()
    held = held_out(patterns=HELD_OUT)
    args.out.mkdir(parents=True, exist_ok=True)
    sources = SOURCES + (EXTRA if args.extra else [])
    with downloaded(sorted({p for _, p, _ in sources}), args.debs) as debs:
        def read():
            for game, package, pattern in sources:
                print(f"{debs[package].name}", file=sys.stderr)
                for lang, name, data in catalogues(debs[package], package, pattern,
                                                   args.langs):
                    yield game, lang, name, data
        found = gather(read(), args.langs, held)
    for lang, (files, dropped, games) in found.items():
        for stem, pairs in files.items():
            if stem == "extra" and not args.extra:
                continue
            path = args.out / f"{stem}.en-{lang}.tsv"
            write(path, "".join(pairs))
            counts = ", ".join(f"{g} {n}" for g, n in games.items()
                               if (g in EXTRA_GAMES) == (stem == "extra"))
            # The dev/test count is the language's, over both files; it stands on the first.
            both = " (both files)" if args.extra else ""
            left = f"{dropped[0]} left out as dev/test sentences{both}; " if stem == "games" else ""
            print(f"{path}: {len(pairs)} pairs ({left}{counts})")


def gather(catalogs, langs, held):
    """Per language of `langs`: ({"games": lines, "extra": lines}, [pairs left out as dev/test
    sentences], {game: pairs}) from `catalogs`, (game, language, name, bytes) in the order
    read. A pair of EXTRA's games goes to "extra" unless a game before gave it; pairs are
    deduplicated per language across both."""
    state = {lang: ({"games": [], "extra": []}, set(), [0], {}) for lang in langs}
    for game, lang, name, data in catalogs:
        files, seen, dropped, games = state[lang]
        to = files["extra" if game in EXTRA_GAMES else "games"]
        read = READERS.get(Path(name).suffix, read_mo)
        for mid, mstr in read(data, name):
            a, b = lines(mid), lines(mstr)
            if len(a) != len(b):
                continue
            for x, y in zip(a, b):
                if not keep(x, y):
                    continue
                if x in held or y in held:
                    dropped[0] += 1
                    continue
                if (x, y) not in seen:
                    seen.add((x, y))
                    to.append(f"{x}\t{y}\n")
                    games[game] = games.get(game, 0) + 1
    return {lang: (files, dropped, games) for lang, (files, _, dropped, games) in state.items()}


if __name__ == "__main__":
    main()
