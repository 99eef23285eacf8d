"""The catalogue readers of game_dialogue.py on catalogues built here (no packages, no network):
`cargo xtask ci` runs them with the bindings' pytest suite."""
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

-- dialogId("x", "font_small", "A line left out")
-- dialogStr("Une ligne omise")
'''
    assert g.read_lua(text.encode(), "fr.lua") == [
        ("Get that crate!", "Prends cette caisse"),
        ('Say "hi"', 'Dis "salut"'),
        ("Hi, crab!", "Salut, le crabe!"),
    ]


def test_lua_errors_name_the_file():
    with pytest.raises(SystemExit, match=r"fr.lua: unknown escape \\q"):
        g.read_lua(b'["a b"] = "c\\q"', "fr.lua")
    with pytest.raises(SystemExit, match="fr.lua: not UTF-8"):
        g.read_lua(b"\xff", "fr.lua")


def test_lines_drop_markup_and_split_paragraphs():
    assert g.lines("<b>Hello</b>  there.\n\nSecond   line") == ["Hello there.", "Second line"]


def test_sources_name_the_language_of_every_pattern():
    for _, _, pattern in g.SOURCES:
        assert "(?P<lang>" in pattern
