#!/usr/bin/env python3
"""English pairs and monolingual sentences in every language of the teacher, Universal Sentence
Encoder Multilingual (USE-M: ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh_CN,
zh_TW), from the translation catalogues of Debian's packages: desktop applications (GNOME,
MATE, Xfce, Cinnamon, KDE and its frameworks, LibreOffice's interface), office, media,
science and system tools, games, and the help texts inside them (tooltips, descriptions of
options and settings, error messages). For the students of issue 75, which learn the teacher's
vectors in all its languages.

    python3 recipes/data/multilingual_catalogs.py OUT_DIR [--debs DIR] [--dev-packages 3]
        [--dev-size 1000] [--seed 0] [--max-per-lang M] [--min-words 2]
                                                            (BITEXT_DATA: ../shared/data)

Downloads the 153 packages of PACKAGES with `apt-get download` (Debian 12 bookworm, 601 MB,
Debian's registry; with --debs DIR into DIR, and a package whose .deb is already there is not
fetched again), reads every gettext catalogue `*/CODE/LC_MESSAGES/*.mo` of the languages below
out of them with `dpkg-deb --fsys-tarfile` (the charset of the catalogue's header honoured;
fuzzy entries are not in a compiled catalogue; no package of the list ships its translations
as `.po` only), and writes, under OUT_DIR:

    train/catalogs.en-XX.tsv   english<TAB>translation (the layout of gettext.en-*.tsv)
    mono/catalogs.XX.txt       the language's sentences alone, one a line (en among them)
    dev/catalogs.en-XX.tsv     held-out pairs of the languages without a Tatoeba dev set

Languages (lang_code): a catalogue's code less its `.charset`, its region merged: ar (ar,
ar_SA), de (de, de_DE, de_CH), es (es and its regions, es_AR ... es_VE), fr (fr, fr_FR,
fr_CA), it, ja (ja, ja_JP), ko (ko, ko_KR), nl (nl, nl_BE, nl_NL), pl, pt (pt, pt_PT and pt_BR
merged: the teacher and Tatoeba's `por` have one Portuguese), ru (ru, ru_UA), th, tr; Chinese
stays two: zh_CN (simplified) and zh_TW (traditional). zh_HK (traditional, Hong Kong usage), a
bare zh, every code with a modifier (de@hebrew, sr@latin, en@quot) and the English catalogues
(en_GB, en_AU, ...) are left out, and so is every other language.

Pairs. A message (msgid, the English; msgstr, the translation; contexts dropped, plurals read
in their singular form) is split at its line breaks and counts only when both sides have as
many lines; line i pairs with line i. Each line is cleaned (clean): markup tags dropped
(`<b>`, `<p>`, `<a href="..">`), entities (`&amp;`, `&#39;`) resolved, the accelerator
stripped, not the line dropped (`_File`, `&File` of Qt and KDE, LibreOffice's `~File`, and the
`(_F)`, `(&F)` that Chinese, Japanese and Korean append), whitespace collapsed. A pair is kept
when both sides are usable (no placeholder or code left: `%`, `$`, `{`, `}`, `<`, `>`, `=`,
`\\`, `_`, `&`, `@`, `|`, `~`, a tab, a URL, a command-line option, a path; letters at least
60% of the characters), its English has at least --min-words words (default 2: one-word lines
go; the translation is not counted in words, Chinese, Japanese and Thai being written without
spaces) and Latin letters only, its translation is not English (equal neither to its own English
nor to any English line of the catalogues read, case and spacing aside), and the message is not
the translators' credits (`translator-credits`, KDE's `Your names`). Pairs are deduplicated per
language, in the order read (packages in the order of their names, catalogues in the order of
their paths).

Sentences alone. mono/catalogs.XX.txt holds the translations of the language's train pairs
and also the translated lines whose English could not be paired (line counts that differ, an
English line with a placeholder) when they read as sentences by lid_catalogs.is_sentence
(three words, or 6 characters of Chinese or Japanese, 12 of Thai; no placeholder or markup)
and are not English; mono/catalogs.en.txt holds every English line of the catalogues read
(those of the languages above) that a pair would accept. Deduplicated, in the order read.

Held out. Every sentence of the dev and test sets under BITEXT_DATA/dev (the last tab field of
each line of every file there: Tatoeba's eight languages and their English, newstest-dev,
newsdev, docalign; case and spacing aside) is left out of every file. The dev pairs are held out
by package: for the languages with no Tatoeba dev set (DEV_LANGS: ar, ko, pl, th, tr, zh_CN,
zh_TW), --dev-packages packages are drawn from DEV_POOL (seeded by --seed: packages of middle
size with a few hundred pairs in each of the seven), and what they hold goes to dev alone, in
every language: they give no train pair and no sentence alone to any language. Of each dev
language's pairs from them, --dev-size are drawn (seeded by --seed and the language, from the
distinct pairs sorted; all when fewer) and written in the order read. Then every train pair
with a side equal to a side of any dev pair, and every sentence alone equal to one, is left
out, whatever its language (an English line common to GNOME's applications is dev's, not
train's), and so is, from the sentences alone, the translation of every pair left out for
a held or a dev sentence. --max-per-lang M keeps, of a language with more than M train pairs (or sentences
alone), M drawn by the seed, in the order read. The same packages and options give the same
bytes.

Beside ../shared/data/train/gettext.en-{de,fr}.tsv, whose README names postgres, git, gnupg,
coreutils, LibreOffice, GIMP, Inkscape, GnuCash, Freeciv and Wesnoth: the German and French
catalogues of the packages of SHARED_BITEXT (coreutils, freeciv-data, gimp-data, git,
gnucash-common, gnupg-l10n, inkscape) are left out, and LibreOffice's German and French
packages are not in the list; their other languages are read. GNOME, KDE, Xfce and MATE
repeat strings of GTK and of each other, so some German and French pairs may be in
gettext.en-*.tsv all the same (its list of packages ends with an ellipsis). game_dialogue.py
reads warzone2100-data's French and German catalogue too: its pairs may be in both.

Each file is written to a temporary file and renamed into place (a link is followed, a device
or FIFO written in place). A catalogue that cannot be read is an error naming the package and
the file. Licences (each package's /usr/share/doc/PKG/copyright, the licence of its `Files: *`
or of its program): GPL-2+ most of them (GNOME's and MATE's applications, KDE's applications,
Xfce, VLC, Blender, Gramps, KStars, Warzone 2100, Pidgin, FileZilla, apt, dpkg, util-linux,
e2fsprogs (GPL-2), gnumeric (GPL-2 or GPL-3), git (GPL-2), meld, synaptic, gparted);
GPL-3+ (aisleriot, bleachbit, brasero, claws-mail, coreutils, darktable, epiphany, GNOME's
games, gnome-builder, gnome-terminal, gnome-text-editor, gnupg, grub, mc, nautilus,
simple-scan, skrooge (GPL-2 or 3), gcc); LGPL-2+ or LGPL-2.1+ (GLib, GTK 2, 3 and 4,
evolution and evolution-data-server, gvfs, glibc's libc-l10n, KDE Frameworks' libkf5-*-data,
kio, caja, mate-desktop, libxfce4ui, orca, shotwell, minetest, gnome-boxes); MPL-2.0 (the
libreoffice-l10n-* packages); BSD-3-clause (aegisub-l10n, fontforge), BSD-2-clause (debconf);
audacity (CC-BY-3.0 or GPL-2+), krita (GPL and LGPL), gimp (GPL-3+, GPL-2+, LGPL-3+). None of
it may enter the repository's MIT/Apache code: the files stay out of it, as ../shared/data's
do. Standard library only.

Measured (Debian 12 bookworm's packages as served in December 2026, the defaults, seed 0):
the download 601 MB (25 s), the reading and writing 190 s and 2.4 GB of
memory, OUT_DIR 269 MB; dev packages bleachbit, gparted-common, thunar-data (ar and th have
fewer than 1000 dev pairs there: all are written). pt counts pt and pt_BR. 4,922 of the
German pairs (4.4%) and 4,713 of the French (3.4%) are in gettext.en-{de,fr}.tsv too.

    lang     train    mono   dev
    ar       80962   78828   952
    de      112978  109974     0
    en           0  189428     0
    es      177894  173958     0
    fr      137809  135767     0
    it      145787  142115     0
    ja      133828  135183     0
    ko      121053  116684  1000
    nl      131225  127876     0
    pl      142978  139690  1000
    pt      245797  241399     0
    ru      158694  153255     0
    th       41008   40731   926
    tr      125184  123984  1000
    zh_CN   159029  152811  1000
    zh_TW   125360  122336  1000
"""
import argparse
import functools
import html
import random
import re
import subprocess
import sys
import tarfile
import unicodedata
from pathlib import Path

from gettext_mo import debs_option, downloaded, held_out, read_mo
from lid_catalogs import UNWANTED, fold, is_sentence, write

# The teacher's languages as this script names them, English (the pivot) aside.
LANGS = ("ar", "de", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr",
         "zh_CN", "zh_TW")
# Languages with no shared Tatoeba dev set under BITEXT_DATA/dev/tatoeba: their dev pairs come
# from the packages held out.
DEV_LANGS = ("ar", "ko", "pl", "th", "tr", "zh_CN", "zh_TW")

# Every package whose catalogues are read (Debian 12 bookworm; 153 packages, 601 MB): GNOME,
# MATE, Xfce, Cinnamon and KDE applications and libraries, LibreOffice's interface (not its
# German and French), office, media, science and system tools, and games.
PACKAGES = sorted("""
    aegisub-l10n aisleriot akregator apt aptitude-common ark atril-common audacity-data baobab
    bleachbit blender-data brasero-common caja-common catfish cheese-common cinnamon-l10n
    claws-mail-i18n coreutils darktable debconf-i18n deluge-common digikam-data dolphin dpkg
    e2fsprogs-l10n engrampa-common eom-common epiphany-browser-data evince-common
    evolution-common evolution-data-server-common file-roller filezilla-common fontforge-common
    freeciv-data gcc-12-locales gdm3 geany-common gedit-common gimp-data git gnome-boxes
    gnome-builder gnome-calendar gnome-chess gnome-contacts gnome-control-center-data
    gnome-disk-utility gnome-mahjongg gnome-maps gnome-mines gnome-music gnome-nibbles
    gnome-robots gnome-shell-common gnome-software-common gnome-sudoku gnome-system-monitor
    gnome-terminal-data gnome-text-editor gnome-weather gnucash-common gnumeric-common
    gnupg-l10n gparted-common gramps grub-common gthumb-data gutenprint-locales gvfs-common
    gwenview hexchat-common inkscape k3b-i18n kdenlive-data kdevelop-l10n kile-l10n kio kmail
    konqueror korganizer krita-l10n kstars-data libc-l10n libglib2.0-data libgtk-3-common
    libgtk-4-common libgtk2.0-common libkf5configwidgets-data libkf5kdelibs4support-data
    libkf5khtml-data libkf5newstuff-data libreoffice-l10n-ar libreoffice-l10n-es
    libreoffice-l10n-it libreoffice-l10n-ja libreoffice-l10n-ko libreoffice-l10n-nl
    libreoffice-l10n-pl libreoffice-l10n-pt libreoffice-l10n-pt-br libreoffice-l10n-ru
    libreoffice-l10n-th libreoffice-l10n-tr libreoffice-l10n-zh-cn libreoffice-l10n-zh-tw
    libxfce4ui-common marco-common mate-control-center-common mate-desktop-common
    mate-panel-common mate-power-manager-common mate-settings-daemon-common
    mate-terminal-common mate-utils-common mc-data meld minetest-data mousepad nautilus-data
    network-manager-gnome okular orca parole pidgin-data plasma-desktop-data pluma-common
    polari quadrapassel rhythmbox-data ristretto seahorse shotwell-common simple-scan
    skrooge-common synaptic system-config-printer-common systemsettings thunar-data
    totem-common util-linux-locales vlc-l10n warzone2100-data xfce4-notifyd xfce4-panel
    xfce4-power-manager-data xfce4-session xfce4-settings xfce4-terminal xfce4-weather-plugin
    xfdesktop4-data xfwm4 zim
""".split())
# Packages of ../shared/data/train/gettext.en-{de,fr}.tsv: their German and French catalogues
# are left out here (their other languages are read).
SHARED_BITEXT = frozenset("""
    coreutils freeciv-data gimp-data git gnucash-common gnupg-l10n inkscape
""".split())
# Packages of middle size with a few hundred pairs in each of DEV_LANGS, none a fork of another
# package of the list (as pluma is gedit's, caja nautilus'): the dev packages are drawn from
# them.
DEV_POOL = sorted("""
    bleachbit brasero-common gparted-common rhythmbox-data seahorse synaptic
    system-config-printer-common thunar-data
""".split())

CATALOGUE = re.compile(r"/(?P<code>[^/]+)/LC_MESSAGES/[^/]+\.mo$")
TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>")
ENTITY = re.compile(r"&(?:[A-Za-z]+|#[0-9]+|#[xX][0-9A-Fa-f]+);")
# The accelerator that Chinese, Japanese and Korean translations append: `文件(_F)`, `(&F)`.
CJK_ACCELERATOR = re.compile(r"\s*[(（]\s*[_&~][^\s)）]\s*[)）]")
# Messages whose translation names the translators.
CREDITS = {"translator-credits", "translator_credits", "translator credits", "your names",
           "your emails", "name of translators", "email of translators",
           "roles of translators", "credit for translators"}


def lang_code(code):
    """The language of a catalogue's code as this script names it, or None when it is left out
    (English, a modifier, zh_HK, a language the teacher lacks)."""
    code = code.split(".")[0].replace("-", "_")
    if "@" in code:
        return None
    base, _, region = code.partition("_")
    if base == "zh":
        return code if region in ("CN", "TW") else None
    return base if base in LANGS else None


def catalogues(tar_stream, package):
    """(language, name, .mo bytes) of the catalogues of the teacher's languages in a package's
    file-system tar (read as a stream), in the order of their paths."""
    found = []
    with tarfile.open(fileobj=tar_stream, mode="r|") as t:
        for m in t:
            hit = m.isfile() and CATALOGUE.search(m.name)
            if hit and lang_code(hit["code"]):
                found.append((lang_code(hit["code"]), f"{package}:{m.name.lstrip('.')}",
                              t.extractfile(m).read()))
    return sorted(found, key=lambda c: c[1])


def strip_accelerators(line):
    """The line without its keyboard accelerator: `_File`, `&File` (Qt, KDE), `~File`
    (LibreOffice), `文件(_F)`. A mark is stripped only when it occurs once before a letter or a
    digit (`__` and `&&` stand for the character itself); where there are two, both stay, for
    `usable` to reject the line."""
    line = CJK_ACCELERATOR.sub("", line)
    for mark in "_&~":
        if mark not in line:
            continue
        at = [i for i in range(len(line) - 1)
              if line[i] == mark and line[i + 1].isalnum() and (i == 0 or line[i - 1] != mark)]
        if len(at) == 1:
            line = line[:at[0]] + line[at[0] + 1:]
    return line


def clean(line):
    """A line with its markup dropped, its entities resolved, its accelerator stripped and its
    whitespace collapsed."""
    line = TAG.sub("", line)
    line = ENTITY.sub(lambda m: html.unescape(m[0]), line)
    return " ".join(strip_accelerators(line).split())


@functools.lru_cache(maxsize=1 << 20)
def lines(text):
    """The cleaned, non-empty lines of a message (blank lines between paragraphs dropped)."""
    return tuple(c for c in (clean(x) for x in text.split("\n")) if c)


@functools.lru_cache(maxsize=1 << 20)
def usable(line):
    """Whether a cleaned line holds words and no placeholder, markup or code."""
    if not line or "~" in line or UNWANTED.search(line):
        return False
    chars = [c for c in line if not c.isspace()]
    letters = sum(unicodedata.category(c)[0] in "LM" for c in chars)
    return letters > 0 and letters >= 0.6 * len(chars)


def latin(line):
    """Whether every letter of a line is Latin (ASCII to Latin Extended-B)."""
    return all(ord(c) < 0x250 for c in line if c.isalpha())


@functools.lru_cache(maxsize=1 << 20)
def english_ok(line, min_words=2):
    """Whether a cleaned line can be the English side of a pair."""
    return usable(line) and latin(line) and len(line.split()) >= min_words


def credits(msgid):
    return fold(msgid) in CREDITS or "translator" in msgid.casefold()


def read_catalogue(messages, english, min_words=2):
    """(pairs, sentences) of a catalogue's (msgid, msgstr): the (English, translation) line
    pairs kept, and the translated lines that stand alone as sentences (the translations of the
    pairs among them). `english` holds the folded English lines of every catalogue read."""
    pairs, alone = [], []
    for mid, mstr in messages:
        if credits(mid):
            continue
        a, b = lines(mid), lines(mstr)
        paired = set()
        if len(a) == len(b):
            for x, y in zip(a, b):
                if (english_ok(x, min_words) and usable(y) and fold(y) != fold(x)
                        and fold(y) not in english):
                    pairs.append((x, y))
                    paired.add(y)
        for y in b:
            if y in paired or (is_sentence(y) and "~" not in y and fold(y) not in english):
                alone.append(y)
    return pairs, alone


def english_lines(messages, min_words=2):
    """The English lines of a catalogue that a pair would accept."""
    return [x for mid, _ in messages if not credits(mid)
            for x in lines(mid) if english_ok(x, min_words)]


def unique(items):
    seen, out = set(), []
    for i in items:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def cap(items, n, seed):
    """At most n of the items, drawn by the seed, in their order (all when n is 0)."""
    if not n or len(items) <= n:
        return items
    keep = set(random.Random(seed).sample(range(len(items)), n))
    return [x for i, x in enumerate(items) if i in keep]


def dev_packages(pool, n, seed):
    """The n packages of `pool` held out for dev, drawn by the seed, sorted."""
    return sorted(random.Random(f"{seed}:dev").sample(sorted(pool), min(n, len(pool))))


def build(read, held, dev_pkgs, dev_size=1000, seed="0", max_per_lang=0, min_words=2):
    """{path under OUT_DIR: lines} of the catalogues read. `read` holds (package, language,
    name, messages) in the order read, `held` the folded sentences of the dev and test sets,
    `dev_pkgs` the packages held out for dev."""
    read = [r for r in read if not (r[0] in SHARED_BITEXT and r[1] in ("de", "fr"))]
    english = {fold(x) for _, _, _, messages in read for mid, _ in messages
               for x in lines(mid)}
    train, mono, dev, dropped = {}, {"en": []}, {}, {}
    for package, lang, _, messages in read:
        pairs, alone = read_catalogue(messages, english, min_words)
        dropped.setdefault(lang, set()).update(
            fold(y) for x, y in pairs if fold(x) in held or fold(y) in held)
        pairs = [(x, y) for x, y in pairs if fold(x) not in held and fold(y) not in held]
        if package in dev_pkgs:
            if lang in DEV_LANGS:
                dev.setdefault(lang, []).extend(pairs)
            continue
        train.setdefault(lang, []).extend(pairs)
        mono.setdefault(lang, []).extend(y for y in alone if fold(y) not in held)
        mono["en"].extend(x for x in english_lines(messages, min_words) if fold(x) not in held)
    for lang in list(dev):
        pairs = unique(dev[lang])
        chosen = set(random.Random(f"{seed}:{lang}").sample(sorted(pairs),
                                                            min(dev_size, len(pairs))))
        dev[lang] = [p for p in pairs if p in chosen]
    in_dev = {fold(s) for pairs in dev.values() for p in pairs for s in p}
    out = {}
    for lang in sorted(train):
        pairs = []
        for x, y in unique(train[lang]):
            if fold(x) in in_dev or fold(y) in in_dev:
                dropped[lang].add(fold(y))
            else:
                pairs.append((x, y))
        out[f"train/catalogs.en-{lang}.tsv"] = [
            f"{x}\t{y}" for x, y in cap(pairs, max_per_lang, f"{seed}:{lang}")]
    for lang in sorted(mono):
        sentences = [s for s in unique(mono[lang])
                     if fold(s) not in in_dev and fold(s) not in dropped.get(lang, ())]
        out[f"mono/catalogs.{lang}.txt"] = cap(sentences, max_per_lang, f"{seed}:{lang}")
    for lang in sorted(dev):
        out[f"dev/catalogs.en-{lang}.tsv"] = [f"{x}\t{y}" for x, y in dev[lang]]
    return out


def read_packages(debs, packages):
    """(package, language, name, messages) of every catalogue of the packages, in the order of
    the packages' names and the catalogues' paths."""
    read = []
    for package in sorted(packages):
        deb = debs[package]
        print(deb.name, file=sys.stderr)
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            found = catalogues(proc.stdout, package)
        except tarfile.TarError as err:
            proc.kill()
            found = err
        finally:
            proc.stdout.close()
        why = proc.stderr.read().decode(errors="replace").strip()
        if proc.wait() != 0:
            sys.exit(f"{deb}: dpkg-deb failed: {why}")
        if isinstance(found, tarfile.TarError):
            sys.exit(f"{deb}: not a package's file-system tar ({found})")
        for lang, name, data in found:
            read.append((package, lang, name, read_mo(data, name)))
    return read


def counts(files):
    """{language: {"train"|"mono"|"dev": lines}} of the files `build` returns."""
    out = {}
    for path, rows in files.items():
        kind, name = path.split("/")
        lang = name.split(".")[1].removeprefix("en-")
        out.setdefault(lang, {})[kind] = len(rows)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", metavar="OUT_DIR")
    debs_option(p)
    p.add_argument("--dev-packages", type=int, default=3,
                   help="packages of DEV_POOL held out for dev (default 3)")
    p.add_argument("--dev-size", type=int, default=1000,
                   help="dev pairs a language, at most (default 1000)")
    p.add_argument("--seed", default="0", help="seed of the draws (default 0)")
    p.add_argument("--max-per-lang", type=int, default=0,
                   help="train pairs and sentences alone a language, at most (default: all)")
    p.add_argument("--min-words", type=int, default=2,
                   help="fewest words of a pair's English (default 2)")
    a = p.parse_args()
    held = {fold(s) for s in held_out()}
    dev_pkgs = dev_packages(DEV_POOL, a.dev_packages, a.seed)
    out = Path(a.out)
    with downloaded(PACKAGES, a.debs) as debs:
        read = read_packages(debs, PACKAGES)
    files = build(read, held, set(dev_pkgs), a.dev_size, a.seed, a.max_per_lang, a.min_words)
    for sub in ("train", "mono", "dev"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for path, rows in files.items():
        write(out / path, "".join(r + "\n" for r in rows))
    print(f"dev packages: {' '.join(dev_pkgs)}", file=sys.stderr)
    print("lang     train    mono   dev")
    for lang, c in sorted(counts(files).items()):
        print(f"{lang:<6} {c.get('train', 0):>7} {c.get('mono', 0):>7} {c.get('dev', 0):>5}")


if __name__ == "__main__":
    main()
