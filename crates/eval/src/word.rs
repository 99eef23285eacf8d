//! Word-translation evaluation (Zhang et al. 2016, "Evaluation Metrics"): precision, recall, F1
//! and accuracy of proposed translation sets against a many-to-many bilingual lexicon, with the
//! out-of-lexicon / out-of-coverage bookkeeping and the average number of proposals `K`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use bitext_core::io::LineReader;

use crate::error::{Error, Result};

/// A many-to-many bilingual lexicon: each source word maps to its set of gold translations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    map: HashMap<String, HashSet<String>>,
    pairs: usize,
}

impl Lexicon {
    /// Build from `(source, target)` pairs.
    ///
    /// # Errors
    /// [`Error::DuplicatePair`] when a pair occurs twice; [`Error::Invalid`] for an empty word.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Result<Self> {
        let mut lex = Self::default();
        for (i, (s, t)) in pairs.into_iter().enumerate() {
            if s.is_empty() || t.is_empty() {
                return Err(Error::Invalid(format!(
                    "lexicon pair {i} has an empty word"
                )));
            }
            if !lex.map.entry(s.clone()).or_default().insert(t.clone()) {
                return Err(Error::DuplicatePair {
                    what: "lexicon",
                    pair: format!("({s:?}, {t:?})"),
                    first: usize::MAX,
                    second: i,
                });
            }
            lex.pairs += 1;
        }
        Ok(lex)
    }

    /// Gold translations of `word`.
    #[must_use]
    pub fn get(&self, word: &str) -> Option<&HashSet<String>> {
        self.map.get(word)
    }

    /// Number of source words.
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Number of `(source, target)` pairs.
    #[must_use]
    pub fn pairs(&self) -> usize {
        self.pairs
    }
}

/// Read a lexicon file of `source<TAB>target` lines (e.g. the Ding dictionary export).
///
/// # Errors
/// Missing file, invalid UTF-8, a line without exactly one tab, an empty word, a duplicate pair,
/// or an empty file — naming the file and line.
pub fn read_lexicon(path: impl AsRef<Path>) -> Result<Lexicon> {
    let mut lex = Lexicon::default();
    LineReader::open(path)?.each_line("pairs", |r, line| {
        let f = r.fields(line, 2, "source<TAB>target")?;
        if f[0].is_empty() || f[1].is_empty() {
            return Err(r.error("empty word"));
        }
        if !lex
            .map
            .entry(f[0].to_string())
            .or_default()
            .insert(f[1].to_string())
        {
            return Err(r.error("duplicate pair"));
        }
        lex.pairs += 1;
        Ok(())
    })?;
    Ok(lex)
}

/// Word-translation scores.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WordTranslationReport {
    /// Source words evaluated (`M`).
    pub source_words: usize,
    /// Source words absent from the lexicon (OOL).
    pub out_of_lexicon: usize,
    /// In-lexicon words none of whose translations is in the target vocabulary (OOC).
    pub out_of_coverage: usize,
    /// Test instances `N = M − OOL − OOC`.
    pub instances: usize,
    /// `N / (M − OOL)`.
    pub coverage: f64,
    /// `Σ|S_G ∩ S_P| / Σ|S_P|`.
    pub precision: f64,
    /// `Σ|S_G ∩ S_P| / Σ|S_G|`.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Share of instances with at least one correct proposal.
    pub accuracy: f64,
    /// Average number of proposals per instance (`K`).
    pub k: f64,
}

/// Evaluate proposed translations.
///
/// For each of `source_words` (the `M` words), `proposals(word)` gives the proposed translation
/// set `S_P` (duplicates count once; a word without proposals has the empty set). The gold set
/// `S_G` is the word's lexicon entry restricted to `target_vocab`, since translations outside
/// the target vocabulary can never be proposed; words whose restricted gold set is empty are
/// out of coverage and, like out-of-lexicon words, are not test instances.
///
/// # Errors
/// [`Error::Invalid`] when there is no test instance.
pub fn evaluate_word_translation<'a, S, F, I>(
    source_words: &[S],
    mut proposals: F,
    lexicon: &Lexicon,
    target_vocab: &HashSet<String>,
) -> Result<WordTranslationReport>
where
    S: AsRef<str>,
    F: FnMut(&str) -> I,
    I: IntoIterator<Item = &'a str>,
{
    let (mut ool, mut ooc, mut n) = (0, 0, 0);
    let (mut hit, mut proposed, mut gold_total, mut accurate) = (0usize, 0usize, 0usize, 0usize);
    for w in source_words {
        let w = w.as_ref();
        let Some(gold) = lexicon.get(w) else {
            ool += 1;
            continue;
        };
        let gold: HashSet<&str> = gold
            .iter()
            .filter(|t| target_vocab.contains(*t))
            .map(String::as_str)
            .collect();
        if gold.is_empty() {
            ooc += 1;
            continue;
        }
        n += 1;
        let props: HashSet<&str> = proposals(w).into_iter().collect();
        let h = props.iter().filter(|p| gold.contains(*p)).count();
        hit += h;
        proposed += props.len();
        gold_total += gold.len();
        accurate += usize::from(h > 0);
    }
    if n == 0 {
        return Err(Error::Invalid(format!(
            "no test instance among {} source words ({ool} out of lexicon, {ooc} out of coverage)",
            source_words.len()
        )));
    }
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let (precision, recall) = (ratio(hit, proposed), ratio(hit, gold_total));
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    Ok(WordTranslationReport {
        source_words: source_words.len(),
        out_of_lexicon: ool,
        out_of_coverage: ooc,
        instances: n,
        coverage: ratio(n, source_words.len() - ool),
        precision,
        recall,
        f1,
        accuracy: ratio(accurate, n),
        k: ratio(proposed, n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex() -> Lexicon {
        Lexicon::from_pairs(
            [
                ("haus", "house"),
                ("haus", "home"),
                ("hund", "dog"),
                ("katze", "cat"),
                ("baum", "arbre"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string())),
        )
        .unwrap()
    }

    #[test]
    fn metrics_by_hand() {
        let vocab: HashSet<String> = ["house", "home", "dog", "cat", "tree"]
            .map(String::from)
            .into();
        let props: HashMap<&str, Vec<&str>> = HashMap::from([
            ("haus", vec!["house", "building"]), // 1 hit of 2 proposals, gold {house, home}
            ("hund", vec!["cat"]),               // 0 of 1, gold {dog}
            ("katze", vec!["cat", "cat"]),       // duplicates count once: 1 of 1, gold {cat}
        ]);
        // "baum" → gold {arbre} not in vocab: out of coverage; "auto": out of lexicon.
        let words = ["haus", "hund", "katze", "baum", "auto"];
        let r = evaluate_word_translation(
            &words,
            |w| props.get(w).cloned().unwrap_or_default(),
            &lex(),
            &vocab,
        )
        .unwrap();
        assert_eq!(
            (
                r.source_words,
                r.out_of_lexicon,
                r.out_of_coverage,
                r.instances
            ),
            (5, 1, 1, 3)
        );
        assert_eq!(r.coverage, 0.75);
        // hits 2, proposals 4, gold 4.
        assert_eq!((r.precision, r.recall, r.f1), (0.5, 0.5, 0.5));
        assert!((r.accuracy - 2.0 / 3.0).abs() < 1e-12);
        assert!((r.k - 4.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn lexicon_file_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("lex.tsv");
        std::fs::write(&p, "haus\thouse\nhaus\thome\n").unwrap();
        assert_eq!(read_lexicon(&p).unwrap().pairs(), 2);
        for (content, want) in [
            (
                "haus\thouse\nhaus house\n",
                "lex.tsv:2: missing tab: expected",
            ),
            ("haus\thouse\nhaus\thouse\n", "lex.tsv:2: duplicate"),
            ("haus\t\n", "lex.tsv:1: empty word"),
            ("", "lex.tsv: file is empty"),
        ] {
            std::fs::write(&p, content).unwrap();
            let e = read_lexicon(&p).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        let vocab = HashSet::new();
        assert!(
            evaluate_word_translation(&["haus"], |_| Vec::<&str>::new(), &lex(), &vocab).is_err()
        );
    }
}
