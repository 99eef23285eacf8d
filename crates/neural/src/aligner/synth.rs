//! Synthetic training and test examples with word-level labels (§3.1), generated on the fly
//! from a parallel corpus with a seeded [`Rng`]:
//!
//! - **paired** (`P`): a pair of the corpus, every word parallel (`−1`);
//! - **unpaired** (`U`): a source sentence with the target of another pair, every word
//!   divergent (`+1`);
//! - **replace** (`R`): a random span of one side (1 to 3 words, at most half the sentence)
//!   replaced by a span of another sentence of that language with the same sequence of word
//!   classes; the changed words are divergent, and so are the words of the other side that the
//!   symmetrised IBM-1 alignment links to them;
//! - **insert** (`I`): another sentence of that language added at the start or the end of one
//!   side; the inserted words are divergent.
//!
//! **Word classes instead of part-of-speech tags.** The paper replaces a span by one with the
//! same POS sequence so that the result stays grammatical; bitext has no tagger. Each token gets
//! one of five classes, [`WordClass`]: punctuation, number, capitalised, frequent (the 100 most
//! frequent lower-case tokens of that side of the corpus: articles, prepositions, pronouns,
//! auxiliaries — closed-class words, in effect) and other (open-class words). A replacement keeps
//! the class sequence, hence function words for function words and content words for content
//! words, and it must change at least one word that is not punctuation. Replaced positions whose
//! token happens to be unchanged stay parallel.
//!
//! Negatives pass the paper's length filter: the longer side at most 2.0 times the shorter, or
//! 3.0 times when the shorter has at most 4 words. A generator that cannot satisfy it (or find a
//! matching span) for a pair within its tries moves on to another pair.

use std::ops::Range;

use bitext_core::Rng;
use serde::{Deserialize, Serialize};

use crate::aligner::classes::WordClass;
use crate::error::{Error, Result};

/// A kind of synthetic example.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Kind {
    /// A parallel pair.
    Paired,
    /// Two unrelated sentences.
    Unpaired,
    /// A pair with a span of one side replaced.
    Replace,
    /// A pair with a sentence inserted at the start or end of one side.
    Insert,
}

impl Kind {
    /// All kinds, in the paper's order.
    pub const ALL: [Kind; 4] = [Kind::Paired, Kind::Unpaired, Kind::Replace, Kind::Insert];

    /// The paper's letter.
    #[must_use]
    pub fn letter(self) -> char {
        match self {
            Kind::Paired => 'P',
            Kind::Unpaired => 'U',
            Kind::Replace => 'R',
            Kind::Insert => 'I',
        }
    }

    /// Kinds named by letters, e.g. `"PURI"` or `"P+U+R"` (`P` is implied: every training set
    /// has paired examples).
    ///
    /// # Errors
    /// [`Error::Config`] for another letter.
    pub fn parse_set(s: &str) -> Result<Vec<Kind>> {
        let mut kinds = vec![Kind::Paired];
        for c in s.chars().filter(|c| !matches!(c, '+' | ',' | ' ')) {
            let k = match c.to_ascii_uppercase() {
                'P' => Kind::Paired,
                'U' => Kind::Unpaired,
                'R' => Kind::Replace,
                'I' => Kind::Insert,
                other => {
                    return Err(Error::Config(format!(
                        "unknown kind of example {other:?} in {s:?} (expected P, U, R, I)"
                    )));
                }
            };
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        kinds.sort();
        Ok(kinds)
    }

    /// Letters of a set of kinds, e.g. `"PURI"`.
    #[must_use]
    pub fn set_name(kinds: &[Kind]) -> String {
        kinds.iter().map(|k| k.letter()).collect()
    }
}

/// One labelled example: `−1` marks a parallel word, `+1` a divergent one.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// How it was made.
    pub kind: Kind,
    /// The corpus pair it was made from.
    pub pair: usize,
    /// Source token ids.
    pub src: Vec<u32>,
    /// Target token ids.
    pub tgt: Vec<u32>,
    /// A label per source token.
    pub src_labels: Vec<f32>,
    /// A label per target token.
    pub tgt_labels: Vec<f32>,
    /// Where the original pair sits in a paired or insert example (the answer divergence
    /// fixing should find); `None` for the other kinds.
    pub origin: Option<(Range<usize>, Range<usize>)>,
}

impl Example {
    /// The pair's label: `−1` for a paired example, `+1` for any negative.
    #[must_use]
    pub fn label(&self) -> f32 {
        if self.kind == Kind::Paired { -1.0 } else { 1.0 }
    }
}

/// A tokenized parallel corpus with the symmetrised word alignment of each pair and the word
/// classes of both vocabularies.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Source sentences (token ids, none empty).
    pub src: Vec<Vec<u32>>,
    /// Target sentences.
    pub tgt: Vec<Vec<u32>>,
    /// Links `(source position, target position)` of each pair.
    pub links: Vec<Vec<(usize, usize)>>,
    /// Class of each source token id.
    pub src_classes: Vec<WordClass>,
    /// Class of each target token id.
    pub tgt_classes: Vec<WordClass>,
}

crate::encoding::pair_count!(Corpus);

impl Corpus {
    /// Check the corpus: sides and links of one length, no empty sentence, links and ids
    /// inside their sentences and class tables.
    ///
    /// # Errors
    /// [`Error::Input`] naming the first bad pair.
    pub fn check(&self) -> Result<()> {
        if self.src.len() != self.tgt.len() || self.src.len() != self.links.len() {
            return Err(Error::Input(format!(
                "{} source sentences, {} target sentences and {} alignments",
                self.src.len(),
                self.tgt.len(),
                self.links.len()
            )));
        }
        if self.src.len() < 2 {
            return Err(Error::Input(
                "synthetic examples need at least 2 pairs".into(),
            ));
        }
        for (k, ((s, t), links)) in self.src.iter().zip(&self.tgt).zip(&self.links).enumerate() {
            if s.is_empty() || t.is_empty() {
                return Err(Error::Input(format!("pair {k} has an empty side")));
            }
            if let Some(&(i, j)) = links.iter().find(|&&(i, j)| i >= s.len() || j >= t.len()) {
                return Err(Error::Input(format!(
                    "pair {k} has the link ({i}, {j}) outside its {} × {} words",
                    s.len(),
                    t.len()
                )));
            }
            let bad = |ids: &[u32], n: usize| ids.iter().any(|&id| id as usize >= n);
            if bad(s, self.src_classes.len()) || bad(t, self.tgt_classes.len()) {
                return Err(Error::Input(format!(
                    "pair {k} has a token id without a word class"
                )));
            }
        }
        Ok(())
    }
}

/// The paper's length filter on negatives (see the module docs).
#[must_use]
pub fn length_ok(a: usize, b: usize) -> bool {
    let (short, long) = (a.min(b).max(1), a.max(b));
    let ratio = long as f64 / short as f64;
    ratio <= 2.0 || (short <= 4 && ratio <= 3.0)
}

/// Most pairs one draw tries before giving up on an example.
const TRIES: usize = 64;

/// The example generator over a [`Corpus`].
#[derive(Debug)]
pub struct Synthesizer<'a> {
    corpus: &'a Corpus,
}

impl<'a> Synthesizer<'a> {
    /// A generator over `corpus` (checked).
    ///
    /// # Errors
    /// As [`Corpus::check`].
    pub fn new(corpus: &'a Corpus) -> Result<Self> {
        corpus.check()?;
        Ok(Self { corpus })
    }

    /// For each kind in `kinds`, `per_kind` examples from pairs drawn at random (a kind that
    /// cannot be made from a drawn pair is retried with others), in random order.
    ///
    /// # Errors
    /// [`Error::Input`] when a kind cannot be made from any of many drawn pairs.
    pub fn epoch(&self, kinds: &[Kind], per_kind: usize, rng: &mut Rng) -> Result<Vec<Example>> {
        let mut out = Vec::with_capacity(kinds.len() * per_kind);
        for &kind in kinds {
            for _ in 0..per_kind {
                out.push(self.draw(kind, rng)?);
            }
        }
        rng.shuffle(&mut out);
        Ok(out)
    }

    /// One example of `kind` from a random pair.
    ///
    /// # Errors
    /// As [`Synthesizer::epoch`].
    pub fn draw(&self, kind: Kind, rng: &mut Rng) -> Result<Example> {
        let n = self.corpus.len();
        for _ in 0..TRIES * 4 {
            let pair = rng.below(n);
            if let Some(e) = self.make(kind, pair, rng) {
                return Ok(e);
            }
        }
        Err(Error::Input(format!(
            "no {kind:?} example could be made from {} drawn pairs (sentences too short or \
             lengths too different?)",
            TRIES * 4
        )))
    }

    /// An example of `kind` from pair `pair`, or `None` when the draws for it fail.
    #[must_use]
    pub fn make(&self, kind: Kind, pair: usize, rng: &mut Rng) -> Option<Example> {
        let c = self.corpus;
        let (s, t) = (&c.src[pair], &c.tgt[pair]);
        match kind {
            Kind::Paired => Some(Example {
                kind,
                pair,
                src: s.clone(),
                tgt: t.clone(),
                src_labels: vec![-1.0; s.len()],
                tgt_labels: vec![-1.0; t.len()],
                origin: Some((0..s.len(), 0..t.len())),
            }),
            Kind::Unpaired => {
                for _ in 0..TRIES {
                    let other = rng.below(c.len());
                    let u = &c.tgt[other];
                    if other == pair || u == t || !length_ok(s.len(), u.len()) {
                        continue;
                    }
                    return Some(Example {
                        kind,
                        pair,
                        src: s.clone(),
                        tgt: u.clone(),
                        src_labels: vec![1.0; s.len()],
                        tgt_labels: vec![1.0; u.len()],
                        origin: None,
                    });
                }
                None
            }
            Kind::Replace => self.replace(pair, rng.below(2) == 0, rng),
            Kind::Insert => self.insert(pair, rng.below(2) == 0, rng.below(2) == 0, rng),
        }
    }

    /// Sentences, classes and the links (as `(this side, other side)`) of one side.
    fn side(&self, source: bool) -> (&[Vec<u32>], &[WordClass]) {
        let c = self.corpus;
        if source {
            (&c.src, &c.src_classes)
        } else {
            (&c.tgt, &c.tgt_classes)
        }
    }

    fn replace(&self, pair: usize, source: bool, rng: &mut Rng) -> Option<Example> {
        let (sents, classes) = self.side(source);
        let x = &sents[pair];
        let max_span = (x.len() / 2).clamp(1, 3);
        let len = 1 + rng.below(max_span);
        if len > x.len() {
            return None;
        }
        let start = rng.below(x.len() - len + 1);
        let want: Vec<WordClass> = x[start..start + len]
            .iter()
            .map(|&id| classes[id as usize])
            .collect();
        if want.iter().all(|&c| c == WordClass::Punctuation) {
            return None;
        }
        for _ in 0..TRIES {
            let donor = rng.below(sents.len());
            let d = &sents[donor];
            if donor == pair || d.len() < len {
                continue;
            }
            // A window of the donor with the same classes, scanning from a random offset.
            let windows = d.len() - len + 1;
            let off = rng.below(windows);
            for w in (0..windows).map(|k| (k + off) % windows) {
                let cand = &d[w..w + len];
                let same = cand
                    .iter()
                    .zip(&want)
                    .all(|(&id, &c)| classes[id as usize] == c);
                let changes = cand
                    .iter()
                    .zip(&x[start..start + len])
                    .any(|(&a, &b)| a != b && classes[a as usize] != WordClass::Punctuation);
                if same && changes {
                    return Some(self.replaced(pair, source, start, cand));
                }
            }
        }
        None
    }

    fn replaced(&self, pair: usize, source: bool, start: usize, new: &[u32]) -> Example {
        let c = self.corpus;
        let (mut x, y) = if source {
            (c.src[pair].clone(), &c.tgt[pair])
        } else {
            (c.tgt[pair].clone(), &c.src[pair])
        };
        let mut xl = vec![-1.0; x.len()];
        let mut yl = vec![-1.0; y.len()];
        for (k, &id) in new.iter().enumerate() {
            let p = start + k;
            if x[p] != id {
                x[p] = id;
                xl[p] = 1.0;
                for &(i, j) in &c.links[pair] {
                    let (this, other) = if source { (i, j) } else { (j, i) };
                    if this == p {
                        yl[other] = 1.0;
                    }
                }
            }
        }
        let (src, tgt, src_labels, tgt_labels) = if source {
            (x, y.clone(), xl, yl)
        } else {
            (y.clone(), x, yl, xl)
        };
        Example {
            kind: Kind::Replace,
            pair,
            src,
            tgt,
            src_labels,
            tgt_labels,
            origin: None,
        }
    }

    fn insert(&self, pair: usize, source: bool, at_start: bool, rng: &mut Rng) -> Option<Example> {
        let c = self.corpus;
        let (sents, _) = self.side(source);
        let (x, y) = if source {
            (&c.src[pair], &c.tgt[pair])
        } else {
            (&c.tgt[pair], &c.src[pair])
        };
        for _ in 0..TRIES {
            let donor = rng.below(sents.len());
            let d = &sents[donor];
            if donor == pair || !length_ok(x.len() + d.len(), y.len()) {
                continue;
            }
            let (new, kept): (Vec<u32>, Range<usize>) = if at_start {
                (
                    d.iter().chain(x).copied().collect(),
                    d.len()..d.len() + x.len(),
                )
            } else {
                (x.iter().chain(d).copied().collect(), 0..x.len())
            };
            let mut xl = vec![1.0; new.len()];
            xl[kept.clone()].fill(-1.0);
            let yl = vec![-1.0; y.len()];
            let full = 0..y.len();
            let (src, tgt, src_labels, tgt_labels, origin) = if source {
                (new, y.clone(), xl, yl, (kept, full))
            } else {
                (y.clone(), new, yl, xl, (full, kept))
            };
            return Some(Example {
                kind: Kind::Insert,
                pair,
                src,
                tgt,
                src_labels,
                tgt_labels,
                origin: Some(origin),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        // ids: 0 "." 1 "the" 2 "house" 3 "is" 4 "big" 5 "a" 6 "dog" 7 "runs" 8 "Paris"
        let pieces: Vec<String> = [
            ".", "the", "house", "is", "big", "a", "dog", "runs", "Paris",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        let src = vec![vec![1, 2, 3, 4, 0], vec![5, 6, 7, 0], vec![8, 3, 4, 0]];
        let tgt = src.clone();
        let links = src
            .iter()
            .map(|s| (0..s.len()).map(|i| (i, i)).collect())
            .collect();
        let classes = WordClass::table(&pieces, &src, 2);
        Corpus {
            src,
            tgt,
            links,
            src_classes: classes.clone(),
            tgt_classes: classes,
        }
    }

    #[test]
    fn classes_and_kind_sets() {
        let c = corpus();
        // "is" and "big" occur twice: the two most frequent other words.
        assert_eq!(c.src_classes[3], WordClass::Frequent);
        assert_eq!(c.src_classes[4], WordClass::Frequent);
        assert_eq!(c.src_classes[2], WordClass::Other);
        assert_eq!(
            Kind::parse_set("U+R").unwrap(),
            vec![Kind::Paired, Kind::Unpaired, Kind::Replace]
        );
        assert_eq!(Kind::set_name(&Kind::parse_set("iurp").unwrap()), "PURI");
        assert!(Kind::parse_set("X").is_err());
    }

    #[test]
    fn length_filter() {
        assert!(length_ok(10, 20) && !length_ok(10, 21));
        assert!(length_ok(4, 12) && !length_ok(4, 13) && !length_ok(5, 11));
    }

    #[test]
    fn paired_unpaired_and_insert_labels() {
        let c = corpus();
        let g = Synthesizer::new(&c).unwrap();
        let mut rng = Rng::seed(3);
        let p = g.make(Kind::Paired, 0, &mut rng).unwrap();
        assert_eq!(p.src_labels, vec![-1.0; 5]);
        assert_eq!((p.label(), p.origin.clone()), (-1.0, Some((0..5, 0..5))));
        let u = g.make(Kind::Unpaired, 0, &mut rng).unwrap();
        assert!(u.src_labels.iter().chain(&u.tgt_labels).all(|&l| l == 1.0));
        assert_ne!(u.tgt, c.tgt[0]);
        assert_eq!(u.label(), 1.0);
        // Insert at the end of the target of pair 2 ("Paris is big ."): 4 + 4 or 4 + 5 words.
        let i = g.insert(2, false, false, &mut rng).unwrap();
        assert_eq!(&i.tgt[..4], &c.tgt[2][..]);
        assert_eq!(i.tgt_labels[..4], [-1.0; 4]);
        assert!(i.tgt_labels[4..].iter().all(|&l| l == 1.0));
        assert_eq!(i.src_labels, vec![-1.0; 4]);
        assert_eq!(i.origin, Some((0..4, 0..4)));
        let j = g.insert(2, true, true, &mut rng).unwrap();
        let n = j.src.len() - 4;
        assert_eq!(&j.src[n..], &c.src[2][..]);
        assert_eq!(j.origin, Some((n..n + 4, 0..4)));
    }

    #[test]
    fn replace_keeps_classes_and_labels_the_aligned_words() {
        let mut c = corpus();
        // Pair 0: "the house is big ." with a crossed alignment on the target side.
        c.links[0] = vec![(0, 0), (1, 3), (2, 2), (3, 1), (4, 4)];
        let g = Synthesizer::new(&c).unwrap();
        for seed in 0..50 {
            let mut rng = Rng::seed(seed);
            let Some(e) = g.replace(0, true, &mut rng) else {
                continue;
            };
            for (p, (&new, &old)) in e.src.iter().zip(&c.src[0]).enumerate() {
                assert_eq!(c.src_classes[new as usize], c.src_classes[old as usize]);
                let changed = new != old;
                assert_eq!(e.src_labels[p], if changed { 1.0 } else { -1.0 });
                let linked = c.links[0].iter().find(|l| l.0 == p).unwrap().1;
                if changed {
                    assert_eq!(e.tgt_labels[linked], 1.0, "seed {seed}");
                }
            }
            assert_eq!(e.tgt, c.tgt[0]);
            let divergent_tgt = e.tgt_labels.iter().filter(|&&l| l == 1.0).count();
            let divergent_src = e.src_labels.iter().filter(|&&l| l == 1.0).count();
            assert_eq!(divergent_src, divergent_tgt, "one-to-one links");
            assert!(divergent_src >= 1);
        }
    }

    #[test]
    fn epochs_are_balanced_and_seeded() {
        let c = corpus();
        let g = Synthesizer::new(&c).unwrap();
        let kinds = Kind::parse_set("PURI").unwrap();
        let a = g.epoch(&kinds, 5, &mut Rng::seed(9)).unwrap();
        let b = g.epoch(&kinds, 5, &mut Rng::seed(9)).unwrap();
        assert_eq!(a, b);
        for k in kinds {
            assert_eq!(a.iter().filter(|e| e.kind == k).count(), 5);
        }
        for e in &a {
            if e.kind != Kind::Paired {
                assert!(length_ok(e.src.len(), e.tgt.len()));
            }
        }
    }
}
