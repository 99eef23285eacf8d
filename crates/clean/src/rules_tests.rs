//! Tests of the rules: each rule and its reason, thresholds, languages, boilerplate counts.

use super::*;

/// Assert that `v` removes by `rule` with a reason holding `want`.
fn assert_removed(v: Option<Verdict>, rule: Rule, want: &str) {
    let v = v.unwrap_or_else(|| panic!("kept; expected {rule:?}"));
    assert_eq!(v.rule, rule, "{}", v.reason);
    assert!(v.reason.contains(want), "{:?}: {}", rule, v.reason);
}

fn first(rules: &Rules, src: &str, tgt: &str) -> Option<Rule> {
    rules.judge(src, tgt, None).map(|v| v.rule)
}

#[test]
fn a_clean_pair_passes_every_rule() {
    let r = Rules::default();
    assert_eq!(
        r.judge(
            "Das Haus ist 3 Meter hoch.",
            "The house is 3 metres high.",
            None
        ),
        None
    );
    assert_eq!(r.judge("Ja", "Yes", None), None);
    assert_eq!(
        r.judge("東京は大きい都市です。", "Tokyo is a big city.", None),
        None
    );
}

#[test]
fn each_rule_names_what_it_saw() {
    let r = Rules::default();
    let cases = [
        ("  ", "The house", Rule::Empty, "source is empty"),
        (
            "Haus",
            &"a ".repeat(600),
            Rule::TooLong,
            "target has 1200 characters (most 1024)",
        ),
        ("<b>Haus</b>", "house", Rule::Markup, "source holds markup"),
        (
            "Tom &amp; Jerry",
            "Tom and Jerry",
            Rule::Markup,
            "source holds markup",
        ),
        (
            "Tel. 030 1234567",
            "Tel. 030 1234567",
            Rule::Letters,
            "source has 3 letters of 14 characters",
        ),
        (
            "Haus!!! ???",
            "House!!! ???",
            Rule::Punctuation,
            "source has 6 punctuation marks or symbols of 10",
        ),
        (
            "Ein sehr langer Satz mit vielen Wörtern darin",
            "A word",
            Rule::LengthRatio,
            "differ 7.50 times",
        ),
        (
            "Click here to download",
            "Click HERE to download!",
            Rule::Untranslated,
            "the sides are the same text",
        ),
        (
            "Es kostet 20 Euro",
            "It costs 25 euros",
            Rule::Numbers,
            "numbers differ: [\"20\"] and [\"25\"]",
        ),
        (
            "Siehe www.a.de",
            "See www.b.com",
            Rule::Links,
            "links differ",
        ),
    ];
    for (src, tgt, rule, want) in cases {
        assert_removed(r.judge(src, tgt, None), rule, want);
    }
}

#[test]
fn numbers_and_links_agree_across_formats() {
    let r = Rules::default();
    assert_eq!(
        first(&r, "1.000,5 km am 3. Mai", "1,000.5 km on May 3"),
        None
    );
    assert_eq!(
        first(
            &r,
            "Schreiben Sie an Info@Example.org",
            "Write to info@example.org."
        ),
        None
    );
}

#[test]
fn the_script_rule_needs_languages_and_knows_their_scripts() {
    let mut r = Rules::default();
    let (de, ru) = ("Das ist gut", "Это хорошо");
    assert_eq!(first(&r, de, ru), None);
    r.src_lang = Some("de".into());
    r.tgt_lang = Some("ru".into());
    assert_eq!(first(&r, de, ru), None);
    let want = "source has 9 of 9 letters outside the scripts of de";
    assert_removed(r.judge(ru, de, None), Rule::Script, want);
    // A Latin brand name in a Russian side is under the share allowed.
    let ipad = (
        "Das ist ein sehr guter neuer iPad",
        "Это очень хороший новый iPad",
    );
    assert_eq!(first(&r, ipad.0, ipad.1), None);
    r.tgt_lang = Some("xx".into());
    assert_eq!(first(&r, de, "Das ist gut, really"), None);
}

#[test]
fn length_ratio_reads_bytes_for_dense_scripts_and_spares_short_pairs() {
    let r = Rules::default();
    assert_eq!(first(&r, "Ja", "Yes"), None);
    assert_eq!(first(&r, "Ja", "Yes, of course"), Some(Rule::LengthRatio));
    assert_eq!(
        first(&r, "日本語の文です", "It is a Japanese sentence"),
        None
    );
    assert_eq!(
        first(&r, "日", "It is a very long English sentence indeed"),
        Some(Rule::LengthRatio)
    );
}

#[test]
fn boilerplate_counts_sides_across_the_corpus() {
    let mut repeats = Repeats::default();
    for i in 0..12 {
        repeats.add("Startseite", &format!("Home page {i}"));
    }
    repeats.add("Ein Satz", "A sentence");
    let r = Rules::default();
    let v = r.judge("Startseite!", "Start page", Some(&repeats));
    assert_removed(
        v,
        Rule::Boilerplate,
        "source occurs 12 times in the corpus (most 10)",
    );
    assert_eq!(r.judge("Ein Satz", "A sentence", Some(&repeats)), None);
    assert_eq!(r.judge("Startseite", "Start page", None), None);
}

#[test]
fn disabled_rules_pass_and_thresholds_are_checked() {
    let r = Rules {
        disabled: vec![Rule::Untranslated, Rule::Letters],
        ..Rules::default()
    };
    assert_eq!(first(&r, "Click here", "click HERE"), None);
    assert_eq!(first(&r, "12345", "12345"), None);
    assert!(Rules::default().check().is_ok());
    for bad in [
        Rules {
            min_letters: 1.5,
            ..Rules::default()
        },
        Rules {
            max_length_ratio: 0.5,
            ..Rules::default()
        },
        Rules {
            max_length_ratio: f64::NAN,
            ..Rules::default()
        },
        Rules {
            max_chars: 0,
            ..Rules::default()
        },
    ] {
        assert!(bad.check().is_err(), "{bad:?}");
    }
}

#[test]
fn rules_round_trip_by_name_and_as_json() {
    for r in Rule::ALL {
        assert_eq!(Rule::from_name(r.name()), Some(r));
    }
    assert_eq!(Rule::from_name("nope"), None);
    let rules: Rules =
        serde_json::from_str(r#"{"max_repeats": 3, "disabled": ["numbers"], "src_lang": "de"}"#)
            .unwrap();
    assert_eq!((rules.max_repeats, rules.max_chars), (3, 1024));
    assert_eq!(rules.disabled, [Rule::Numbers]);
    assert!(serde_json::from_str::<Rules>(r#"{"max_reps": 3}"#).is_err());
}

proptest::proptest! {
    #[test]
    fn judging_never_panics_and_a_pair_with_itself_is_untranslated_or_worse(s in "\\PC{0,40}") {
        let r = Rules::default();
        let _ = r.judge(&s, "x", None);
        if let Some(v) = r.judge(&s, &s, None) {
            proptest::prop_assert!(v.rule <= Rule::Untranslated, "{:?}", v);
        } else {
            proptest::prop_assert!(crate::fold(&s).is_empty());
        }
    }
}
