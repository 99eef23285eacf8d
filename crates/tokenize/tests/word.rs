//! Hand-worked examples of the word tokenizer: Moses-tokenized German and English with HTML
//! entities, raw text, numbers, hyphens, apostrophes, periods, mixed scripts.

use bitext_tokenize::{WordConfig, WordTokenizer};

fn check(t: &WordTokenizer, text: &str, want: &[&str]) {
    assert_eq!(t.tokenize(text), want, "tokenizing {text:?}");
}

#[test]
fn moses_tokenized_text_gives_its_space_separated_tokens() {
    let t = WordTokenizer::default();
    let lines = [
        "Der Hund , sagte er .",
        "Das BIP Deutschlands wuchs um 0,5 Prozent , das von Frankreich um 0,4 .",
        "Ich soll Miranda Kerr \" anziehen \" , die Sie aus der Kampagne kennen .",
        "Parliament 's legislative prerogative should be made null and void .",
        "it ' s own terrace , full bathroom , telephone and heating .",
        "Mr. Englund and Mrs. Sofia met J. Watson in the U.S. on 17. November .",
        "z. B. 1.000.000 Euro , d. h. ca. 80 Prozent , Nr. 51 usw. vollgepackter",
        "Haupt- und Nebeneingang , Fußball-EM , -5 Grad ... -- l' homme qu' il",
        "I don 't know , we 're here and they 've gone .",
    ];
    for line in lines {
        let want: Vec<&str> = line.split(' ').collect();
        check(&t, line, &want);
    }
}

#[test]
fn moses_entities_are_unescaped() {
    let t = WordTokenizer::default();
    check(
        &t,
        "&quot; Two soldiers came up to me &quot; , Parliament &apos;s prerogative",
        &[
            "\"",
            "Two",
            "soldiers",
            "came",
            "up",
            "to",
            "me",
            "\"",
            ",",
            "Parliament",
            "'s",
            "prerogative",
        ],
    );
    check(
        &t,
        "A &amp; B &lt;br&gt; &#91; 1 &#93; x &#124; y &#x27;s &foo; AT&amp;T",
        &[
            "A", "&", "B", "<", "br", ">", "[", "1", "]", "x", "|", "y", "'s", "&", "foo", ";",
            "AT", "&", "T",
        ],
    );
    // Watson &apos; s (apostrophe alone, as Moses-tokenized German has it).
    check(
        &t,
        "auf Watson &apos; s Ideen",
        &["auf", "Watson", "'", "s", "Ideen"],
    );
    // &nbsp; is whitespace once unescaped.
    check(&t, "10&nbsp;km", &["10", "km"]);
    let raw = WordTokenizer::builder().unescape_html(false).build();
    check(&raw, "&quot;x", &["&", "quot", ";", "x"]);
}

#[test]
fn raw_text_punctuation_is_split() {
    let t = WordTokenizer::default();
    check(
        &t,
        "„Das ist gut“, sagte er (leise): «Ja!?»",
        &[
            "„", "Das", "ist", "gut", "“", ",", "sagte", "er", "(", "leise", ")", ":", "«", "Ja",
            "!", "?", "»",
        ],
    );
    check(
        &t,
        "Wait... what?!! --really",
        &["Wait", "...", "what", "?", "!!", "--", "really"],
    );
    check(
        &t,
        "Er kam. Dann ging er.",
        &["Er", "kam", ".", "Dann", "ging", "er", "."],
    );
    check(
        &t,
        "Open _File %s (Ctrl+O)",
        &["Open", "_", "File", "%", "s", "(", "Ctrl", "+", "O", ")"],
    );
    check(
        &t,
        "  \t leading\u{a0}and\u{3000}trailing \r\n",
        &["leading", "and", "trailing"],
    );
    check(&t, "", &[]);
    check(&t, " \t\n ", &[]);
}

#[test]
fn numbers_stay_whole() {
    let t = WordTokenizer::default();
    check(
        &t,
        "3.5 1,000 2019 0,5% 1.000.000,50 -5 .5 12:30 3/4 $5 +49 COVID-19 MP3",
        &[
            "3.5",
            "1,000",
            "2019",
            "0,5",
            "%",
            "1.000.000,50",
            "-5",
            ".5",
            "12",
            ":",
            "30",
            "3",
            "/",
            "4",
            "$",
            "5",
            "+",
            "49",
            "COVID-19",
            "MP3",
        ],
    );
    // A number ending a sentence loses its period; an ordinal before a word keeps it.
    check(&t, "Im Jahr 2019.", &["Im", "Jahr", "2019", "."]);
    check(&t, "am 13. November", &["am", "13.", "November"]);
    check(
        &t,
        "im Jahr 2019. Dann",
        &["im", "Jahr", "2019", ".", "Dann"],
    );
    check(&t, "Kosten: 1,5.", &["Kosten", ":", "1,5", "."]);
    check(&t, "a,b 1, 2", &["a", ",", "b", "1", ",", "2"]);
}

#[test]
fn hyphens_and_apostrophes() {
    let t = WordTokenizer::default();
    check(
        &t,
        "e-mail Ein- und Ausgang",
        &["e-mail", "Ein-", "und", "Ausgang"],
    );
    check(&t, "a - b a-/b", &["a", "-", "b", "a", "-", "/", "b"]);
    check(
        &t,
        "don't l'homme aujourd'hui O’Neill",
        &["don't", "l'homme", "aujourd'hui", "O’Neill"],
    );
    check(&t, "the students' books", &["the", "students'", "books"]);
    check(
        &t,
        "he said 'hello world' today",
        &["he", "said", "'", "hello", "world", "'", "today"],
    );
    check(&t, "'Tis 'S", &["'", "Tis", "'S"]);
    check(&t, "rock 'n' roll", &["rock", "'", "n", "'", "roll"]);
}

#[test]
fn periods_and_abbreviations() {
    let t = WordTokenizer::default();
    check(
        &t,
        "U.S. e.g. z.B. www.example.com.",
        &["U.S.", "e.g.", "z.B.", "www.example.com", "."],
    );
    check(
        &t,
        "Prof. Dr. Weber sagte",
        &["Prof.", "Dr.", "Weber", "sagte"],
    );
    check(&t, "Ich bin Dr.", &["Ich", "bin", "Dr", "."]);
    check(
        &t,
        "usw. vollgepackter Koffer",
        &["usw.", "vollgepackter", "Koffer"],
    );
    check(&t, "Schluss. Neu", &["Schluss", ".", "Neu"]);
    check(&t, "(d.h. so)", &["(", "d.h.", "so", ")"]);
    check(&t, "Ende.)", &["Ende", ".", ")"]);
}

#[test]
fn mixed_scripts_marks_and_invisible_characters() {
    let t = WordTokenizer::default();
    check(
        &t,
        "Москва, 2019 г. — столица!",
        &["Москва", ",", "2019", "г.", "—", "столица", "!"],
    );
    check(&t, "Αθήνα; ναι", &["Αθήνα", ";", "ναι"]);
    check(&t, "مرحبا، عالم!", &["مرحبا", "،", "عالم", "!"]);
    check(&t, "नमस्ते दुनिया।", &["नमस्ते", "दुनिया", "।"]);
    check(
        &t,
        "我爱北京。日本語のテキスト",
        &["我", "爱", "北", "京", "。", "日", "本", "語", "のテキスト"],
    );
    let whole = WordTokenizer::new(WordConfig {
        split_cjk: false,
        ..WordConfig::default()
    });
    check(&whole, "我爱北京。", &["我爱北京", "。"]);
    // Combining accents stay in the word; so do ZWJ emoji sequences and skin tones.
    check(
        &t,
        "cafe\u{301} nai\u{308}ve",
        &["cafe\u{301}", "nai\u{308}ve"],
    );
    check(
        &t,
        "ok 👍🏽 👨\u{200D}👩!",
        &["ok", "👍🏽", "👨\u{200D}👩", "!"],
    );
    // Soft hyphens and byte-order marks vanish; a zero-width space separates.
    check(
        &t,
        "\u{feff}Fuß\u{ad}ball ist\u{200b}toll",
        &["Fußball", "ist", "toll"],
    );
}

#[test]
fn lowercasing_is_unicode_and_after_splitting() {
    let t = WordTokenizer::builder().lowercase(true).build();
    check(
        &t,
        "ÄRGER über ΟΔΟΣ, İstanbul",
        &["ärger", "über", "οδος", ",", "i\u{307}stanbul"],
    );
    // The period rule sees the original case: "Mr." keeps its period before "Smith".
    check(
        &t,
        "Mr. Smith KAM. Dann",
        &["mr.", "smith", "kam", ".", "dann"],
    );
    assert_eq!(t.count("Der Hund , sagte er ."), 6);
}

#[test]
fn allocation_light_api_agrees_with_tokenize() {
    let t = WordTokenizer::default();
    let text = "&quot;Hallo&quot;, sagte Dr. Weber am 1. Mai: 3,5% mehr!";
    let mut seen = Vec::new();
    t.for_each_token(text, |tok| seen.push(tok.to_owned()));
    assert_eq!(seen, t.tokenize(text));
    let mut out = vec!["kept".to_owned()];
    t.tokenize_into(text, &mut out);
    assert_eq!(out[0], "kept");
    assert_eq!(out[1..], seen[..]);
}
