"""The catalogue reader, the sentence filter, the language codes and the draw of
lid_catalogs.py on catalogues built here (no packages, no network): `cargo xtask ci` runs them
with the bindings' pytest suite."""
import io
import os
import sys
import tarfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lid_catalogs as c  # noqa: E402
from gettext_mo import write_mo as mo  # noqa: E402


@pytest.mark.parametrize("big_endian", [False, True])
def test_mo_singular_forms_without_contexts(big_endian):
    data = mo([(b"", b"Content-Type: text/plain; charset=UTF-8\n"),
               (b"menu\x04Open the door", "Öffne die Tür".encode()),
               (b"One apple\x00Many apples", "Ein Apfel\x00Viele Äpfel".encode()),
               (b"Untranslated", b"")], big_endian)
    assert c.read_mo(data, "t.mo") == [("Open the door", "Öffne die Tür"),
                                       ("One apple", "Ein Apfel")]


def test_mo_in_the_charset_of_its_header():
    data = mo([(b"", b"Content-Type: text/plain; charset=ISO-8859-1\n"),
               (b"The file is gone", "Le fichier a disparu à jamais".encode("latin-1"))])
    assert c.read_mo(data, "t.mo") == [("The file is gone", "Le fichier a disparu à jamais")]
    # msginit's placeholder `charset=CHARSET` reads as UTF-8.
    data = mo([(b"", b"Content-Type: text/plain; charset=CHARSET\n"),
               (b"Gone", "Parti à jamais".encode())])
    assert c.read_mo(data, "t.mo") == [("Gone", "Parti à jamais")]


@pytest.mark.parametrize("data, why", [
    (b"\x00" * 8, "too short"),
    (b"\x01" * 40, "not a .mo catalogue"),
    (mo([(b"a b", b"c d")])[:-6], "points past the end"),
    (mo([(b"a b", b"c d")])[:36], "tables of 1 messages point past the end"),
    (mo([(b"a b", b"\xff\xfe")]), "cannot be read as utf-8"),
    (mo([(b"", b"charset=NO-SUCH-CHARSET\n"), (b"a", b"b")]), "cannot be read as NO-SUCH"),
])
def test_mo_errors_name_the_file(data, why):
    with pytest.raises(SystemExit, match=f"t.mo: .*{why}"):
        c.read_mo(data, "t.mo")


def test_catalogues_in_a_package_tar():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, data in [("./usr/share/locale/pt_BR/LC_MESSAGES/grep.mo", b"mo 1"),
                           ("./usr/share/locale/de/LC_MESSAGES/grep.mo", b"mo 2"),
                           ("./usr/share/locale/de/LC_TIME/grep.mo", b"not a catalogue"),
                           ("./usr/share/doc/grep/README", b"nor this")]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        d = tarfile.TarInfo("./usr/share/locale/fr/LC_MESSAGES/dir.mo")
        d.type = tarfile.DIRTYPE
        t.addfile(d)
    assert c.catalogues(buf.getvalue(), "grep") == [
        ("de", "grep:/usr/share/locale/de/LC_MESSAGES/grep.mo", b"mo 2"),
        ("pt_BR", "grep:/usr/share/locale/pt_BR/LC_MESSAGES/grep.mo", b"mo 1"),
    ]


@pytest.mark.parametrize("code, lang", [
    ("de", "de"), ("pt_BR", "pt"), ("pt", "pt"), ("zh_CN", "zh"), ("zh_TW", "zh"),
    ("zh_HK", "zh"), ("sr", "sr"), ("sr@latin", "sr"), ("sr@Latn", "sr"), ("sr@ije", "sr"),
    ("nb", "no"), ("nb_NO", "no"), ("nn", "nn"), ("ca@valencia", "ca"), ("be@latin", "be"),
    ("uz@cyrillic", "uz"), ("az", "az"), ("az_IR", "azb"), ("ru_UA", "ru"), ("bn_IN", "bn"),
    ("iw", "he"), ("in", "id"), ("ji", "yi"), ("fil", "tl"), ("kmr", "ku"), ("gsw", "als"),
    ("de_DE.UTF-8", "de"), ("ast", "ast"), ("nds", "nds"), ("ckb", "ckb"),
    # English and its transformed spellings, and languages lid.176 lacks.
    ("en", None), ("en_GB", None), ("en@quot", None), ("en@boldquot", None), ("en@shaw", None),
    ("de@hebrew", None), ("ab", None), ("crh", None), ("dz", None), ("rw", None), ("xh", None),
])
def test_lid_codes(code, lang):
    assert c.lid_code(code) == lang


def test_every_label_is_lid176s():
    assert len(c.LID176) == 176
    assert set(c.RENAMED.values()) <= c.LID176


@pytest.mark.parametrize("line, ok", [
    ("Die Datei kann nicht gelesen werden.", True),
    ("Не удалось открыть файл", True),
    ("ファイルを開けません", True),
    ("默认图标主题名称", True),
    ("不正です", False),                       # four characters of Japanese
    ("พร็อกซี HTTP ต้องการยืนยันตัวบุคคล", True),
    ("กุมภาพันธ์", False),                     # one Thai word, ten characters
    ("Zwei Wörter", False),                    # two words
    ("Datei %s nicht gefunden", False),
    ("Fichier « %1$s » introuvable", False),
    ("Kan {name} niet openen", False),
    ("Variable $HOME nicht gesetzt", False),
    ("<b>Fett</b> gedruckter Text hier", False),
    ("_Datei öffnen und speichern", False),
    ("Suchen & Ersetzen im Text", False),
    ("Berichte an bug@example.org senden", False),
    ("Siehe https://example.org für mehr", False),
    ("  -a, --all   alle Einträge anzeigen", False),
    ("Die Datei /etc/passwd fehlt", False),
    ("cbs=BYTES konvertiert BYTES Bytes", False),
    ("1 2 3 4 5 6 -- 7", False),               # mostly digits and punctuation
    ("und/oder beides zugleich", True),
    ("Ein Bindestrich-Wort - und mehr", True),
])
def test_sentences_without_placeholders_or_markup(line, ok):
    assert c.is_sentence(line) is ok


def test_min_words():
    assert c.is_sentence("Zwei Wörter", min_words=2)
    assert not c.is_sentence("Drei kleine Wörter", min_words=4)


def test_lines_split_and_collapse_whitespace():
    assert c.lines("  Erste   Zeile\n\n\tzweite\tZeile \n") == ["Erste Zeile", "zweite Zeile"]


def test_sentences_leave_out_english_and_held_out_lines():
    messages = [
        ("Open the file\nthen close it", "Öffne die Datei\nthen close it"),  # copied line
        ("Cannot read the file", "CANNOT  read the file"),                    # case, spacing
        ("Something else entirely", "Cannot read the file"),                  # another English
        ("A held out one", "Ein Satz aus Tatoeba hier"),
        ("Remove the lock", "Entferne die Sperre jetzt"),
    ]
    english = {c.fold(x) for mid, _ in messages for x in c.lines(mid)}
    held = {"Ein Satz aus Tatoeba hier"}
    assert c.sentences(messages, english, held) == ["Öffne die Datei",
                                                    "Entferne die Sperre jetzt"]


def test_draw_is_seeded_and_leaves_out_shared_and_small_languages():
    pools = {"de": [f"Satz Nummer {i} hier" for i in range(50)] + ["Das gilt für beide"] * 3,
             "nl": [f"Zin nummer {i} hier" for i in range(20)] + ["Das gilt für beide"],
             "fr": ["Une seule phrase ici"]}
    a = c.draw(pools, 10, 5, "0")
    assert a == c.draw({k: list(reversed(v)) for k, v in pools.items()}, 10, 5, "0")
    assert sorted(a) == ["de", "nl"]
    assert [len(v) for v in a.values()] == [10, 10]
    assert len(set(a["de"])) == 10 and set(a["de"]) <= set(pools["de"])
    assert all("Das gilt für beide" not in v for v in a.values())
    assert c.draw(pools, 10, 5, "1") != a
    assert len(c.draw(pools, 100, 5, "0")["nl"]) == 20
    assert "nl" not in c.draw(pools, 10, 21, "0")


def test_held_out_reads_the_last_field_of_every_dev_file(tmp_path):
    dev = tmp_path / "dev" / "tatoeba"
    dev.mkdir(parents=True)
    (dev / "tatoeba.deu-eng.deu").write_text("Ich bin hier.\n\n", encoding="utf8")
    (tmp_path / "dev" / "x.de").write_text("de-1\tEin Satz.\n", encoding="utf8")
    assert c.held_out(tmp_path) == {"Ich bin hier.", "Ein Satz."}
    with pytest.raises(SystemExit, match="no dev or test sets"):
        c.held_out(tmp_path / "nowhere")


def test_write_renames_into_place_and_follows_links(tmp_path):
    target = tmp_path / "real.tsv"
    target.write_text("old\n")
    link = tmp_path / "lid-dev.tsv"
    link.symlink_to(target)
    c.write(link, "de\tNeu hier drin\n")
    assert link.is_symlink() and target.read_text() == "de\tNeu hier drin\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lid-dev.tsv", "real.tsv"]
    c.write("/dev/null", "written in place\n")  # a device is not replaced


def test_write_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    new = tmp_path / "new.tsv"
    c.write(new, "x\n")
    assert new.stat().st_mode & 0o077 == 0o666 & ~current_umask() & 0o077
    new.chmod(0o640)
    c.write(new, "y\n")
    assert new.stat().st_mode & 0o777 == 0o640 and new.read_text() == "y\n"


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_packages_are_named_once():
    assert c.PACKAGES == sorted(set(c.PACKAGES)) and len(c.PACKAGES) >= 10
