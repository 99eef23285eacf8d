"""The catalogue readers, the filters, the language codes and the held-out dev pairs of
multilingual_catalogs.py on catalogues built here (no packages, no network): `cargo xtask ci`
runs them with the bindings' pytest suite."""
import io
import sys
import tarfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import multilingual_catalogs as m  # noqa: E402
from gettext_mo import write_mo as mo  # noqa: E402


@pytest.mark.parametrize("code, lang", [
    ("ar", "ar"), ("ar_SA", "ar"), ("de", "de"), ("de_CH", "de"), ("es_MX", "es"),
    ("fr_CA", "fr"), ("ja_JP", "ja"), ("ko", "ko"), ("nl_BE", "nl"), ("pl", "pl"),
    ("pt", "pt"), ("pt_BR", "pt"), ("pt_PT", "pt"), ("ru_UA", "ru"), ("th", "th"), ("tr", "tr"),
    ("zh_CN", "zh_CN"), ("zh_TW", "zh_TW"), ("zh-CN", "zh_CN"), ("zh_TW.UTF-8", "zh_TW"),
    ("it_IT.UTF-8", "it"),
    # English, modifiers, Hong Kong's Chinese, a bare zh and languages the teacher lacks.
    ("en", None), ("en_GB", None), ("en@quot", None), ("de@hebrew", None), ("zh_HK", None),
    ("zh", None), ("sr@latin", None), ("uk", None), ("ary", None), ("cmn", None),
])
def test_language_codes(code, lang):
    assert m.lang_code(code) == lang


def tar_of(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return buf


def test_catalogues_of_the_teachers_languages_in_a_package_tar():
    tar = tar_of([("./usr/share/locale/pt_BR/LC_MESSAGES/app.mo", b"mo 1"),
                  ("./usr/share/locale/uk/LC_MESSAGES/app.mo", b"not a teacher's language"),
                  ("./usr/lib/libreoffice/program/resource/zh_TW/LC_MESSAGES/sw.mo", b"mo 2"),
                  ("./usr/share/locale/en_GB/LC_MESSAGES/app.mo", b"English"),
                  ("./usr/share/locale/de/LC_TIME/app.mo", b"not a catalogue"),
                  ("./usr/share/locale/ko/LC_MESSAGES/app.po", b"not compiled")])
    assert m.catalogues(tar, "p") == [
        ("zh_TW", "p:/usr/lib/libreoffice/program/resource/zh_TW/LC_MESSAGES/sw.mo", b"mo 2"),
        ("pt", "p:/usr/share/locale/pt_BR/LC_MESSAGES/app.mo", b"mo 1"),
    ]


@pytest.mark.parametrize("line, clean", [
    ("_Open File", "Open File"),
    ("Save _As…", "Save As…"),
    ("&Quit the program", "Quit the program"),
    ("~Insert Table", "Insert Table"),
    ("ファイルを開く(_O)", "ファイルを開く"),
    ("파일 열기(&O)", "파일 열기"),
    ("打开文件（_O）", "打开文件"),
    ("<b>Bold</b> and <a href=\"x\">linked</a>  text", "Bold and linked text"),
    ("Tom &amp; Jerry", "Tom & Jerry"),
    ("It&#39;s gone", "It's gone"),
    ("&amp;Edit the list", "Edit the list"),
    ("Rock && Roll", "Rock && Roll"),          # && is the character itself
    ("file__name", "file__name"),
    ("a_b and c_d", "a_b and c_d"),            # two marks: both stay, for usable to reject
])
def test_clean_drops_markup_and_strips_accelerators(line, clean):
    assert m.clean(line) == clean


@pytest.mark.parametrize("line, ok", [
    ("Open the file", True),
    ("ファイルを開けません", True),
    ("Datei %s nicht gefunden", False),
    ("Kan {name} niet openen", False),
    ("Variable $HOME nicht gesetzt", False),
    ("Open a_b and c_d", False),
    ("Press ~ key", False),
    ("See https://example.org now", False),
    ("1 2 3 4 5 -- 6", False),
])
def test_usable(line, ok):
    assert m.usable(line) is ok


def test_english_side_has_two_latin_words():
    assert m.english_ok("Open File")
    assert not m.english_ok("Open")
    assert not m.english_ok("Открыть файл")
    assert m.english_ok("Open", min_words=1)


ENGLISH_OTHERWISE = "Cancel the download"


def test_read_catalogue_pairs_lines_and_filters():
    messages = [
        ("Open the file\nthen close it", "Öffne die Datei\nund schließe sie"),  # two lines
        ("One line only", "Eine Zeile\nzwei Zeilen hier jetzt"),  # counts differ
        ("_Save the file", "Datei _speichern"),
        ("Open", "Öffnen"),                                         # one word
        ("Copy %s files", "%s Dateien kopieren"),                  # placeholder
        ("Show the window", "Show the window"),                    # untranslated
        ("Hide the window", ENGLISH_OTHERWISE),                    # another English line
        ("Your names", "Erika Mustermann, Max Mustermann"),        # credits
        ("translator-credits", "Erika Mustermann"),
    ]
    english = {m.fold(x) for mid, _ in messages for x in m.lines(mid)} | {
        m.fold(ENGLISH_OTHERWISE)}
    pairs, alone = m.read_catalogue(messages, english)
    assert pairs == [("Open the file", "Öffne die Datei"), ("then close it", "und schließe sie"),
                     ("Save the file", "Datei speichern")]
    # The lines alone: the pairs' translations and the sentences of unpaired messages.
    assert alone == ["Öffne die Datei", "und schließe sie", "zwei Zeilen hier jetzt",
                     "Datei speichern"]


def test_unspaced_scripts_need_no_words_in_pairs_but_characters_alone():
    messages = [("Open the file", "ファイルを開く"), ("Close the window now", "ปิดหน้าต่าง")]
    pairs, alone = m.read_catalogue(messages, set())
    assert pairs == [("Open the file", "ファイルを開く"), ("Close the window now", "ปิดหน้าต่าง")]
    assert alone == ["ファイルを開く", "ปิดหน้าต่าง"]
    messages = [("Open", "開く"), ("a\nb", "ファイルを開けません\nปิดหน้าต่าง")]
    assert m.read_catalogue(messages, set()) == ([], ["ファイルを開けません"])


def catalogue(pairs):
    return m.read_mo(mo([(b"", b"Content-Type: text/plain; charset=UTF-8\n")] +
                        [(a.encode(), b.encode()) for a, b in pairs]), "t.mo")


def sample_read():
    """(package, language, name, messages) of three packages, as read_packages gives."""
    return [
        ("app", "ko", "app:ko", catalogue([("Open the file", "파일 열기"),
                                           ("Close the window", "창 닫기"),
                                           ("A held out sentence", "보류된 문장"),
                                           ("Print the page", "페이지 인쇄")])),
        ("app", "de", "app:de", catalogue([("Open the file", "Datei öffnen"),
                                           ("Close the window", "Fenster schließen"),
                                           ("Print the page", "Seite drucken")])),
        ("devapp", "ko", "devapp:ko", catalogue([("Print the page", "페이지를 인쇄"),
                                                 ("Quit the game", "게임 종료"),
                                                 ("Start a new game", "새 게임 시작")])),
        ("devapp", "de", "devapp:de", catalogue([("Quit the game", "Spiel beenden")])),
        ("gimp-data", "fr", "gimp-data:fr", catalogue([("Open the file", "Ouvrir le fichier")])),
        ("gimp-data", "pt", "gimp-data:pt", catalogue([("Open the file", "Abrir o ficheiro")])),
    ]


def test_dev_package_sentences_are_never_in_train_or_mono():
    held = {m.fold("A held out sentence")}
    files = m.build(sample_read(), held, {"devapp"})
    assert files["dev/catalogs.en-ko.tsv"] == ["Print the page\t페이지를 인쇄",
                                               "Quit the game\t게임 종료",
                                               "Start a new game\t새 게임 시작"]
    assert "dev/catalogs.en-de.tsv" not in files  # German has Tatoeba
    # "Print the page" is dev's: its pairs leave every language's train.
    assert files["train/catalogs.en-ko.tsv"] == ["Open the file\t파일 열기",
                                                 "Close the window\t창 닫기"]
    assert files["train/catalogs.en-de.tsv"] == ["Open the file\tDatei öffnen",
                                                 "Close the window\tFenster schließen"]
    assert files["mono/catalogs.en.txt"] == ["Open the file", "Close the window"]
    # Nor do the translations of the pairs left out (of a held or a dev English).
    assert files["mono/catalogs.ko.txt"] == ["파일 열기", "창 닫기"]
    dev = {s for line in files["dev/catalogs.en-ko.tsv"] for s in line.split("\t")}
    for path, rows in files.items():
        if not path.startswith("dev/"):
            assert not dev & {s for r in rows for s in r.split("\t")}, path
    # The shared bitext's packages give no German or French.
    assert "train/catalogs.en-fr.tsv" not in files
    assert files["train/catalogs.en-pt.tsv"] == ["Open the file\tAbrir o ficheiro"]


def test_held_out_sentences_are_left_out_case_and_spacing_aside():
    held = {m.fold("open  THE file"), m.fold("Seite drucken")}
    files = m.build(sample_read(), held, set())
    text = "\n".join("\n".join(rows) for rows in files.values())
    assert "Open the file" not in text and "Seite drucken" not in text
    assert "Print the page\tpage" not in text
    assert files["train/catalogs.en-ko.tsv"][0] == "Close the window\t창 닫기"


def test_dev_draw_is_seeded_and_sized():
    read = [("devapp", "tr", "devapp:tr",
             catalogue([(f"Open file number {i}", f"Dosya numarası {i} aç") for i in range(50)]))]
    a = m.build(read, set(), {"devapp"}, dev_size=10, seed="0")["dev/catalogs.en-tr.tsv"]
    assert len(a) == 10 and a == m.build(read, set(), {"devapp"}, dev_size=10,
                                         seed="0")["dev/catalogs.en-tr.tsv"]
    assert a != m.build(read, set(), {"devapp"}, dev_size=10, seed="1")["dev/catalogs.en-tr.tsv"]
    order = [f"Open file number {i}\tDosya numarası {i} aç" for i in range(50)]
    assert a == [x for x in order if x in a]  # in the order read


def test_dev_packages_drawn_from_the_pool():
    assert m.dev_packages(m.DEV_POOL, 3, "0") == m.dev_packages(m.DEV_POOL, 3, "0")
    assert len(m.dev_packages(m.DEV_POOL, 3, "0")) == 3
    assert set(m.dev_packages(m.DEV_POOL, 3, "0")) <= set(m.DEV_POOL)
    assert m.dev_packages(["a"], 3, "0") == ["a"]


def test_max_per_lang_keeps_the_order():
    read = [("app", "it", "app:it",
             catalogue([(f"Open file number {i}", f"Apri il file numero {i}") for i in range(30)]))]
    rows = m.build(read, set(), set(), max_per_lang=5)["train/catalogs.en-it.tsv"]
    assert len(rows) == 5 and rows == sorted(rows, key=lambda r: int(r.split()[3]))


def test_output_is_deterministic_and_written_in_place(tmp_path):
    a = m.build(sample_read(), set(), {"devapp"})
    assert a == m.build(sample_read(), set(), {"devapp"})
    assert m.counts(a)["ko"] == {"train": 3, "mono": 3, "dev": 3}
    for path, rows in a.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        m.write(tmp_path / path, "".join(r + "\n" for r in rows))
    assert (tmp_path / "train/catalogs.en-ko.tsv").read_text() == (
        "Open the file\t파일 열기\nClose the window\t창 닫기\n"
        "A held out sentence\t보류된 문장\n")
    assert not list(tmp_path.rglob("*.part"))


def test_packages_are_named_once_and_the_pools_are_among_them():
    assert m.PACKAGES == sorted(set(m.PACKAGES)) and len(m.PACKAGES) >= 100
    assert set(m.DEV_POOL) <= set(m.PACKAGES) and m.SHARED_BITEXT <= set(m.PACKAGES)
    assert set(m.DEV_LANGS) <= set(m.LANGS)
    assert not any(p.endswith("-") or p.startswith("-") for p in m.PACKAGES)
