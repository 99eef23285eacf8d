//! Sentence alignment inside parallel documents, after vecalign (Thompson & Koehn 2019): a
//! monotonic dynamic programme over the two documents in order, with beads of up to
//! `max_size` sentences (every `x`-`y` with `x, y ≥ 1` and `x + y ≤ max_size`, plus 1-0 and
//! 0-1 deletions), over the embeddings of the concatenated sentences ([`Overlaps`], made by
//! any encoder from [`overlap_texts`]).
//!
//! - **Cost of a bead** of `x` source and `y` target sentences with vectors `u`, `w`, under
//!   [`DocScoring::Vecalign`] (the default): `2·x·y·(1 − u·w) / (n(u) + n(w))`, where `n(v)`
//!   is one minus the mean cosine of `v` to [`DocAlignConfig::norm_samples`] random overlaps
//!   of the other document: the cosine distance relative to how close `v` is to anything,
//!   scaled by the sentence counts.
//! - Under [`DocScoring::Margin`] a bead costs minus its margin, `(m(u) + m(w))/2 − u·w`,
//!   where `m(v)` is the mean cosine of `v` to its `k` nearest sentences of the other
//!   document (the margin of mining, Artetxe & Schwenk 2019, as a difference): the path
//!   maximises the sum of its beads' margins, each bead counting once whatever its size, as
//!   Bertalign (Liu & Zhu 2022) sums its beads' similarities. Better on Bleualign's dev
//!   document with USE-M (`cargo xtask eval docalign`: strict F1 0.85 against 0.79 with
//!   beads of up to 4, 0.90 against 0.81 up to 8), chiefly because a run of unrelated
//!   sentences (captions, OCR debris) is deleted where vecalign's costs absorb it into
//!   neighbouring beads; it splits beads whose parts translate each other roughly more often.
//! - **Deletion** (1-0, 0-1): a fixed penalty; under vecalign's scoring the
//!   [`DocAlignConfig::del_percentile`] quantile of the 1-1 costs of random sentence pairs,
//!   under the margin's [`DocScoring::MARGIN_DELETION`] (either replaced by
//!   [`DocAlignConfig::deletion_penalty`]).
//! - **Search**: documents whose product of lengths exceeds `max_full_dp²` are halved (the
//!   sum of neighbouring sentence vectors, centred, renormalised) until they fit, aligned 1-1
//!   there, and the path refined level by level in a band of `search_buffer` nodes around the
//!   coarse path: time and memory grow linearly with the documents.
//!
//! Differences from vecalign's code (under [`DocScoring::Vecalign`]), none of which changes a path where the band covers it:
//! the deletion penalty is an exact quantile (vecalign interpolates a 1000-bin histogram), no
//! literal `"PAD"` overlaps are embedded (the norm samples are drawn from real overlaps only),
//! and the band is per source node (vecalign draws a slanted path).

use bitext_core::Rng;
use bitext_core::io::beads::Bead;
use bitext_core::{Embeddings, normalize_row};

use crate::error::{Error, Result};

mod search;

use search::{Level, Side, solve};

/// How [`align_documents`] costs a bead of aligned sentences (see the module's notes).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum DocScoring {
    /// vecalign's: the cosine distance over the mean distance to random overlaps of the
    /// other document, times `2·x·y`; deletions at a quantile of random 1-1 costs. The
    /// default, reproducing vecalign.
    #[default]
    Vecalign,
    /// The margin: a bead scores its cosine minus the mean of its two vectors' mean cosines to
    /// their `neighbours` nearest sentences of the other document, and the path maximises
    /// the sum of its beads' scores, a deletion scoring −[`DocScoring::MARGIN_DELETION`].
    /// The nearest are searched among every sentence of the other document, or among a
    /// random `pool` of them (with `neighbours` scaled by `pool / len`) when it is longer:
    /// time grows as `len · min(len, pool)`.
    Margin {
        /// Nearest sentences each vector's mean cosine is taken over (8).
        neighbours: usize,
        /// Most sentences of the other document searched for them (2,000).
        pool: usize,
    },
}

impl DocScoring {
    /// What a deletion costs under [`DocScoring::Margin`] unless
    /// [`DocAlignConfig::deletion_penalty`] says otherwise: a sentence is left unaligned when
    /// joining it to a bead lowers the bead's margin by more than this (0.05; 0.03–0.07 give
    /// strict F1 0.88–0.90 on the dev document with USE-M and beads of up to 8).
    pub const MARGIN_DELETION: f64 = 0.05;

    /// The default neighbours of [`DocScoring::Margin`] (8; 8–32 give strict F1 0.89–0.90 on
    /// the dev document with USE-M and beads of up to 8, 1–2 far less).
    pub const MARGIN_NEIGHBOURS: usize = 8;

    /// The default pool of [`DocScoring::Margin`] (2,000 sentences).
    pub const MARGIN_POOL: usize = 2000;

    /// [`DocScoring::Margin`] with its defaults ([`DocScoring::MARGIN_NEIGHBOURS`],
    /// [`DocScoring::MARGIN_POOL`]).
    #[must_use]
    pub fn margin() -> Self {
        DocScoring::Margin {
            neighbours: Self::MARGIN_NEIGHBOURS,
            pool: Self::MARGIN_POOL,
        }
    }
}

/// Parameters of [`align_documents`]; [`Default`] is vecalign's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocAlignConfig {
    /// How beads are costed: vecalign's (the default) or the margin.
    pub scoring: DocScoring,
    /// Largest bead, in sentences of both sides (`x + y ≤ max_size`; vecalign's
    /// `alignment_max_size`, 4: 1-1, 1-2, 1-3, 2-1, 2-2, 3-1). [`Overlaps`] need
    /// `max_size − 1` layers.
    pub max_size: usize,
    /// Quantile of random 1-1 costs that a deletion costs (0.2), under
    /// [`DocScoring::Vecalign`].
    pub del_percentile: f64,
    /// A fixed deletion penalty instead of the quantile (vecalign) or
    /// [`DocScoring::MARGIN_DELETION`] (margin).
    pub deletion_penalty: Option<f64>,
    /// Random overlaps of the other document each vector's normaliser averages over (100),
    /// under [`DocScoring::Vecalign`].
    pub norm_samples: usize,
    /// Random sentence pairs the deletion quantile is taken over (20,000; every pair of
    /// shorter documents).
    pub cost_samples: usize,
    /// Nodes on each side of the coarse path the finer search considers (5).
    pub search_buffer: usize,
    /// Documents with `len_src · len_tgt ≤ max_full_dp²` are aligned by the full programme
    /// (300).
    pub max_full_dp: usize,
    /// Seed of the random samples.
    pub seed: u64,
}

impl Default for DocAlignConfig {
    fn default() -> Self {
        DocAlignConfig {
            scoring: DocScoring::Vecalign,
            max_size: 4,
            del_percentile: 0.2,
            deletion_penalty: None,
            norm_samples: 100,
            cost_samples: 20_000,
            search_buffer: 5,
            max_full_dp: 300,
            seed: 42,
        }
    }
}

impl DocAlignConfig {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] for `max_size < 2`, a percentile outside `[0, 1]`, a negative or
    /// non-finite penalty, no samples, `max_full_dp` 0, or a margin of no neighbours or pool.
    pub fn check(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Invalid(format!("document alignment: {m}")));
        if self.max_size < 2 {
            return bad("max_size must be at least 2 (1-1 beads)");
        }
        if !(0.0..=1.0).contains(&self.del_percentile) {
            return bad("del_percentile must be in [0, 1]");
        }
        if self
            .deletion_penalty
            .is_some_and(|p| !p.is_finite() || p < 0.0)
        {
            return bad("the deletion penalty must be a finite number ≥ 0");
        }
        if self.norm_samples == 0 || self.cost_samples == 0 || self.max_full_dp == 0 {
            return bad("norm_samples, cost_samples and max_full_dp must be at least 1");
        }
        if let DocScoring::Margin { neighbours, pool } = self.scoring
            && (neighbours == 0 || pool == 0)
        {
            return bad("the margin's neighbours and pool must be at least 1");
        }
        Ok(())
    }

    /// The bead shapes searched: `(x, y)` with `x, y ≥ 1`, `x + y ≤ max_size`, then 0-1 and
    /// 1-0.
    #[must_use]
    pub fn bead_types(&self) -> Vec<(usize, usize)> {
        let mut t = Vec::new();
        for x in 1..self.max_size {
            for y in 1..self.max_size {
                if x + y <= self.max_size {
                    t.push((x, y));
                }
            }
        }
        t.extend([(0, 1), (1, 0)]);
        t
    }
}

/// The texts to embed for a document of `sentences`: layer `k` (0-based) holds, for every
/// start `i`, sentences `i ..= i + k` joined by a space (`len − k` texts), for `k <
/// layers`. Sentences are trimmed, as vecalign does.
#[must_use]
pub fn overlap_texts<S: AsRef<str>>(sentences: &[S], layers: usize) -> Vec<Vec<String>> {
    let s: Vec<&str> = sentences.iter().map(|x| x.as_ref().trim()).collect();
    (0..layers)
        .map(|k| {
            (0..s.len().saturating_sub(k))
                .map(|i| s[i..=i + k].join(" "))
                .collect()
        })
        .collect()
}

/// The overlap embeddings of one document ([`overlap_texts`]'s layers embedded): layer `k` row
/// `i` is the vector of sentences `i ..= i + k`. Rows are L2-normalised here.
#[derive(Debug, Clone)]
pub struct Overlaps {
    /// `layers[k]`: `(len − k) × dim` values.
    layers: Vec<Vec<f32>>,
    len: usize,
    dim: usize,
}

impl Overlaps {
    /// The overlaps of a document of `layers[0].len()` sentences.
    ///
    /// # Errors
    /// [`Error::Invalid`] for no layer, a layer with another dimension or a row count other
    /// than `len − k`, or a non-finite value.
    pub fn new(layers: Vec<Embeddings>) -> Result<Self> {
        let Some(first) = layers.first() else {
            return Err(Error::Invalid("overlaps need at least one layer".into()));
        };
        let (len, dim) = (first.len(), first.dim());
        let mut out = Vec::with_capacity(layers.len());
        for (k, l) in layers.into_iter().enumerate() {
            if l.dim() != dim || l.len() != len.saturating_sub(k) {
                return Err(Error::Invalid(format!(
                    "overlap layer {} is {} × {}, expected {} × {dim} (a document of {len} \
                     sentences)",
                    k + 1,
                    l.len(),
                    l.dim(),
                    len.saturating_sub(k)
                )));
            }
            let mut v = l.as_slice().to_vec();
            if v.iter().any(|x| !x.is_finite()) {
                return Err(Error::Invalid(format!(
                    "overlap layer {} has a non-finite value",
                    k + 1
                )));
            }
            for r in v.chunks_mut(dim.max(1)) {
                normalize_row(r);
            }
            out.push(v);
        }
        Ok(Overlaps {
            layers: out,
            len,
            dim,
        })
    }

    /// The overlaps of the document `sentences` ([`overlap_texts`]), embedded by `encoder` as
    /// `side`: the one way the CLI and the evaluations make them.
    ///
    /// # Errors
    /// The encoder's errors; as [`Overlaps::new`].
    pub fn encode<S: AsRef<str>>(
        encoder: &dyn bitext_encode::SentenceEncoder,
        side: bitext_encode::Side,
        sentences: &[S],
        layers: usize,
    ) -> Result<Self> {
        let layers = overlap_texts(sentences, layers)
            .iter()
            .map(|texts| {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                encoder
                    .encode(side, &refs)
                    .map_err(|e| Error::Invalid(format!("embedding overlaps: {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Overlaps::new(layers)
    }

    /// Sentences in the document.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the document has no sentence.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Layers (the longest overlap, in sentences).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.layers.len()
    }
}

/// Align two documents: their beads in order, each with a score, lower for a better bead (0
/// for a deletion): under vecalign's scoring vecalign's (the bead's cost per sentence pair,
/// `cost / (x·y)`, at least 0), under the margin the bead's cost, minus its margin (negative
/// for a bead closer than its sentences' nearest neighbours on average).
///
/// # Errors
/// Invalid parameters ([`DocAlignConfig::check`]); overlaps of different dimensions or with
/// fewer than `max_size − 1` layers (where the document is that long).
pub fn align_documents(src: &Overlaps, tgt: &Overlaps, c: &DocAlignConfig) -> Result<Vec<Bead>> {
    c.check()?;
    if src.dim != tgt.dim {
        return Err(Error::Invalid(format!(
            "document alignment: source overlaps have {} dimensions, target overlaps {}",
            src.dim, tgt.dim
        )));
    }
    let need = c.max_size - 1;
    for (o, side) in [(src, "source"), (tgt, "target")] {
        if o.depth() < need.min(o.len) {
            return Err(Error::Invalid(format!(
                "document alignment: the {side} overlaps have {} layers; beads of up to {} \
                 sentences need {need}",
                o.depth(),
                c.max_size
            )));
        }
    }
    let (level, mut rng) = full_level(src, tgt, c)?;
    let path = solve(&level, c, &mut rng)?;
    let (mut i, mut j) = (0, 0);
    Ok(path
        .into_iter()
        .map(|(x, y)| {
            let score = match (x == 0 || y == 0, c.scoring) {
                (true, _) => 0.0,
                (false, DocScoring::Vecalign) => (level.cost(x, i, y, j) / (x * y) as f64).max(0.0),
                (false, DocScoring::Margin { .. }) => level.cost(x, i, y, j),
            };
            let bead = Bead {
                src: (i..i + x).collect(),
                tgt: (j..j + y).collect(),
                cost: Some(score),
            };
            i += x;
            j += y;
            bead
        })
        .collect())
}

/// The full programme's [`Level`] (normalised with samples drawn from `c.seed`), and the
/// generator to draw on from there.
fn full_level(src: &Overlaps, tgt: &Overlaps, c: &DocAlignConfig) -> Result<(Level, Rng)> {
    let need = c.max_size - 1;
    let mut rng = Rng::seed(c.seed);
    let level = Level::new(
        Side::from(src, need),
        Side::from(tgt, need),
        src.dim,
        c.bead_types(),
        c,
        &mut rng,
    )?;
    Ok((level, rng))
}

/// The total cost of `beads` (shapes in order) under the full programme's costs: what
/// [`align_documents`] minimises, for checking it against an exhaustive search.
///
/// # Errors
/// As [`align_documents`].
pub fn path_cost(
    src: &Overlaps,
    tgt: &Overlaps,
    c: &DocAlignConfig,
    beads: &[(usize, usize)],
) -> Result<f64> {
    c.check()?;
    let (level, _) = full_level(src, tgt, c)?;
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    for &(x, y) in beads {
        total += if x == 0 || y == 0 {
            level.penalty
        } else {
            level.cost(x, i, y, j)
        };
        i += x;
        j += y;
    }
    Ok(total)
}

#[cfg(test)]
#[path = "docalign_tests.rs"]
mod tests;
