//! The [`SentenceEncoder`] conformance suite:
//! [`sentence_encoder_suite!`](crate::sentence_encoder_suite) expands to one `#[test]` per check
//! below for one encoder, made by an expression. Encoders under test must know the words of
//! [`parallel_text`] (`a0 … a19` on the source side, `b0 … b19` on the target side).
//!
//! Checked: one finite row of `dim` per sentence on both sides, nothing for no sentences; a
//! sentence's row does not depend on the batch it is in (alone, in small batches, in one
//! batch); progress counts sentences; determinism and use from many threads; an empty or
//! unknown sentence is an error (naming its position among all sentences) or a finite row,
//! never a panic; references, boxes and `Arc`s forward; optionally, translations are each
//! other's nearest neighbours by cosine.

use std::sync::Arc;

use bitext_core::Embeddings;
use bitext_encode::{Error, Result, SentenceEncoder, Side};

use crate::data::parallel_text;

/// What the suite expects of an encoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// Largest difference allowed between a sentence's row encoded alone and in a batch (0:
    /// identical; batched float kernels may round differently).
    pub tolerance: f32,
    /// When set, the least share of source sentences whose translation is their nearest target
    /// by cosine (an encoder meant to align translations); when `None` that check only checks
    /// that the cosines are finite.
    pub retrieval: Option<f64>,
}

impl Expect {
    /// Rows identical however sentences are batched.
    #[must_use]
    pub const fn exact() -> Self {
        Self {
            tolerance: 0.0,
            retrieval: None,
        }
    }

    /// Rows within `tolerance` however sentences are batched.
    #[must_use]
    pub const fn within(tolerance: f32) -> Self {
        Self {
            tolerance,
            retrieval: None,
        }
    }

    /// The same, and translations retrieved by cosine for at least `min` of the sources.
    #[must_use]
    pub const fn retrieving(self, min: f64) -> Self {
        Self {
            retrieval: Some(min),
            ..self
        }
    }
}

/// An encoder seen through batches of at most `size` sentences (so that the provided
/// [`SentenceEncoder::encode`] splits its input).
struct SmallBatches<'a, E: ?Sized> {
    inner: &'a E,
    size: usize,
}

impl<E: SentenceEncoder + ?Sized> SentenceEncoder for SmallBatches<'_, E> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn encode_batch(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        self.inner.encode_batch(side, sentences)
    }
    fn batch_size(&self) -> usize {
        self.size
    }
}

/// The suite's sentences: 24 source sentences and their translations.
fn corpus() -> (Vec<String>, Vec<String>) {
    parallel_text(24, 5)
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn assert_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol, "{what}: {x} vs {y}");
    }
}

/// One finite row of `dim` per sentence, on both sides; no sentences give no rows.
pub fn one_row_per_sentence<E: SentenceEncoder>(make: impl Fn() -> E, _e: Expect) {
    let enc = make();
    assert!(enc.dim() > 0);
    let (src, tgt) = corpus();
    for (side, s) in [(Side::Source, &src), (Side::Target, &tgt)] {
        let m = enc.encode(side, &refs(s)).unwrap();
        assert_eq!((m.len(), m.dim()), (s.len(), enc.dim()), "{side}");
        m.check_finite().unwrap();
        let m = enc.encode_batch(side, &refs(s)).unwrap();
        assert_eq!((m.len(), m.dim()), (s.len(), enc.dim()), "{side}");
        let none = enc.encode(side, &[]).unwrap();
        assert_eq!((none.len(), none.dim()), (0, enc.dim()));
    }
}

/// A sentence's row is the same alone, in batches of 2 and 5, and in one batch (within the
/// tolerance); progress counts the sentences done, increasing, up to all of them.
pub fn batching_does_not_change_rows<E: SentenceEncoder>(make: impl Fn() -> E, e: Expect) {
    let enc = make();
    let (src, tgt) = corpus();
    for (side, s) in [(Side::Source, refs(&src)), (Side::Target, refs(&tgt))] {
        let all = enc.encode_batch(side, &s).unwrap();
        for (i, x) in s.iter().enumerate() {
            let one = enc.encode_batch(side, &[x]).unwrap();
            assert_close(one.row(0), all.row(i), e.tolerance, &format!("{side} {i}"));
        }
        for size in [2, 5] {
            let small = SmallBatches { inner: &enc, size };
            let mut seen = Vec::new();
            let got = small
                .encode_with_progress(side, &s, &mut |n| seen.push(n))
                .unwrap();
            assert_close(got.as_slice(), all.as_slice(), e.tolerance, "small batches");
            assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
            assert_eq!(seen.last(), Some(&s.len()));
        }
    }
}

/// Encoding twice, and from several threads at once, gives identical rows.
pub fn deterministic_across_threads<E: SentenceEncoder>(make: impl Fn() -> E, _e: Expect) {
    let enc = make();
    let (src, _) = corpus();
    let s = refs(&src);
    let want = enc.encode(Side::Source, &s).unwrap();
    assert_eq!(enc.encode(Side::Source, &s).unwrap(), want);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|_| scope.spawn(|| enc.encode(Side::Source, &s).unwrap()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), want);
        }
    });
}

/// An empty sentence, or one of unknown words only, at position 5 of 7 (in batches of 2) is
/// either an error or a finite row; an error that names a sentence ([`Error::NoKnownWord`],
/// [`Error::NoToken`]) names position 5.
pub fn unencodable_sentences_are_errors_or_rows<E: SentenceEncoder>(
    make: impl Fn() -> E,
    _e: Expect,
) {
    let enc = make();
    let small = SmallBatches {
        inner: &enc,
        size: 2,
    };
    let (src, tgt) = corpus();
    for (side, s) in [(Side::Source, &src), (Side::Target, &tgt)] {
        for bad in ["", "   ", "zzz qqq"] {
            let mut s = refs(&s[..7]);
            s[5] = bad;
            match small.encode(side, &s) {
                Ok(m) => {
                    assert_eq!(m.len(), 7);
                    m.check_finite().unwrap();
                }
                Err(Error::NoKnownWord { index, .. } | Error::NoToken { index, .. }) => {
                    assert_eq!(index, 5, "{bad:?}");
                }
                Err(other) => assert!(!other.to_string().is_empty()),
            }
        }
    }
}

/// References, boxes and `Arc`s of the encoder encode as it does.
pub fn forwards_through_pointers<E: SentenceEncoder + 'static>(make: impl Fn() -> E, _e: Expect) {
    fn generic<E: SentenceEncoder>(e: E, s: &[&str]) -> Embeddings {
        e.encode(Side::Target, s).unwrap()
    }
    let enc = make();
    let (_, tgt) = corpus();
    let s = refs(&tgt);
    let want = enc.encode(Side::Target, &s).unwrap();
    let by_ref: &dyn SentenceEncoder = &enc;
    assert_eq!(generic(by_ref, &s), want);
    let boxed: Box<dyn SentenceEncoder> = Box::new(make());
    assert_eq!(generic(&boxed, &s), want);
    assert_eq!(generic(boxed, &s), want);
    let arc: Arc<dyn SentenceEncoder> = Arc::new(make());
    assert_eq!(generic(Arc::clone(&arc), &s), want);
    assert_eq!((arc.dim(), arc.batch_size()), (enc.dim(), enc.batch_size()));
}

/// Cosines between source and target rows are finite (a zero row has cosine 0); with
/// [`Expect::retrieval`], enough sources have their translation as nearest target.
pub fn translations_are_nearest<E: SentenceEncoder>(make: impl Fn() -> E, e: Expect) {
    let enc = make();
    let (src, tgt) = parallel_text(30, 7);
    let x = enc.encode(Side::Source, &refs(&src)).unwrap();
    let y = enc.encode(Side::Target, &refs(&tgt)).unwrap();
    let cos = |a: &[f32], b: &[f32]| {
        let dot: f64 = a
            .iter()
            .zip(b)
            .map(|(p, q)| f64::from(*p) * f64::from(*q))
            .sum();
        let n = |v: &[f32]| v.iter().map(|p| f64::from(*p).powi(2)).sum::<f64>().sqrt();
        let d = n(a) * n(b);
        if d > 0.0 { dot / d } else { 0.0 }
    };
    let mut hits = 0;
    for i in 0..x.len() {
        let sims: Vec<f64> = y.rows().map(|t| cos(x.row(i), t)).collect();
        assert!(sims.iter().all(|v| v.is_finite()), "{sims:?}");
        let best = (0..sims.len())
            .max_by(|&a, &b| sims[a].total_cmp(&sims[b]).then(b.cmp(&a)))
            .unwrap();
        // Identical target sentences are equally good answers.
        if tgt[best] == tgt[i] {
            hits += 1;
        }
    }
    if let Some(min) = e.retrieval {
        let acc = f64::from(hits) / x.len() as f64;
        assert!(acc >= min, "translation retrieval {acc:.3} < {min}");
    }
}

/// The [`SentenceEncoder`] conformance suite for one encoder: a module `$name` with one
/// `#[test]` per check of [`bitext_testkit::encoder`](crate::encoder).
///
/// `$make` is an expression that makes the encoder (evaluated once or more per test) and
/// `$expect` an [`Expect`]; items of the calling module are in scope.
///
/// ```ignore
/// bitext_testkit::sentence_encoder_suite!(bow_mean, builder().build().unwrap(), Expect::exact());
/// ```
#[macro_export]
macro_rules! sentence_encoder_suite {
    ($name:ident, $make:expr, $expect:expr $(,)?) => {
        $crate::__suite! { $name, encoder, (|| $make, $expect), [
            one_row_per_sentence, batching_does_not_change_rows,
            deterministic_across_threads, unencodable_sentences_are_errors_or_rows,
            forwards_through_pointers, translations_are_nearest
        ] }
    };
}
