//! Tests of the synthetic negatives.

use super::NoiseKind::{Misaligned, Replaced, Truncated, Untranslated, WrongLanguage};
use super::*;
use proptest::prelude::{Strategy, prop, prop_assert, prop_assert_eq, proptest};

type Pairs = Vec<(String, String)>;

const ALL: &[NoiseKind] = &NoiseKind::ALL;
const CAT: &[&str] = &["cat", "tree", "cat", "river"];
const OTHER: &[&str] = &["Le chat dort.", "La maison est grande."];

fn corpus(n: usize) -> Pairs {
    let side = |w: &str, i: usize| format!("the {w} {i} {}end", "very ".repeat(i % w.len()));
    (0..n).map(|i| (side("Hund", i), side("dog", i))).collect()
}

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(ToString::to_string).collect()
}

/// The negatives of `pairs` with replacements from `tgt`, or the message of the error.
fn run<S: AsRef<str>>(
    pairs: &[(S, S)],
    tgt: &[&str],
    other: &[&str],
    kinds: &[NoiseKind],
    per_pair: f64,
) -> std::result::Result<Vec<Negative>, String> {
    let config = serde_json::json!({ "kinds": kinds, "per_pair": per_pair });
    let config: NoiseConfig = serde_json::from_value(config).unwrap();
    let words = Words {
        src: vec![],
        tgt: strings(tgt),
    };
    match negatives(pairs, &words, &strings(other), &config, &mut Rng::seed(1)) {
        Err(Error::Invalid(m)) => Err(m),
        r => Ok(r.unwrap()),
    }
}

/// Panics unless `n` differs from its clean pair and has the shape of its kind.
fn check_shape(n: &Negative, pairs: &Pairs, list: &[&str], other: &[&str]) {
    let (s, t) = (pairs[n.from].0.as_str(), pairs[n.from].1.as_str());
    assert!(n.src != s || n.tgt != t, "{n:?} is its clean pair");
    let split = |x: &str| x.split_whitespace().map(String::from).collect::<Vec<_>>();
    let ok = match n.kind {
        Misaligned => n.src == s && n.tgt != t && pairs.iter().any(|p| p.1 == n.tgt),
        Truncated => {
            let (cut, whole) = if n.src == s { (&n.tgt, t) } else { (&n.src, s) };
            let (c, w) = (split(cut), split(whole));
            let share = 4 * c.len() >= w.len() && 3 * c.len() <= 2 * w.len();
            let prefix = c.len() < w.len() && *cut == w[..c.len()].join(" ");
            (n.src == s || n.tgt == t) && share && prefix
        }
        Replaced => {
            let (a, b) = (split(&n.tgt), split(t));
            let mut changed = a.iter().zip(&b).filter(|(x, y)| x != y).peekable();
            let new = changed.peek().is_some() && changed.all(|x| list.contains(&&**x.0));
            n.src == s && a.len() == b.len() && new
        }
        Untranslated => n.src == n.tgt && (n.src == s || n.src == t),
        WrongLanguage => n.src == s && other.contains(&n.tgt.as_str()),
        NoiseKind::WrongSide => {
            (n.src == s && pairs.iter().any(|p| p.0 == n.tgt))
                || (n.tgt == t && pairs.iter().any(|p| p.1 == n.src))
        }
    };
    assert!(ok, "{n:?} from {:?}", pairs[n.from]);
}

#[test]
fn the_seed_gives_the_same_negatives() {
    let (pairs, c) = (corpus(30), NoiseConfig::default());
    let words = Words::of_pairs(&pairs);
    let run = |seed| negatives(&pairs, &words, &strings(OTHER), &c, &mut Rng::seed(seed));
    assert_eq!(run(7).unwrap(), run(7).unwrap());
    assert_ne!(run(7).unwrap(), run(8).unwrap());
}

#[test]
fn kinds_take_equal_shares_and_keep_their_shapes() {
    let pairs = corpus(41);
    for (per_pair, total) in [(1.0, 41), (2.0, 82), (0.5, 21), (0.01, 1)] {
        let negs = run(&pairs, CAT, OTHER, ALL, per_pair).unwrap();
        let counts = NoiseKind::ALL.map(|k| negs.iter().filter(|n| n.kind == k).count());
        let spread = counts.iter().max().unwrap() - counts.iter().min().unwrap();
        assert!(negs.len() == total && spread <= 1, "{per_pair}: {counts:?}");
        for n in &negs {
            check_shape(n, &pairs, CAT, OTHER);
        }
    }
}

#[test]
fn misaligned_targets_have_a_close_length() {
    // Targets of 1 to 40 words: two random ones are about 13 words (26 chars) apart.
    let pairs: Pairs = (1..=40).map(|i| (i.to_string(), "w ".repeat(i))).collect();
    let negs = run(&pairs, CAT, &[], &[Misaligned], 5.0).unwrap();
    let off = |n: &Negative| n.tgt.len().abs_diff(pairs[n.from].1.len());
    let mean = negs.iter().map(off).sum::<usize>() / negs.len();
    assert!(mean < 12, "{mean} chars apart");
}

#[test]
fn wrong_language_needs_other_text() {
    let pairs = corpus(20);
    let negs = run(&pairs, CAT, &[], ALL, 1.0).unwrap();
    assert!(negs.len() == 20 && negs.iter().all(|n| n.kind != WrongLanguage));
    let e = run(&pairs, CAT, &[], &[WrongLanguage], 1.0).unwrap_err();
    assert!(e.contains("wrong_language needs text in another"), "{e}");
    let negs = run(&pairs, CAT, OTHER, &[WrongLanguage], 1.0).unwrap();
    assert!(negs.iter().all(|n| OTHER.contains(&&*n.tgt)));
    let e = run(&[("a", "x")], CAT, &["x"], &[WrongLanguage], 1.0).unwrap_err();
    assert!(e.contains("wrong_language needs a sentence"), "{e}");
}

#[test]
fn replaced_changes_only_what_it_can_and_falls_back_to_the_pairs_words() {
    // With only "cat" to draw, "cat cat" cannot change: only the odd pairs give negatives.
    let tgt = |i: usize| ["cat cat".to_string(), format!("dog {i}")][i % 2].clone();
    let pairs: Pairs = (0..10).map(|i| (format!("Katze {i}"), tgt(i))).collect();
    let negs = run(&pairs, &["cat"], &[], &[Replaced], 1.0).unwrap();
    assert_eq!(negs.len(), 10);
    for n in &negs {
        assert_eq!(n.from % 2, 1);
        check_shape(n, &pairs, &["cat"], &[]);
    }
    for n in &run(&pairs, &[], &[], &[Replaced], 1.0).unwrap() {
        check_shape(n, &pairs, &["cat", "dog"], &[]);
    }
    let e = run(&[("a", "cat")], &["cat"], &[], &[Replaced], 1.0).unwrap_err();
    assert!(e.contains("replaced needs a target word that"), "{e}");
    let e = run(&[("a", "1 2")], &[], &[], &[Replaced], 1.0).unwrap_err();
    assert!(e.contains("replaced needs target words"), "{e}");
}

#[test]
fn bad_settings_and_impossible_kinds_are_named() {
    let (pairs, words) = (corpus(5), Words::default());
    let e = run::<&str>(&[], CAT, &[], ALL, 1.0).unwrap_err();
    assert!(e.contains("no clean pairs"), "{e}");
    let d = NoiseConfig::default;
    for p in [f64::NAN, f64::INFINITY] {
        let e = NoiseConfig { per_pair: p, ..d() }
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("per_pair must"), "{e}");
    }
    for (json, want) in [
        (r#"{"per_pair": 0}"#, "per_pair must be finite"),
        (r#"{"per_pair": -1}"#, "> 0, got -1"),
        (r#"{"replace_share": 0}"#, "replace_share must be in"),
        (r#"{"replace_share": 1.5}"#, "(0, 1], got 1.5"),
        (r#"{"kinds": []}"#, "kinds is empty"),
        (r#"{"kinds": ["replaced", "replaced"]}"#, "replaced twice"),
    ] {
        let config: NoiseConfig = serde_json::from_str(json).unwrap();
        let e = negatives(&pairs, &words, &[], &config, &mut Rng::seed(1)).unwrap_err();
        assert!(e.to_string().contains(want), "{json}: {e}");
    }
    for (kind, pairs, want) in [
        (Misaligned, &[("a b", "x y")][..], "misaligned needs"),
        (Misaligned, &[("a", "x"), ("b", "x")], "misaligned needs"),
        (Truncated, &[("a", "x"), ("b", "")], "truncated needs"),
        (Untranslated, &[("a b", "a b")], "untranslated needs"),
    ] {
        let e = run(pairs, CAT, OTHER, &[kind], 1.0).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
}

#[test]
fn names_round_trip_and_words_keep_letters() {
    for k in NoiseKind::ALL {
        let json = serde_json::to_string(&k).unwrap();
        assert_eq!(NoiseKind::from_name(k.name()), Some(k));
        assert_eq!(json.trim_matches('"'), k.name());
    }
    assert_eq!(NoiseKind::from_name("swapped"), None);
    let config: NoiseConfig = serde_json::from_str("{}").unwrap();
    assert_eq!(config, NoiseConfig::default());
    assert!(serde_json::from_str::<NoiseConfig>(r#"{"share": 0.5}"#).is_err());
    let w = Words::of_pairs(&[("Il a 3 chats .", "He has 3 cats.")]);
    assert!(w.src == ["Il", "a", "chats"] && w.tgt == ["He", "has", "cats."]);
}

fn side() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec!["a", "b", "ab", "7", ".", "b"]);
    prop::collection::vec(words, 0..5).prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn random_corpora_give_negatives_that_differ(
        pairs in prop::collection::vec((side(), side()), 0..8),
        list in prop::collection::vec(prop::sample::select(vec!["a", "b", "c d", ""]), 0..4),
        other in prop::collection::vec(side(), 0..3),
        kinds in prop::sample::subsequence(NoiseKind::ALL.to_vec(), 1..=5),
        per_pair in 0.1f64..3.0,
        replace_share in 0.05f64..=1.0,
        seed: u64,
    ) {
        let words = Words { src: vec![], tgt: strings(&list) };
        let config = NoiseConfig { kinds, per_pair, replace_share };
        let own = Words::of_pairs(&pairs).tgt;
        let list: Vec<&str> = list.into_iter().chain(own.iter().map(String::as_str)).collect();
        let o: Vec<&str> = other.iter().map(String::as_str).collect();
        match negatives(&pairs, &words, &other, &config, &mut Rng::seed(seed)) {
            Ok(negs) => {
                let want = ((per_pair * pairs.len() as f64).round() as usize).max(1);
                prop_assert_eq!(negs.len(), want);
                for n in &negs {
                    check_shape(n, &pairs, &list, &o);
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("synthetic negatives: ")),
        }
    }
}
