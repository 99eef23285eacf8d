"""The catalogue readers of game_dialogue.py on catalogues built here (no packages, no network):
`cargo xtask ci` runs them with the bindings' pytest suite."""
import argparse
import re
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import game_dialogue as g  # noqa: E402
from gettext_mo import write_mo as mo  # noqa: E402


@pytest.mark.parametrize("big_endian", [False, True])
def test_mo_singular_forms_without_contexts(big_endian):
    data = mo([(b"", b"Content-Type: text/plain\n"),
               (b"menu\x04Open the door", "Ouvre la porte".encode()),
               (b"One apple\x00Many apples", "Une pomme\x00Des pommes".encode()),
               (b"Untranslated", b"")], big_endian)
    assert g.read_mo(data, "t.mo") == [("Open the door", "Ouvre la porte"),
                                       ("One apple", "Une pomme")]


@pytest.mark.parametrize("data, why", [
    (b"\x00" * 8, "too short"),
    (b"\x01" * 40, "not a .mo catalogue"),
    (mo([(b"a b", b"c d")])[:-6], "points past the end"),
    (mo([(b"a b", b"\xff\xfe")]), "cannot be read as utf-8"),
])
def test_mo_errors_name_the_file(data, why):
    with pytest.raises(SystemExit, match=f"t.mo: .*{why}"):
        g.read_mo(data, "t.mo")


PO = r'''# a header
msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\n"

#: a.txt:1
msgid "Hello there"
msgstr "Bonjour"

#, fuzzy
msgid "A fuzzy one"
msgstr "Flou"

msgctxt "menu"
msgid "Open the door"
msgstr ""
"Ouvre "
"la porte"
#~ msgid "Obsolete"
#~ msgstr "Obsolète"
msgid "One apple"
msgid_plural "Many apples"
msgstr[0] "Une pomme"
msgstr[1] "Des pommes"
msgid "Say \"hi\"\nnow"
msgstr "Dis \"salut\"\nmaintenant"
msgid "Not translated yet"
msgstr ""
'''


def test_po_entries_fuzzy_obsolete_and_plural_forms():
    assert g.read_po(("\ufeff" + PO).encode(), "t.po") == [
        ("Hello there", "Bonjour"),
        ("Open the door", "Ouvre la porte"),
        ("One apple", "Une pomme"),
        ('Say "hi"\nnow', 'Dis "salut"\nmaintenant'),
    ]


def test_po_fuzzy_flag_belongs_to_the_entry_after_it():
    text = 'msgid "First line"\nmsgstr "Première"\n#, fuzzy\nmsgid "Second"\nmsgstr "Deux"\n'
    assert g.read_po(text.encode(), "t.po") == [("First line", "Première")]


@pytest.mark.parametrize("text, why", [
    ('msgid "x"\nmsgstr "y\\q"\n', r"line 2: unknown escape"),
    ('msgid "x"\nfoo\n', r"line 2: not a \.po line"),
    ('"stray"\n', r"line 1: a string outside a message"),
    ('msgid "x"\nmsgstr "a"b"\n', r"line 2: unescaped quote"),
])
def test_po_errors_name_the_file_and_line(text, why):
    with pytest.raises(SystemExit, match=f"t.po: {why}"):
        g.read_po(text.encode(), "t.po")


def test_po_that_is_not_utf8():
    with pytest.raises(SystemExit, match="t.po: not UTF-8"):
        g.read_po(b'msgid "\xff"\n', "t.po")


def test_lua_tables_of_both_games():
    text = '''locale = {
--      ["Untranslated line"] = "",
      ["Get that crate!"] = "Prends cette caisse",
      ["Say \\"hi\\""] = "Dis \\"salut\\"", -- Mission
}

dialogId("re-m-ahoj", "font_small", "Hi, crab!")
dialogStr("Salut, le crabe!")

dialogId("war-v", "font_big", "We meet in \\/etc.")
dialogStr("On se voit dans \\/etc.")

-- dialogId("x", "font_small", "A line left out")
-- dialogStr("Une ligne omise")
'''
    assert g.read_lua(text.encode(), "fr.lua") == [
        ("Get that crate!", "Prends cette caisse"),
        ('Say "hi"', 'Dis "salut"'),
        ("Hi, crab!", "Salut, le crabe!"),
        ("We meet in /etc.", "On se voit dans /etc."),
    ]


def test_lua_errors_name_the_file():
    with pytest.raises(SystemExit, match=r"fr.lua: unknown escape \\q"):
        g.read_lua(b'["a b"] = "c\\q"', "fr.lua")
    with pytest.raises(SystemExit, match="fr.lua: not UTF-8"):
        g.read_lua(b"\xff", "fr.lua")


def test_lines_drop_markup_and_split_paragraphs():
    assert g.lines("<b>Hello</b>  there.\n\nSecond   line") == ["Hello there.", "Second line"]


def test_sources_name_the_language_of_every_pattern():
    for _, _, pattern in g.SOURCES + g.EXTRA:
        assert "(?P<lang>" in pattern


@pytest.mark.parametrize("code, lang", [
    ("fr", "fr"), ("de", "de"), ("de_DE", "de"), ("es_ES", "es"), ("es_419", "es"),
    ("es_AR", "es"), ("pt", "pt"), ("pt_BR", "pt"), ("pt_PT", "pt"), ("ar_SA", "ar"),
    ("ja_JP", "ja"), ("th_TH", "th"), ("tr_TR", "tr"), ("zh_CN", "zh_CN"), ("zh_TW", "zh_TW"),
    ("zh_HK", None), ("zh", None), ("cmn", None), ("sr@latin", None), ("ca_ES@valencia", None),
    ("ang@latin", None), ("en", None), ("en_GB", None), ("uk", None), ("stub", None),
    # Beside the bare de and fr catalogues of the same files: left out (the default outputs
    # stay as they were).
    ("de_CH", None), ("fr_CA", None),
])
def test_catalogue_codes_map_to_the_teachers_languages(code, lang):
    assert g.language(code) == lang


@pytest.mark.parametrize("path, code", [
    ("./usr/share/games/wesnoth/1.16/locale/pt_BR/LC_MESSAGES/wesnoth-did.mo", "pt_BR"),
    ("./usr/share/games/wesnoth/1.16/locale/sr@latin/LC_MESSAGES/wesnoth-did.mo", "sr@latin"),
    ("./usr/share/games/widelands/data/locale/ja/LC_MESSAGES/map_along_the_river.wmf.mo", "ja"),
    ("./usr/share/games/flare/mods/fantasycore/languages/data.ja.po", "ja"),
    ("./usr/share/games/supertux2/levels/world1/es_AR.po", "es_AR"),
    ("./usr/share/games/pingus/data/po/zh_CN.po", "zh_CN"),
    ("./usr/share/games/fillets-ng/script/airplane/dialogs_ru.lua", "ru"),
    ("./usr/share/games/fillets-ng/script/airplane/dialogs_de_CH.lua", "de_CH"),
    ("./usr/share/games/hedgewars/Data/Locale/pt_BR.lua", "pt_BR"),
    ("./usr/share/games/hedgewars/Data/Locale/ko.lua", "ko"),
    ("./usr/share/games/hedgewars/Data/Locale/missions_ja.txt", None),
])
def test_sources_accept_the_codes_of_every_language(path, code):
    """Each game's pattern reads the catalogues of all the languages, not French and German
    alone (the code is then mapped by `language`)."""
    codes = {hit["lang"] for _, _, pattern in g.SOURCES for hit in [re.search(pattern, path)]
             if hit}
    assert codes == ({code} if code else set())


def test_langs_default_list_and_all():
    assert g.DEFAULT_LANGS == ("fr", "de")
    assert g.parse_langs("fr,de") == ["fr", "de"]
    assert g.parse_langs(" ja , zh_TW,ja") == ["ja", "zh_TW"]
    assert g.parse_langs("all") == ["ar", "de", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt",
                                    "ru", "th", "tr", "zh_CN", "zh_TW"]
    for bad in ("pt_BR", "en", "zh", "fr,,de", "FR"):
        with pytest.raises(argparse.ArgumentTypeError, match="unknown language"):
            g.parse_langs(bad)


@pytest.mark.parametrize("x, y, kept", [
    ("Come back and talk to me.", "また話しに来てね。", True),       # no space in Japanese
    ("Where are you going?", "你要去哪里？", True),
    ("I should have known.", "ฉันน่าจะรู้", True),
    ("Hello", "こんにちは", False),                                # one English word
    ("You have %d gold.", "金貨%d枚を持っている。", False),          # a placeholder
    ("Take it, friend.", "Take it, friend.", False),                 # untranslated
])
def test_word_filters_read_the_english_side(x, y, kept):
    assert g.keep(x, y) is kept


def test_a_japanese_catalogue_through_the_filters():
    data = mo([("Come back and talk to me when you are ready.\n\nGood luck".encode(),
                "準備ができたら、また話しに来てね。\n\n幸運を祈る".encode()),
               (b"Yes", "はい".encode())])
    pairs = [(x, y) for mid, mstr in g.read_mo(data, "ja.mo")
             for x, y in zip(g.lines(mid), g.lines(mstr)) if g.keep(x, y)]
    assert pairs == [("Come back and talk to me when you are ready.",
                      "準備ができたら、また話しに来てね。"), ("Good luck", "幸運を祈る")]


def test_po_in_the_charset_its_header_names():
    text = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=ISO-8859-1\\n"\n\n'
            'msgid "Where is the bridge?"\nmsgstr "Onde está a ponte?"\n')
    assert g.read_po(text.encode("latin-1"), "pt_BR.po") == [
        ("Where is the bridge?", "Onde está a ponte?")]
    with pytest.raises(SystemExit, match="t.po: not NO-SUCH-CHARSET"):
        g.read_po(text.replace("ISO-8859-1", "NO-SUCH-CHARSET").encode("latin-1"), "t.po")


@pytest.mark.parametrize("path, game, code", [
    ("./usr/share/naev/dat/gettext/de/LC_MESSAGES/naev.mo", "naev", "de"),
    ("./usr/share/gcompris-qt/translations/gcompris_pt_BR.qm", "gcompris", "pt_BR"),
    ("./usr/share/gcompris-qt/translations/gcompris_ca@valencia.qm", "gcompris", "ca@valencia"),
    ("./usr/share/gcompris-qt/voices-ogg/nl/alphabet/U0061.ogg", None, None),
])
def test_extra_sources_only_with_the_flag(path, game, code):
    """--extra's games are read after the nine and never by SOURCES' patterns, so the files
    written without it stay as they were."""
    assert not any(re.search(pattern, path) for _, _, pattern in g.SOURCES)
    hits = [(name, hit["lang"]) for name, _, pattern in g.EXTRA
            for hit in [re.search(pattern, path)] if hit]
    assert hits == ([(game, code)] if game else [])


def qm(messages, sections=((0x42, b"\x00" * 8),)):
    """A .qm catalogue: `messages` are lists of (record kind, value), a str value encoded as
    the kind asks (UTF-16 BE for a translation, UTF-8 else), None a null translation; the
    `sections` before the messages' are written as given."""
    def record(kind, value):
        if value is None:
            return bytes([kind]) + b"\xff" * 4
        raw = value.encode("utf-16-be" if kind == 3 else "utf-8") if isinstance(value, str) \
            else value
        return bytes([kind]) + struct.pack(">I", len(raw)) + raw
    body = b"".join(b"".join(record(k, v) for k, v in m) + b"\x01" for m in messages)
    out = g.QM_MAGIC
    for tag, data in list(sections) + [(0x69, body)]:
        out += bytes([tag]) + struct.pack(">I", len(data)) + data
    return out


def test_qm_first_translation_of_each_message_with_a_source():
    data = qm([
        [(3, "Klik op de rode ballon."), (6, "Click on the red balloon."), (7, "Balloon")],
        [(3, "Eén appel"), (3, "%n appels"), (6, "One apple"), (8, "numerus")],
        [(3, None), (6, "Not translated yet")],
        [(3, "Zonder bron")],
        [(6, "Well done!"), (3, "Goed gedaan!")],
    ])
    assert g.read_qm(data, "nl.qm") == [("Click on the red balloon.", "Klik op de rode ballon."),
                                         ("One apple", "Eén appel"),
                                         ("Well done!", "Goed gedaan!")]


@pytest.mark.parametrize("data, why", [
    (b"\x00" * 32, "not a .qm catalogue"),
    (qm([[(3, "a"), (6, "b c")]])[:-3], "runs past the end of the file"),
    (qm([[(4, b"xx")]]), "unknown record 4"),
    (qm([[(3, b"\x00a\x00"), (6, "b c")]]), "record 3 at byte"),
    (qm([[(6, b"\xff\xfe"), (3, "b")]]), "record 6 at byte"),
])
def test_qm_errors_name_the_file(data, why):
    with pytest.raises(SystemExit, match=f"t.qm: .*{why}"):
        g.read_qm(data, "t.qm")


def test_gather_puts_the_extra_games_pairs_in_their_own_file():
    """The nine games' pairs go to games.en-XX.tsv as before, --extra's to extra.en-XX.tsv; a
    pair a game before gave, or a dev/test sentence, is not written again."""
    early = mo([(b"Open the door now", "Ouvre la porte".encode()),
                (b"Go to the castle", "Va au château".encode())])
    late = qm([[(3, "Ouvre la porte"), (6, "Open the door now")],
               [(3, "Compte les pommes"), (6, "Count the apples")],
               [(3, "Trouve le chat"), (6, "Find the cat")]])
    found = g.gather([("wesnoth", "fr", "wesnoth:fr.mo", early),
                      ("gcompris", "fr", "gcompris:gcompris_fr.qm", late),
                      ("naev", "de", "naev:de.mo", mo([(b"Hello there pilot", b"Hallo")]))],
                     ["fr", "de", "nl"], held={"Find the cat"})
    files, dropped, games = found["fr"]
    assert files == {"games": ["Open the door now\tOuvre la porte\n",
                               "Go to the castle\tVa au château\n"],
                     "extra": ["Count the apples\tCompte les pommes\n"]}
    assert dropped == [1] and games == {"wesnoth": 2, "gcompris": 1}
    assert found["de"][0] == {"games": [], "extra": ["Hello there pilot\tHallo\n"]}
    assert found["nl"] == ({"games": [], "extra": []}, [0], {})
