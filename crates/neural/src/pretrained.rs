//! Embedding tables initialised from bilingual word (or subword) embeddings, as every seed paper
//! does (Kim et al.: fastText + MUSE; the word-alignment paper: MUSE-aligned fastText) instead of
//! random numbers.
//!
//! A table row belongs to a token id of a model's tokenizer. [`table_from_vectors`] walks the
//! words of a `.vec` file, asks the tokenizer for each word's id ([`Tokenizer::token_to_id`]:
//! a word of a [`WordLevel`](bitext_tokenize::WordLevel) vocabulary, or a piece of a
//! sentencepiece model such as `▁Haus`) and copies the vector into that row. Rows that no word
//! of the file reaches (special tokens, words missing from the file) are drawn from the seeded
//! [`Rng`], uniform with the same root-mean-square value per entry as the copied rows, so they
//! start at the table's scale. [`InitReport`] counts both.
//!
//! When the model's embedding width is smaller than the file's, the vectors are projected onto
//! their top principal directions first ([`Pca`], subspace iteration on the covariance of the
//! file's vectors: deterministic, and the projection that keeps the most of their variance, so
//! nearest neighbours change least). A wider model is an error: padding vectors with noise
//! would only hide that the file cannot fill the table.

use std::path::PathBuf;

use bitext_core::Rng;
use bitext_core::io::vec::{WordVectors, read_vec};
use bitext_encode::Side;
use bitext_tokenize::Tokenizer;

use crate::error::{Error, Result};
use crate::text::TextCodec;

/// An embedding table (`[rows, dim]` row-major), which of its rows came from the vector files
/// (`true`) rather than from the random draw, and the report.
pub type FilledTable = (Vec<f32>, Vec<bool>, InitReport);

/// Which `.vec` files initialise a model's embedding tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorsInit {
    /// Vectors of the source language (of both, for one file in a shared space such as
    /// `usem.spm128k.vec`).
    pub source: PathBuf,
    /// Vectors of the target language; absent: `source` serves both sides.
    pub target: Option<PathBuf>,
    /// Read only the first `max_words` words of each file.
    pub max_words: Option<usize>,
}

impl VectorsInit {
    /// The source file's vectors and the target file's, when there is one.
    fn read(&self) -> Result<(WordVectors, Option<WordVectors>)> {
        let src = read_vec(&self.source, self.max_words)?;
        let tgt = self
            .target
            .as_ref()
            .map(|t| read_vec(t, self.max_words))
            .transpose()?;
        Ok((src, tgt))
    }

    /// The stacked table of a model with a source table and, unless `codec` shares one
    /// tokenizer, a target table below it (the layout of the siamese network): `[rows, dim]`
    /// row-major. A shared table takes each token's row from the source file, then what it
    /// lacks from the target file.
    ///
    /// # Errors
    /// A vector file that cannot be read (naming it and the line); as [`fill_rows`].
    pub fn stacked_table(
        &self,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<(Vec<f32>, InitReport)> {
        self.stacked_table_filled(codec, dim, rng)
            .map(|(table, _, report)| (table, report))
    }

    /// [`VectorsInit::stacked_table`], and which rows came from the files (`true`) rather
    /// than from the random draw.
    ///
    /// # Errors
    /// As [`VectorsInit::stacked_table`].
    pub fn stacked_table_filled(
        &self,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<FilledTable> {
        let (src, tgt) = self.read()?;
        let tgt = tgt.as_ref().unwrap_or(&src);
        let (vs, vt) = codec.vocab_sizes();
        let rows = if codec.shared() { vs } else { vs + vt };
        let mut table = vec![0f32; rows * dim];
        let mut filled = vec![false; rows];
        let mut report = if codec.shared() {
            let tok = codec.tokenizer(Side::Source);
            let a = fill_rows(tok, &src, dim, &mut table, &mut filled)?;
            if std::ptr::eq(tgt, &src) {
                a
            } else {
                fill_rows(tok, tgt, dim, &mut table, &mut filled)?
            }
        } else {
            let (top, bottom) = table.split_at_mut(vs * dim);
            let (ftop, fbottom) = filled.split_at_mut(vs);
            let a = fill_rows(codec.tokenizer(Side::Source), &src, dim, top, ftop)?;
            let b = fill_rows(codec.tokenizer(Side::Target), tgt, dim, bottom, fbottom)?;
            InitReport {
                rows,
                from_file: a.from_file + b.from_file,
                unused_words: a.unused_words + b.unused_words,
                ..a
            }
        };
        report.rows = rows;
        report.from_file = filled.iter().filter(|&&f| f).count();
        draw_missing(&mut table, &filled, dim, rng);
        Ok((table, filled, report))
    }
}

impl VectorsInit {
    /// One table per side for the tokenizers of `codec`, for models with one embedding table
    /// per language (the autoencoder's two encoders): `[vocab, dim]` row-major each. The
    /// source table takes each token's row from the source file first, the target table from
    /// the target file first; with a shared tokenizer each then fills what it lacks from the
    /// other file (a joint vocabulary holds words of both languages).
    ///
    /// # Errors
    /// As [`VectorsInit::stacked_table`].
    pub fn side_tables(
        &self,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<[(Vec<f32>, InitReport); 2]> {
        let [(a, _, ra), (b, _, rb)] = self.side_tables_filled(codec, dim, rng)?;
        Ok([(a, ra), (b, rb)])
    }

    /// [`VectorsInit::side_tables`], and for each table which rows came from the files.
    ///
    /// # Errors
    /// As [`VectorsInit::side_tables`].
    pub fn side_tables_filled(
        &self,
        codec: &TextCodec,
        dim: usize,
        rng: &mut Rng,
    ) -> Result<[FilledTable; 2]> {
        let (src, tgt) = self.read()?;
        let tgt = tgt.as_ref();
        let table = |side: Side, rng: &mut Rng| -> Result<FilledTable> {
            let tok = codec.tokenizer(side);
            let (own, other) = match (side, tgt) {
                (_, None) => (&src, None),
                (Side::Source, Some(t)) => (&src, codec.shared().then_some(t)),
                (Side::Target, Some(t)) => (t, codec.shared().then_some(&src)),
            };
            let rows = tok.vocab_size();
            let mut table = vec![0f32; rows * dim];
            let mut filled = vec![false; rows];
            let mut report = fill_rows(tok, own, dim, &mut table, &mut filled)?;
            if let Some(other) = other {
                fill_rows(tok, other, dim, &mut table, &mut filled)?;
                report.from_file = filled.iter().filter(|&&f| f).count();
            }
            draw_missing(&mut table, &filled, dim, rng);
            Ok((table, filled, report))
        };
        Ok([table(Side::Source, rng)?, table(Side::Target, rng)?])
    }
}

/// `table` (`[rows, dim]`) with `extra` rows appended, drawn at the table's scale as
/// [`draw_missing`] draws (e.g. a decoder's start symbol, which no vector file has).
#[must_use]
pub fn with_extra_rows(mut table: Vec<f32>, dim: usize, extra: usize, rng: &mut Rng) -> Vec<f32> {
    let rows = table.len() / dim.max(1);
    table.resize((rows + extra) * dim, 0.0);
    let mut filled = vec![true; rows + extra];
    filled[rows..].fill(false);
    draw_missing(&mut table, &filled, dim, rng);
    table
}

/// What [`table_from_vectors`] filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitReport {
    /// Rows of the table (the tokenizer's vocabulary size).
    pub rows: usize,
    /// Rows copied from the file.
    pub from_file: usize,
    /// Words of the file that the tokenizer has no id for (not part of the model's vocabulary).
    pub unused_words: usize,
    /// The file's vector width.
    pub file_dim: usize,
    /// The table's width (smaller than `file_dim` when the vectors were projected).
    pub dim: usize,
}

impl InitReport {
    /// Share of the table's rows that came from the file.
    #[must_use]
    pub fn coverage(&self) -> f64 {
        self.from_file as f64 / self.rows.max(1) as f64
    }
}

impl std::fmt::Display for InitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} rows ({:.1}%) from the vectors, {} drawn at random{}; {} words of the file \
             not in the vocabulary",
            self.from_file,
            self.rows,
            100.0 * self.coverage(),
            self.rows - self.from_file,
            if self.dim < self.file_dim {
                format!(
                    "; {}-d vectors projected on their top {} principal directions",
                    self.file_dim, self.dim
                )
            } else {
                String::new()
            },
            self.unused_words
        )
    }
}

/// A `[vocab_size, dim]` table (row-major) for the token ids of `tokenizer`, from `vectors`
/// (see the module docs). When several words of the file map to one id (a lowercased vocabulary
/// and a cased file), the first one wins, as `.vec` files list the most frequent word first.
///
/// # Errors
/// [`Error::Config`] when `dim` is 0 or larger than the file's width, or when no word of the
/// file is in the tokenizer's vocabulary (the file and the tokenizer do not belong together).
pub fn table_from_vectors(
    tokenizer: &dyn Tokenizer,
    vectors: &WordVectors,
    dim: usize,
    rng: &mut Rng,
) -> Result<(Vec<f32>, InitReport)> {
    let rows = tokenizer.vocab_size();
    let mut table = vec![0f32; rows * dim];
    let mut filled = vec![false; rows];
    let report = fill_rows(tokenizer, vectors, dim, &mut table, &mut filled)?;
    draw_missing(&mut table, &filled, dim, rng);
    Ok((table, report))
}

/// Copy the rows `vectors` has for `tokenizer`'s ids into `table` where `filled` is still false
/// (so a second file fills only what a first one left), projected to `dim` columns.
///
/// # Errors
/// As [`table_from_vectors`].
pub fn fill_rows(
    tokenizer: &dyn Tokenizer,
    vectors: &WordVectors,
    dim: usize,
    table: &mut [f32],
    filled: &mut [bool],
) -> Result<InitReport> {
    let file_dim = vectors.dim();
    if dim == 0 || dim > file_dim {
        return Err(Error::Config(format!(
            "cannot initialise {dim}-d embeddings from {file_dim}-d vectors (the model's \
             embedding size must be at least 1 and at most the vectors' width)"
        )));
    }
    let rows = filled.len();
    let ids: Vec<Option<usize>> = vectors
        .words()
        .iter()
        .map(|w| {
            tokenizer
                .token_to_id(w)
                .map(|id| id as usize)
                .filter(|&id| id < rows)
        })
        .collect();
    if ids.iter().all(Option::is_none) {
        return Err(Error::Config(format!(
            "none of the {} words of the vectors is in the tokenizer's vocabulary of {rows} \
             tokens",
            vectors.len()
        )));
    }
    let pca = (dim < file_dim).then(|| Pca::fit(vectors, dim));
    let mut report = InitReport {
        rows,
        from_file: 0,
        unused_words: ids.iter().filter(|i| i.is_none()).count(),
        file_dim,
        dim,
    };
    for (r, id) in ids.iter().enumerate() {
        let Some(id) = *id else { continue };
        if filled[id] {
            continue;
        }
        let v = vectors.vectors().row(r);
        let out = &mut table[id * dim..(id + 1) * dim];
        match &pca {
            Some(p) => p.project(v, out),
            None => out.copy_from_slice(v),
        }
        filled[id] = true;
    }
    report.from_file = filled.iter().filter(|&&f| f).count();
    Ok(report)
}

/// Draw the rows not `filled`: uniform in `±√3·rms`, `rms` the root-mean-square entry of the
/// filled rows (1/√dim when none is filled), so that they have the same scale.
pub fn draw_missing(table: &mut [f32], filled: &[bool], dim: usize, rng: &mut Rng) {
    let (mut sum, mut n) = (0f64, 0usize);
    for (row, _) in table.chunks(dim).zip(filled).filter(|(_, f)| **f) {
        sum += row
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>();
        n += dim;
    }
    let rms = if n == 0 {
        1.0 / (dim as f64).sqrt()
    } else {
        (sum / n as f64).sqrt()
    };
    let a = 3f64.sqrt() * rms;
    for (row, _) in table.chunks_mut(dim).zip(filled).filter(|(_, f)| !**f) {
        for x in row {
            *x = rng.uniform(-a, a) as f32;
        }
    }
}

/// The projection of vectors onto their top principal directions (centred).
#[derive(Debug, Clone)]
pub struct Pca {
    mean: Vec<f64>,
    /// `k` orthonormal directions of `d` values each, by decreasing variance.
    components: Vec<Vec<f64>>,
}

impl Pca {
    /// The top `k` principal directions of the rows of `vectors` (`k ≤ dim`), by subspace
    /// iteration on their covariance (60 rounds from a seeded start, Gram–Schmidt each round):
    /// deterministic for given vectors.
    #[must_use]
    pub fn fit(vectors: &WordVectors, k: usize) -> Self {
        let d = vectors.dim();
        let n = vectors.len().max(1) as f64;
        let mut mean = vec![0f64; d];
        for row in vectors.vectors().rows() {
            for (m, &x) in mean.iter_mut().zip(row) {
                *m += f64::from(x);
            }
        }
        mean.iter_mut().for_each(|m| *m /= n);
        let mut cov = vec![0f64; d * d];
        let mut c = vec![0f64; d];
        for row in vectors.vectors().rows() {
            for ((ci, &x), m) in c.iter_mut().zip(row).zip(&mean) {
                *ci = f64::from(x) - m;
            }
            for i in 0..d {
                let ci = c[i];
                for (v, cj) in cov[i * d..(i + 1) * d].iter_mut().zip(&c) {
                    *v += ci * cj;
                }
            }
        }
        let mut rng = Rng::seed(0x9ca);
        let mut q: Vec<Vec<f64>> = (0..k)
            .map(|_| (0..d).map(|_| rng.uniform(-1.0, 1.0)).collect())
            .collect();
        orthonormalise(&mut q);
        for _ in 0..60 {
            q = q
                .iter()
                .map(|v| (0..d).map(|i| dot(&cov[i * d..(i + 1) * d], v)).collect())
                .collect();
            orthonormalise(&mut q);
        }
        // Order by the variance along each direction (a Rayleigh quotient).
        let mut scored: Vec<(f64, Vec<f64>)> = q
            .into_iter()
            .map(|v| {
                let cv: Vec<f64> = (0..d).map(|i| dot(&cov[i * d..(i + 1) * d], &v)).collect();
                (dot(&cv, &v), v)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        Self {
            mean,
            components: scored.into_iter().map(|(_, v)| v).collect(),
        }
    }

    /// Project `v` (the fitted width) into `out` (`k` values).
    pub fn project(&self, v: &[f32], out: &mut [f32]) {
        for (o, comp) in out.iter_mut().zip(&self.components) {
            *o = comp
                .iter()
                .zip(v)
                .zip(&self.mean)
                .map(|((c, &x), m)| c * (f64::from(x) - m))
                .sum::<f64>() as f32;
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Modified Gram–Schmidt in place; a vector that vanishes is replaced by a unit axis not yet
/// spanned (degenerate data: fewer distinct vectors than directions asked).
fn orthonormalise(q: &mut [Vec<f64>]) {
    for i in 0..q.len() {
        for j in 0..i {
            let (done, rest) = q.split_at_mut(i);
            let p = dot(&rest[0], &done[j]);
            for (x, y) in rest[0].iter_mut().zip(&done[j]) {
                *x -= p * y;
            }
        }
        let norm = dot(&q[i], &q[i]).sqrt();
        if norm > 1e-12 {
            q[i].iter_mut().for_each(|x| *x /= norm);
        } else {
            let d = q[i].len();
            q[i] = (0..d).map(|a| f64::from(u8::from(a == i % d))).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_core::Embeddings;
    use bitext_tokenize::{SequenceConfig, Vocab, VocabBuilder, WordLevel, WordTokenizer};

    fn vocab_of(words: &[&str]) -> WordLevel {
        let mut counts = bitext_tokenize::TokenCounter::default();
        let tok = WordTokenizer::default();
        counts.add_texts(&tok, &[words.join(" ")]);
        let v: Vocab = VocabBuilder::new().build(&counts).unwrap();
        WordLevel::new(tok, v, SequenceConfig::default()).unwrap()
    }

    fn wv(words: &[&str], rows: &[Vec<f32>]) -> WordVectors {
        let d = rows[0].len();
        WordVectors::new(
            words.iter().map(|w| (*w).to_string()).collect(),
            Embeddings::from_rows(rows.iter().map(Vec::as_slice), d).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn known_tokens_get_their_vectors_and_the_rest_the_same_scale() {
        let tok = vocab_of(&["haus", "baum", "hund"]);
        let vectors = wv(
            &["baum", "katze", "haus"],
            &[
                vec![0.5, -1.0, 2.0],
                vec![9.0, 9.0, 9.0],
                vec![1.0, 2.0, 3.0],
            ],
        );
        let (table, report) = table_from_vectors(&tok, &vectors, 3, &mut Rng::seed(1)).unwrap();
        let row = |w: &str| {
            let id = tok.token_to_id(w).unwrap() as usize;
            &table[id * 3..id * 3 + 3]
        };
        assert_eq!(row("haus"), &[1.0, 2.0, 3.0]);
        assert_eq!(row("baum"), &[0.5, -1.0, 2.0]);
        assert_eq!(report.from_file, 2);
        assert_eq!(report.unused_words, 1);
        assert_eq!(report.rows, tok.vocab_size());
        // "hund" and the special tokens are drawn within ±√3·rms of the copied rows.
        let rms = ((1.0 + 4.0 + 9.0 + 0.25 + 1.0 + 4.0) / 6.0f64).sqrt();
        let hund = row("hund");
        assert!(hund.iter().all(|x| f64::from(x.abs()) <= 3f64.sqrt() * rms));
        assert!(hund.iter().any(|&x| x != 0.0));
        // Seeded: the same table again.
        let (again, _) = table_from_vectors(&tok, &vectors, 3, &mut Rng::seed(1)).unwrap();
        assert_eq!(table, again);
        assert!(report.to_string().contains("2 of"), "{report}");
    }

    #[test]
    fn a_second_file_fills_only_what_the_first_left() {
        let tok = vocab_of(&["haus", "house"]);
        let de = wv(&["haus", "house"], &[vec![1.0, 0.0], vec![5.0, 5.0]]);
        let en = wv(&["house", "haus"], &[vec![0.0, 1.0], vec![7.0, 7.0]]);
        let rows = tok.vocab_size();
        let mut table = vec![0f32; rows * 2];
        let mut filled = vec![false; rows];
        fill_rows(&tok, &de, 2, &mut table, &mut filled).unwrap();
        let r = fill_rows(&tok, &en, 2, &mut table, &mut filled).unwrap();
        let id = tok.token_to_id("house").unwrap() as usize;
        assert_eq!(&table[id * 2..id * 2 + 2], &[5.0, 5.0]);
        assert_eq!(r.from_file, 2);
    }

    #[test]
    fn projection_keeps_the_main_direction_and_bad_widths_fail() {
        // Points spread along (1, 1, 0) with a little noise on z: the first component is that
        // axis, so projections preserve the order of the points along it.
        let mut rng = Rng::seed(3);
        let words: Vec<String> = (0..50).map(|i| format!("w{i}")).collect();
        let rows: Vec<Vec<f32>> = (0..50)
            .map(|i| {
                let t = i as f32 / 10.0;
                vec![t, t, rng.uniform(-0.01, 0.01) as f32]
            })
            .collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let vectors = wv(&refs, &rows);
        let pca = Pca::fit(&vectors, 1);
        let mut out = [0f32; 1];
        let proj: Vec<f32> = rows
            .iter()
            .map(|r| {
                pca.project(r, &mut out);
                out[0]
            })
            .collect();
        let increasing = proj.windows(2).all(|w| w[1] > w[0]);
        let decreasing = proj.windows(2).all(|w| w[1] < w[0]);
        assert!(increasing || decreasing, "{proj:?}");
        let step = (proj[1] - proj[0]).abs();
        assert!((step - 0.1 * 2f32.sqrt()).abs() < 1e-3, "{step}");
        let tok = vocab_of(&refs);
        assert!(table_from_vectors(&tok, &vectors, 4, &mut Rng::seed(1)).is_err());
        assert!(table_from_vectors(&tok, &vectors, 0, &mut Rng::seed(1)).is_err());
        let (_, r) = table_from_vectors(&tok, &vectors, 2, &mut Rng::seed(1)).unwrap();
        assert_eq!((r.file_dim, r.dim, r.from_file), (3, 2, 50));
        let stranger = vocab_of(&["x", "y"]);
        assert!(table_from_vectors(&stranger, &vectors, 2, &mut Rng::seed(1)).is_err());
    }
}
