#!/usr/bin/env python3
"""English-French and English-German pairs from the translation catalogues of free games in
Debian: the Wesnoth campaigns' story dialogue, FreedroidRPG's dialogues, Widelands' scenarios
and help, Warzone 2100's campaign and messages, Flare's quests, SuperTux's and Pingus' levels,
and the dialogue of Fish Fillets and Hedgewars' missions. Everyday spoken register ("Come back
and talk to me when ...", "I should have ..."), which the software catalogues of
../shared/data/train lack; the students read them beside those (docs/EVALUATION.md, "Students
distilled from the pretrained encoder"; the trial that adopted them: docs/notes/evaluation-log.md,
"Game dialogue").

    python3 recipes/data/game_dialogue.py OUT_DIR     (BITEXT_DATA: ../shared/data)

Downloads the packages with `apt-get download` (about 1.4 GB, Debian's registry), reads the
French and German catalogues out of them with `dpkg-deb` (gettext `.mo` and `.po` files, and
the Lua translation tables of Fish Fillets and Hedgewars), and writes OUT_DIR/games.en-fr.tsv
and OUT_DIR/games.en-de.tsv (english<TAB>translation, the layout of gettext.en-*.tsv), each
written to a temporary file and renamed into place (a link is followed, a device or FIFO
written in place). A message counts when its English and its translation split into the same
number of lines; markup is dropped, fuzzy entries and lines
with a placeholder (`%`, `$`, `{`), a tab or of one word are left out, and so is every pair
with a side equal to a sentence of the dev and test sets under BITEXT_DATA/dev (Tatoeba,
newsdev, newstest-dev, docalign). A catalogue that cannot be read is an error naming the file
(and the line of a `.po` file). The games are GPL-2, GPL-2+ or GPL-3+ (Flare's data also
CC-BY-SA-3.0+): the files stay out of the repository. Standard library only.
"""
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from gettext_mo import download, held_out, read_mo

# In the order of their catalogues' names (wesnoth-1.16-ttb holds wesnoth-tb.mo): the order
# the pairs are written in.
WESNOTH = [f"wesnoth-1.16-{c}" for c in (
    "did dm dw ei httt l low nr sof sota sotbe ttb thot trow tsg utbs").split()]
# Each package with the catalogues read from it: a pattern of the path inside the package whose
# group `lang` is the language. The pairs of later sources that repeat an earlier pair are
# dropped, so a source added at the end leaves the pairs before it as they were.
def mo(name):
    return rf"/locale/(?P<lang>fr|de)/LC_MESSAGES/{name}$"


SOURCES = [("wesnoth", p, mo(r"wesnoth-[^/]*\.mo")) for p in WESNOTH] + [
    ("freedroidrpg", "freedroidrpg-data", mo(r"freedroidrpg-dialogs\.mo")),
    ("widelands", "widelands-data", mo(r"[^/]*\.mo")),
    # Warzone 2100's campaign briefings and messages; Flare's quest and NPC dialogue;
    # SuperTux's level texts and Pingus' level descriptions (.po catalogues, read as text).
    ("warzone2100", "warzone2100-data", mo(r"warzone2100\.mo")),
    ("flare", "flare-game", r"/mods/[^/]+/languages/data\.(?P<lang>fr|de)\.po$"),
    ("supertux", "supertux-data", r"/supertux2/levels/.*/(?P<lang>fr|de)\.po$"),
    ("pingus", "pingus-data", r"/pingus/data/po/(?P<lang>fr|de)\.po$"),
    # Fish Fillets' dialogue of the two fish, level by level, and Hedgewars' mission dialogue
    # (Lua tables of the English line and its translation).
    ("fillets", "fillets-ng-data", r"/fillets-ng/script/[^/]+/dialogs_(?P<lang>fr|de)\.lua$"),
    ("hedgewars", "hedgewars-data", r"/hedgewars/Data/Locale/(?P<lang>fr|de)\.lua$"),
]
TAG = re.compile(r"<[^>]*>")


PO_LINE = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(.*)"$')
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
    contexts dropped."""
    try:
        text = data.decode("utf8")
    except UnicodeDecodeError as err:
        sys.exit(f"{name}: not UTF-8 ({err})")
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
LUA_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


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


def lines(text):
    return [c for c in (re.sub(r"\s+", " ", TAG.sub("", x)).strip()
                        for x in re.split(r"\n\s*\n|\n", text)) if c]


#: The dev and test sets no pair may repeat a sentence of.
HELD_OUT = ("tatoeba/*", "newstest-dev*", "bucc-style/*.de", "bucc-style/*.en", "docalign/dev.??")

def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    held = held_out(os.environ.get("BITEXT_DATA", "../shared/data"), HELD_OUT)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        debs = download(sorted({p for _, p, _ in SOURCES}), tmp)
        catalogues = {"fr": [], "de": []}
        for _, package, pattern in SOURCES:
            print(f"{debs[package].name}", file=sys.stderr)
            tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(debs[package])],
                                 check=True, capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(tar)) as t:
                found = []
                for m in t.getmembers():
                    hit = m.isfile() and re.search(pattern, m.name)
                    if hit:
                        found.append((hit["lang"], m.name.split("/")[-1], m))
                for lang, name, m in sorted(found, key=lambda x: (x[0], x[1], x[2].name)):
                    catalogues[lang].append((f"{package}:{m.name}", t.extractfile(m).read()))
        for lang, cats in catalogues.items():
            pairs, seen, dropped = [], set(), 0
            for name, data in cats:
                read = {".po": read_po, ".lua": read_lua}.get(Path(name).suffix, read_mo)
                for mid, mstr in read(data, name):
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
            # As bitext writes: a link is followed (the link stays) and its target replaced
            # through a rename; a device or FIFO is written in place.
            target = path.resolve()
            if target.exists() and not target.is_file():
                target.write_text("".join(pairs), encoding="utf8")
            else:
                part = target.with_suffix(".tsv.part")
                part.write_text("".join(pairs), encoding="utf8")
                part.replace(target)
            print(f"{path}: {len(pairs)} pairs ({dropped} left out as dev/test sentences)")


if __name__ == "__main__":
    main()
