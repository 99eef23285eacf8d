//! Sub-sentence spans of the training text for a teacher to label ([`spans`],
//! [`span_pairs`]).

use crate::error::{Error, Result};

/// Sub-sentence spans for a teacher to label, as monolingual distillation text: for each
/// distinct sentence of `sentences` with at least `2 · words.start()` whitespace-separated
/// words, `per_sentence` spans of contiguous words, each of a length drawn from `words` (at
/// most one word short of the sentence), at a position drawn; each distinct span once, in the
/// order drawn. A sentence's spans are drawn from `rng` keyed by the sentence
/// ([`Rng::fork_key`](bitext_core::Rng::fork_key)): the same seed gives a sentence the same
/// spans whatever else the text holds and in whatever order, so that a teacher's vectors of
/// them, cached, serve a new split or mix of the same sentences. Training text whose sentences are long (news) or of one register
/// (software strings) then also shows the student short phrases in many contexts, each with
/// the teacher's own vector of it.
///
/// # Errors
/// [`Error::Config`] for an empty range of lengths or one that starts below 1.
pub fn spans<'a>(
    sentences: impl IntoIterator<Item = &'a str>,
    per_sentence: usize,
    words: std::ops::RangeInclusive<usize>,
    rng: &bitext_core::Rng,
) -> Result<Vec<String>> {
    let (lo, hi) = span_lengths(&words)?;
    let mut seen_sentences = std::collections::HashSet::new();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for s in sentences {
        if !seen_sentences.insert(s) {
            continue;
        }
        let w: Vec<&str> = s.split_whitespace().collect();
        if w.len() < 2 * lo {
            continue;
        }
        let mut rng = rng.fork_key(s.as_bytes());
        for _ in 0..per_sentence {
            let span = draw_span(&w, lo, hi, &mut rng);
            if seen.insert(span.clone()) {
                out.push(span);
            }
        }
    }
    Ok(out)
}

/// Sub-sentence spans of both sides of pairs, as [`spans`] draws them of single sentences:
/// for each distinct pair of `src` and `tgt` (line-parallel) whose two sides each have at
/// least `2 · words.start()` whitespace-separated words, `per_pair` times a span of the
/// source sentence and, drawn independently, one of the target sentence; each distinct pair
/// of spans once, in the order drawn; a pair's spans are drawn from `rng` keyed by both its
/// sides, as [`spans`] keys a sentence's. The two spans of a pair are not translations of each
/// other: each is for the teacher's vector of itself (a two-encoder student reads a source
/// span with its source encoder and a target span with its target encoder), never for a
/// loss that takes the pair as parallel.
///
/// # Errors
/// [`Error::Config`] for an empty range of lengths or one that starts below 1;
/// [`Error::Input`] for sides of different lengths.
pub fn span_pairs(
    src: &[String],
    tgt: &[String],
    per_pair: usize,
    words: std::ops::RangeInclusive<usize>,
    rng: &bitext_core::Rng,
) -> Result<(Vec<String>, Vec<String>)> {
    let (lo, hi) = span_lengths(&words)?;
    if src.len() != tgt.len() {
        return Err(Error::Input(format!(
            "spans of pairs: {} source and {} target sentences",
            src.len(),
            tgt.len()
        )));
    }
    let mut seen_pairs = std::collections::HashSet::new();
    let mut seen = std::collections::HashSet::new();
    let (mut out_src, mut out_tgt) = (Vec::new(), Vec::new());
    for (s, t) in src.iter().zip(tgt) {
        if !seen_pairs.insert((s, t)) {
            continue;
        }
        let ws: Vec<&str> = s.split_whitespace().collect();
        let wt: Vec<&str> = t.split_whitespace().collect();
        if ws.len() < 2 * lo || wt.len() < 2 * lo {
            continue;
        }
        let mut rng = rng.fork_key(s.as_bytes()).fork_key(t.as_bytes());
        for _ in 0..per_pair {
            let a = draw_span(&ws, lo, hi, &mut rng);
            let b = draw_span(&wt, lo, hi, &mut rng);
            if seen.insert((a.clone(), b.clone())) {
                out_src.push(a);
                out_tgt.push(b);
            }
        }
    }
    Ok((out_src, out_tgt))
}

/// The bounds of a range of span lengths, checked.
fn span_lengths(words: &std::ops::RangeInclusive<usize>) -> Result<(usize, usize)> {
    let (lo, hi) = (*words.start(), *words.end());
    if lo == 0 || hi < lo {
        return Err(Error::Config(format!(
            "span lengths {lo}..={hi}: need 1 ≤ shortest ≤ longest"
        )));
    }
    Ok((lo, hi))
}

/// One span of `w` (at least `2 · lo` words): `lo..=hi` words long, at most one short of the
/// whole, at a position drawn from `rng`.
fn draw_span(w: &[&str], lo: usize, hi: usize, rng: &mut bitext_core::Rng) -> String {
    let longest = hi.min(w.len() - 1);
    let k = lo + rng.below(longest - lo + 1);
    let at = rng.below(w.len() - k + 1);
    w[at..at + k].join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans are runs of a sentence's own words, within the lengths, never whole; short
    /// sentences give none; repeated sentences and spans count once; the same seed draws the
    /// same spans.
    #[test]
    fn spans_are_shorter_runs_of_each_distinct_sentence() {
        let long = "one two three four five six seven eight nine ten";
        let text = [long, "a b c d e", long, "x y z w v u"];
        let draw = |seed| spans(text, 3, 3..=5, &bitext_core::Rng::seed(seed)).unwrap();
        let got = draw(7);
        assert_eq!(got, draw(7));
        assert!(!got.is_empty() && got.len() <= 6, "{got:?}");
        for s in &got {
            let n = s.split(' ').count();
            assert!((3..=5).contains(&n), "{s}");
            assert!(
                long.contains(s.as_str()) || "x y z w v u".contains(s.as_str()),
                "{s}"
            );
        }
        let distinct: std::collections::HashSet<_> = got.iter().collect();
        assert_eq!(distinct.len(), got.len());
        // Six words and spans of at most five: "x y z w v u" gives spans, never itself.
        assert!(!got.iter().any(|s| s == "x y z w v u"));
        let e = spans(text, 1, 0..=3, &bitext_core::Rng::seed(1)).unwrap_err();
        assert!(e.to_string().contains("span lengths"), "{e}");
    }

    /// A sentence's spans depend on the seed and the sentence alone: the text around it and
    /// its place in the text change nothing, so cached teacher vectors of them serve a new
    /// split; another seed draws others. The same for a pair's.
    #[test]
    fn a_sentence_keeps_its_spans_whatever_the_text_around_it() {
        let a = "one two three four five six seven eight nine ten eleven twelve";
        let b = "un deux trois quatre cinq six sept huit neuf dix onze douze";
        let rng = bitext_core::Rng::seed(3);
        let draw = |text: &[&str], rng: &bitext_core::Rng| {
            spans(text.iter().copied(), 2, 3..=6, rng).unwrap()
        };
        let (alone_a, alone_b) = (draw(&[a], &rng), draw(&[b], &rng));
        assert_eq!(
            draw(&[a, b], &rng),
            [alone_a.clone(), alone_b.clone()].concat()
        );
        assert_eq!(draw(&[b, a], &rng), [alone_b, alone_a.clone()].concat());
        let others: Vec<_> = (0..8)
            .map(|s| draw(&[a], &bitext_core::Rng::seed(s)))
            .collect();
        assert!(others.iter().any(|o| *o != alone_a), "{others:?}");
        let s = |x: &str| x.to_string();
        let pairs = |src: &[String], tgt: &[String]| span_pairs(src, tgt, 2, 3..=6, &rng).unwrap();
        let (one_a, one_b) = pairs(&[s(a)], &[s(b)]);
        let (two_a, two_b) = pairs(&[s(b), s(a)], &[s(a), s(b)]);
        assert_eq!(
            (
                &two_a[two_a.len() - one_a.len()..],
                &two_b[two_b.len() - one_b.len()..]
            ),
            (&one_a[..], &one_b[..])
        );
    }

    /// Span pairs take each span from its own side of a distinct pair whose sides are both
    /// long enough, and are distinct; sides of different lengths are an error.
    #[test]
    fn span_pairs_take_each_span_from_its_own_side() {
        let s = |x: &str| x.to_string();
        let src = [
            s("eins zwei drei vier fünf sechs sieben acht"),
            s("kurz"),
            s("eins zwei drei vier fünf sechs sieben acht"),
            s("un deux trois quatre cinq six"),
        ];
        let tgt = [
            s("one two three four five six seven"),
            s("one two three four five six seven"),
            s("one two three four five six seven"),
            s("short"),
        ];
        let draw = |seed| span_pairs(&src, &tgt, 3, 3..=5, &bitext_core::Rng::seed(seed));
        let (a, b) = draw(5).unwrap();
        assert_eq!((a.clone(), b.clone()), draw(5).unwrap());
        // Only the first pair (repeated once) has two long sides: at most 3 span pairs.
        assert_eq!(a.len(), b.len());
        assert!(!a.is_empty() && a.len() <= 3, "{a:?}");
        let mut seen = std::collections::HashSet::new();
        for (x, y) in a.iter().zip(&b) {
            assert!(
                src[0].contains(x.as_str()) && tgt[0].contains(y.as_str()),
                "{x} / {y}"
            );
            assert!((3..=5).contains(&x.split(' ').count()), "{x}");
            assert!((3..=5).contains(&y.split(' ').count()), "{y}");
            assert!(seen.insert((x, y)), "{x} / {y} twice");
        }
        let e = span_pairs(&src, &tgt[..2], 1, 3..=5, &bitext_core::Rng::seed(1));
        assert!(e.unwrap_err().to_string().contains("4 source and 2 target"));
        let e = span_pairs(&src, &tgt, 1, 0..=3, &bitext_core::Rng::seed(1));
        assert!(e.unwrap_err().to_string().contains("span lengths"));
    }
}
