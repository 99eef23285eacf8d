"""The readers of everyday_text.py (Ding's dictionary lines, fortune cookies) on text built here
(no packages, no network): `cargo xtask ci` runs them with the bindings' pytest suite."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import everyday_text as e  # noqa: E402

DING = """# Version :: 1.9
sich beeilen {vr} | Beeil dich!; Beweg dich!; Dalli, dalli! [ugs.] | Du brauchst dich nicht \
zu beeilen. :: to hurry up | Hurry up!; Get a move on! | There's no hurry.; Take your time!
sonst {adv} | Beeil dich, sonst kommst du zu spät. :: otherwise | Hurry up or else you'll \
be late.
ohnehin {adv} | Die Preise sind ohnehin/sowieso hoch genug. :: anyway | Prices are high \
enough as it is.
sich mit etw. beeilen | Mit etw. fertig werden. :: to hurry with sth. | To finish sth.
Ergebnis {n} | Die Ergebnisse liegen (noch) nicht vor. :: result | We have no results (yet).
Haus {n} | Häuser {pl} | Das Haus ist alt. :: house | houses
"""


def test_ding_pairs_sentences_by_position():
    pairs, uneven = e.ding_pairs(DING, "de-en")
    assert pairs == [
        ("Hurry up!", "Beeil dich!"),
        ("Get a move on!", "Beweg dich!"),
        ("Get a move on!", "Dalli, dalli!"),
        ("There's no hurry.", "Du brauchst dich nicht zu beeilen."),
        ("Hurry up or else you'll be late.", "Beeil dich, sonst kommst du zu spät."),
        ("We have no results.", "Die Ergebnisse liegen nicht vor."),
    ]
    # The last line has three German subentries and two English ones.
    assert uneven == 1


def test_ding_line_without_separator_is_an_error():
    with pytest.raises(SystemExit, match=r"de-en:2: no ' :: '"):
        e.ding_pairs("a :: b\nkaputt\n", "de-en")


@pytest.mark.parametrize("text, ok", [
    ("Beeil dich!", True),
    ("Hurry.", False),                     # one word
    ("beeil dich!", False),                # no capital
    ("Beeil dich", False),                 # no end
    ("Er hat/hatte Zeit.", False),         # a choice
    ("Gib jdm. etw. zurück.", False),      # placeholders
    ("Give sb. a hand.", False),
])
def test_is_sentence(text, ok):
    assert e.is_sentence(text) == ok


FORTUNES = """Man soll den Tag nicht vor dem Abend loben.
\t\t-- Sprichwort
%
- Kommst du heute?
- Ja, ich komme um acht. Warte nicht auf mich.
%
Wer nicht wagt, der nicht gewinnt. Wer
wagt, gewinnt oft auch nicht.

Ein zweiter Absatz mit vier Wörtern.
%
$ perl -e 'print 1+2;'
%
Zu kurz.
%
"""


def test_fortune_sentences():
    assert e.fortune_sentences(FORTUNES) == [
        "Man soll den Tag nicht vor dem Abend loben.",
        "Kommst du heute?",
        "Ja, ich komme um acht.",
        "Warte nicht auf mich.",
        "Wer nicht wagt, der nicht gewinnt.",
        "Wer wagt, gewinnt oft auch nicht.",
        "Ein zweiter Absatz mit vier Wörtern.",
    ]


@pytest.mark.parametrize("text, ok", [
    ("Drei Wörter hier.", True),
    ("Zwei Wörter.", False),
    (" ".join(["Wort"] * 31), False),
    ("x = 1 + 2 * 3;", False),
    ("Кто рано встаёт, тому Бог подаёт.", True),
])
def test_is_prose(text, ok):
    assert e.is_prose(text) == ok


def test_unique_drops_repeats_and_held_sentences():
    held = {"Beeil dich!"}
    items = [("Hurry up!", "Beeil dich!"), ("Go.", "Geh."), ("Go.", "Geh."), "Beeil dich!", "x"]
    assert e.unique(items, held) == ([("Go.", "Geh."), "x"], 2)


def test_decode_names_the_file():
    with pytest.raises(SystemExit, match="pkg:/a/b: not UTF-8"):
        e.decode(b"\xd1x", "pkg:/a/b")
