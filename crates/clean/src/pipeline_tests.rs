//! Tests of the pipeline: the steps in order, near-duplicate keys, language identification, the
//! report, recipes, and the pure screening a sharded plan runs.

use super::*;

#[test]
fn rules_then_near_duplicates_with_the_first_copy_kept() {
    let mut c = Cleaner::new(Recipe::default()).unwrap();
    assert!(c.needs_counts());
    let pairs = [
        ("Das Haus ist rot.", "The house is red."),
        ("das Haus ist rot", "The house is RED!"),
        ("<b>Haus</b>", "house"),
        ("Das Haus ist rot.", "The house is green."),
    ];
    for (s, t) in pairs {
        c.count(s, t);
    }
    let got: Vec<_> = pairs
        .iter()
        .enumerate()
        .map(|(i, (s, t))| c.judge(i + 1, s, t).map(|r| (r.step, r.what, r.reason)))
        .collect();
    assert_eq!(got[0], None);
    assert_eq!(
        got[1],
        Some((
            Step::Dedup,
            "duplicate",
            "a near-duplicate of line 1".into()
        ))
    );
    assert_eq!(got[2].as_ref().map(|g| g.1), Some("markup"));
    assert_eq!(got[3], None);
}

#[test]
fn one_side_keys_and_no_dedup() {
    let pairs = [("Hallo Welt", "Hello world"), ("Hallo, Welt!", "Hi world")];
    for (dedup, removed) in [
        (Dedup::Source, true),
        (Dedup::Target, false),
        (Dedup::None, false),
    ] {
        let recipe = Recipe {
            dedup,
            ..Recipe::default()
        };
        let mut c = Cleaner::new(recipe).unwrap();
        assert_eq!(c.judge(1, pairs[0].0, pairs[0].1), None);
        assert_eq!(
            c.judge(2, pairs[1].0, pairs[1].1).is_some(),
            removed,
            "{dedup:?}"
        );
    }
}

/// Cyrillic letters read as Russian, `é` as French, anything else as German or English
/// by its first word.
struct Toy(Vec<String>);

impl LanguageIdentifier for Toy {
    fn languages(&self) -> &[String] {
        &self.0
    }
    fn predict(&self, text: &str, k: usize) -> Vec<bitext_lid::Guess> {
        let lang = if text.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c)) {
            "ru"
        } else if text.contains('é') {
            "fr"
        } else if text.starts_with("Das") || text.starts_with("Der") {
            "de"
        } else {
            "en"
        };
        let mut g: Vec<_> = self
            .0
            .iter()
            .map(|l| bitext_lid::Guess::new(l.clone(), if l == lang { 0.9 } else { 0.025 }))
            .collect();
        g.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        g.truncate(k);
        g
    }
}

#[test]
fn language_identification_removes_wrong_languages_and_swapped_columns() {
    let toy = Arc::new(Toy(["de", "en", "fr", "ru"].map(String::from).to_vec()));
    let mut recipe = Recipe::default();
    recipe.rules.src_lang = Some("de".into());
    recipe.rules.tgt_lang = Some("en".into());
    let mut c = Cleaner::new(recipe.clone())
        .unwrap()
        .with_identifier(toy.clone())
        .unwrap();
    let judge = |c: &mut Cleaner, i, s, t| c.judge(i, s, t).map(|r| (r.step, r.what, r.reason));
    assert_eq!(
        judge(&mut c, 1, "Das Haus ist rot.", "The house is red."),
        None
    );
    let swapped = judge(&mut c, 2, "The house is green.", "Das Haus ist grün.").unwrap();
    assert_eq!((swapped.0, swapped.1), (Step::Lid, "swapped"));
    let wrong = judge(
        &mut c,
        3,
        "Das Haus ist blau.",
        "La maison est bleue, café.",
    )
    .unwrap();
    assert_eq!((wrong.0, wrong.1), (Step::Lid, "wrong_language"));
    assert_eq!(wrong.2, "target reads as fr (0.90), not en");
    // Below the confidence asked for, a side read as its own language fails too.
    recipe.lid.min_confidence = 0.95;
    let mut strict = Cleaner::new(recipe.clone())
        .unwrap()
        .with_identifier(toy.clone())
        .unwrap();
    assert!(
        strict
            .judge(1, "Das Haus ist rot.", "The house is red.")
            .is_some()
    );
    recipe.rules.tgt_lang = Some("ja".into());
    let e = Cleaner::new(recipe)
        .unwrap()
        .with_identifier(toy)
        .unwrap_err();
    assert!(
        e.to_string().contains("does not know the language \"ja\""),
        "{e}"
    );
    let mut bad = Recipe::default();
    bad.lid.min_confidence = 1.5;
    assert!(Cleaner::new(bad).is_err());
}

#[test]
fn the_report_counts_by_step_and_rule_in_order() {
    let mut report = Report::default();
    let removal = |step, what: &'static str| Removal {
        step,
        what,
        reason: format!("{what}!"),
    };
    report.add(1, None);
    report.add(2, Some(&removal(Step::Dedup, "duplicate")));
    report.add(3, Some(&removal(Step::Rules, "numbers")));
    report.add(4, Some(&removal(Step::Rules, "empty")));
    for line in 5..10 {
        report.add(line, Some(&removal(Step::Rules, "numbers")));
    }
    assert_eq!((report.read, report.kept), (9, 1));
    let rows: Vec<_> = report.removed.iter().map(|r| (r.what, r.count)).collect();
    assert_eq!(rows, [("empty", 1), ("numbers", 6), ("duplicate", 1)]);
    assert_eq!(report.removed[1].examples.len(), EXAMPLES);
    assert_eq!(report.removed[1].examples[0], (3, "numbers!".to_string()));
}

#[test]
fn screening_is_pure_and_repeats_counted_elsewhere_decide_boilerplate() {
    let recipe = Recipe {
        rules: Rules {
            max_repeats: 1,
            ..Rules::default()
        },
        ..Recipe::default()
    };
    let mut c = Cleaner::new(recipe).unwrap();
    let (a, b) = ("Das Haus ist rot.", "The house is red.");
    let k = c.screen(a, b).unwrap().unwrap();
    assert_eq!(
        c.screen("das haus ist rot", "THE HOUSE IS RED!"),
        Ok(Some(k))
    );
    assert_ne!(c.screen(a, "The house is green."), Ok(Some(k)));
    // Counts merged from elsewhere: a source side seen twice is boilerplate.
    let mut counts = Repeats::default();
    let [s, _] = Repeats::keys(a, b);
    counts.add_key(Side::Source, s, 2);
    assert_eq!(counts.counts(Side::Source).collect::<Vec<_>>(), [(s, 2)]);
    assert_eq!(counts.counts(Side::Both).count(), 0);
    c.set_repeats(counts);
    let r = c.screen(a, b).unwrap_err();
    assert_eq!((r.step, r.what), (Step::Rules, "boilerplate"));
    assert_eq!(r.reason, "source occurs 2 times in the corpus (most 1)");
    // Without the boilerplate rule, counts change nothing.
    let mut off = Recipe::default();
    off.rules.disabled.push(Rule::Boilerplate);
    let mut c = Cleaner::new(off).unwrap();
    let mut counts = Repeats::default();
    counts.add_keys(s, s, 100);
    c.set_repeats(counts);
    assert_eq!(c.screen(a, b), Ok(Some(k)));
}

#[test]
fn removals_read_back_from_their_names() {
    for r in [
        duplicate_of(7),
        Removal::min_score(0.25, 0.5),
        Removal {
            step: Step::Rules,
            what: "numbers",
            reason: "numbers differ".into(),
        },
        Removal {
            step: Step::Lid,
            what: "swapped",
            reason: "x".into(),
        },
    ] {
        let back = Removal::from_names(r.step.name(), r.what, r.reason.clone());
        assert_eq!(back, Some(r));
    }
    assert_eq!(
        Removal::min_score(0.25, 0.5).reason,
        "score 0.2500 below 0.5"
    );
    assert_eq!(Removal::from_names("rules", "nope", String::new()), None);
    assert_eq!(Removal::from_names("nope", "numbers", String::new()), None);
}

#[test]
fn the_histogram_bins_every_score() {
    let mut report = Report::default();
    for s in [-1.0, -0.99, 0.0, 0.5, 0.999, 1.0, 7.0, -7.0] {
        report.add_score(s);
    }
    let h = report.scores.unwrap();
    assert_eq!(h.counts.len(), SCORE_BINS);
    assert_eq!(h.counts.iter().sum::<usize>(), 8);
    assert_eq!(
        (h.counts[0], h.counts[20], h.counts[30], h.counts[39]),
        (3, 1, 1, 3)
    );
}

#[test]
fn a_recipe_reads_as_json_and_bad_thresholds_are_refused() {
    let r: Recipe =
        serde_json::from_str(r#"{"rules": {"max_repeats": 2}, "dedup": "source"}"#).unwrap();
    assert_eq!((r.rules.max_repeats, r.dedup), (2, Dedup::Source));
    assert!(serde_json::from_str::<Recipe>(r#"{"dedupe": "pair"}"#).is_err());
    let mut bad = Recipe::default();
    bad.rules.max_punctuation = 2.0;
    assert!(Cleaner::new(bad).is_err());
}

#[test]
fn the_best_scored_copy_is_kept_and_the_first_of_equals() {
    let mut best = BestCopies::default();
    for (key, line, score) in [
        (1, 1, 0.5),
        (1, 2, 0.9),
        (1, 3, 0.9),
        (2, 4, f64::NAN),
        (2, 5, 0.1),
    ] {
        best.offer(key, line, score);
    }
    best.offer(3, 6, f64::NAN);
    best.offer(3, 7, f64::NAN);
    assert_eq!(best.verdict(1, 2), Ok(0.9));
    for line in [1, 3] {
        assert_eq!(best.verdict(1, line), Err(duplicate_of(2)));
    }
    assert_eq!(best.verdict(2, 5), Ok(0.1), "a score beats none");
    assert_eq!(best.verdict(2, 4), Err(duplicate_of(5)));
    assert!(
        best.verdict(3, 6).unwrap().is_nan(),
        "unscored: the first copy"
    );
    assert_eq!(best.verdict(3, 7), Err(duplicate_of(6)));
    assert_eq!(best.kept(9), None);
    assert!(best.verdict(9, 1).unwrap().is_nan());
}
