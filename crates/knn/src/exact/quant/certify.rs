//! The certified re-rank: candidates of a reduced-precision scan re-scored in `f32`, a proof per
//! query that nothing outside them reaches the top k, a wider scan where the proof fails, and
//! the `f32` search where it fails again. See the parent module for the bound.

use std::fmt;

use bitext_core::{Embeddings, EmbeddingsView};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Distinct, Norms, Precision, QuantDb, norms_of_row};
use crate::error::{Error, Result};
use crate::exact::kernel::dot_many;
use crate::exact::rows::Rows;
use crate::exact::search::Search;
use crate::index::{Neighbors, ranks_before};

/// How many queries (or database rows, for the backward lists of a both-ways search) the
/// certificate covered, and how the others were made exact. The result is exact either way;
/// many widened or fallen-back queries mean the data defeat the method (near-ties, vectors
/// of very different norms) and the scan's precision buys nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Certification {
    /// Precision of the scan.
    pub precision: Precision,
    /// Precision the search was asked for (`Auto`, or an explicit one that this CPU runs in
    /// `f32`: [`Precision::resolve`]).
    #[serde(default)]
    pub requested: Precision,
    /// The micro-kernel that scanned (e.g. `"AVX2 + FMA"`, `"AVX-512 BF16 (VDPBF16PS)"`).
    #[serde(skip)]
    pub kernel: &'static str,
    /// Why the scan's precision is not the one asked for, when that was an explicit one.
    #[serde(skip)]
    pub note: Option<&'static str>,
    /// Candidates per query of the first scan (`k'`).
    pub candidates: usize,
    /// Queries whose top k was proven at the first try.
    pub certified: usize,
    /// Queries proven after a second scan with 8 × `k'` candidates.
    pub widened: usize,
    /// Queries searched in `f32` because the proof failed twice (or the norms are too large
    /// for reduced precision).
    pub fallen_back: usize,
    /// How `auto` chose the precision, when it was asked for.
    #[serde(skip)]
    pub auto: Option<crate::exact::auto::AutoReport>,
}

impl Certification {
    /// All queries counted.
    #[must_use]
    pub fn total(&self) -> usize {
        self.certified + self.widened + self.fallen_back
    }

    /// The counts of an `f32` search of `queries` queries (all certified: no proof needed).
    #[must_use]
    pub fn exact(queries: usize) -> Self {
        Self {
            precision: Precision::F32,
            requested: Precision::F32,
            kernel: "",
            note: None,
            candidates: 0,
            certified: queries,
            widened: 0,
            fallen_back: 0,
            auto: None,
        }
    }

    /// The same counts without the note and the `auto` report (to say them once where two
    /// directions are printed).
    #[must_use]
    pub fn without_note(self) -> Self {
        Self {
            note: None,
            auto: None,
            ..self
        }
    }

    /// The kernel, what was asked for and how `auto` chose, as the search resolved them.
    #[must_use]
    pub(crate) fn ran(
        self,
        requested: Precision,
        kernel: &'static str,
        note: Option<&'static str>,
        auto: Option<crate::exact::auto::AutoReport>,
    ) -> Self {
        Self {
            requested,
            kernel,
            note,
            auto,
            ..self
        }
    }
}

impl fmt::Display for Certification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kernel = if self.kernel.is_empty() {
            String::new()
        } else {
            format!(", {} kernel", self.kernel)
        };
        let auto = if self.requested == Precision::Auto {
            " (auto)"
        } else {
            ""
        };
        if self.precision == Precision::F32 {
            write!(
                f,
                "f32 scan of {} queries{kernel}{auto} (exact, nothing to certify)",
                self.total()
            )?;
        } else {
            write!(
                f,
                "{} scan{kernel}{auto}, {} candidates: {} of {} certified at the first try, {} \
                 after widening, {} searched in f32",
                self.precision,
                self.candidates,
                self.certified,
                self.total(),
                self.widened,
                self.fallen_back
            )?;
        }
        if let Some(auto) = &self.auto {
            write!(f, "; {auto}")?;
        }
        match self.note {
            Some(note) if self.requested != self.precision => {
                write!(f, "; {} asked for: {note}", self.requested)
            }
            _ => Ok(()),
        }
    }
}

/// Neighbours with the counts of their certification.
#[derive(Debug, Clone, PartialEq)]
pub struct CertifiedNeighbors {
    /// The neighbours: those of the `f32` search, exactly.
    pub neighbors: Neighbors,
    /// How they were obtained.
    pub certification: Certification,
}

/// `γ_n = n u / (1 − n u)` for `f32` (`u = 2⁻²⁴`).
fn gamma(n: usize) -> f64 {
    let nu = n as f64 * f64::from(f32::EPSILON) / 2.0;
    nu / (1.0 - nu)
}

/// Largest `exact − approximate` score of vector `a` against any vector of a matrix whose
/// largest norms are `m`, in dimension `d` (see the parent module).
pub(crate) fn bound(a: Norms, m: Norms, d: usize) -> f64 {
    let quant = a.resid * m.norm + a.quant * m.resid;
    let rounding = gamma(2 * d + 8) * (a.norm * m.norm + a.quant * m.quant);
    let underflow = (4 * d + 16) as f64 * 2f64.powi(-120) * (1.0 + a.scale) * (1.0 + m.scale);
    (quant + rounding) * (1.0 + 1e-9) + underflow
}

/// Whether approximate scores of vectors this large stay far from the `f32` range.
fn fits(a: Norms, b: Norms) -> bool {
    a.quant.max(a.norm) * b.quant.max(b.norm) < 1e36
}

/// The norms of every row of `v` at `precision`, and their component-wise maximum.
pub(crate) fn all_norms(precision: Precision, v: EmbeddingsView<'_>) -> (Vec<Norms>, Norms) {
    let d = v.dim();
    let all: Vec<Norms> = v
        .as_slice()
        .par_chunks_exact(d)
        .map(|r| norms_of_row(precision, r))
        .collect();
    let max = all.iter().copied().fold(Norms::default(), Norms::max);
    (all, max)
}

/// Candidates re-scored at a time (as interleaved chains of [`dot_many`]).
const RESCORE: usize = 8;

/// One side of a search as the scan sees it: the rows of a matrix, or only its distinct rows
/// (index `u` stands for row `first[u]` and its later copies).
#[derive(Clone, Copy)]
struct Side<'a> {
    v: Rows<'a>,
    distinct: Option<&'a Distinct>,
}

impl<'a> Side<'a> {
    fn plain(v: Rows<'a>) -> Self {
        Self { v, distinct: None }
    }

    fn of(v: Rows<'a>, qdb: &'a QuantDb) -> Self {
        Self {
            v,
            distinct: qdb.distinct.as_ref(),
        }
    }

    /// Rows the scan sees.
    fn len(&self) -> usize {
        self.distinct.map_or(self.v.len(), |d| d.first.len())
    }

    /// The id of scanned row `u` (its first copy).
    fn id(&self, u: usize) -> usize {
        self.distinct.map_or(u, |d| d.first[u])
    }

    /// The later copies of scanned row `u`.
    fn copies(&self, u: usize) -> &'a [usize] {
        self.distinct
            .map_or(&[], |d| &d.later[d.start[u]..d.start[u + 1]])
    }

    /// Scanned row `u` as `f32` (in place, or widened into `buf`).
    fn row<'s>(&self, u: usize, buf: &'s mut [f32]) -> &'s [f32]
    where
        'a: 's,
    {
        self.v.row(self.id(u), buf)
    }

    /// Scanned rows `rows` as a matrix of their own.
    fn gather(&self, rows: &[usize]) -> Result<Embeddings> {
        self.v.gather(rows.iter().map(|&r| self.id(r)))
    }
}

/// How a list was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Certified,
    Widened,
    FellBack,
}

/// One query's exact top k (ids, scores) and how it was found; `None` while unproven.
type Slot = Option<(Vec<usize>, Vec<f32>, Outcome)>;

/// Re-score every query's candidates (scanned rows of `db`, best approximate score first) in
/// `f32` and try the certificate. `db_max`: the largest norms of the database.
///
/// Candidates are re-scored in the scan's order, a few at a time, and the loop stops as soon
/// as the next approximate score plus the bound `B` falls below the `k`-th exact score found
/// so far: no later candidate, and no vector left out by the scan (whose approximate scores
/// are lower still), can reach the top k. So most candidates of a generous `k'` are never
/// re-scored. A candidate's later copies (same score, higher ids) follow it into the list.
/// A query whose candidates are all scanned rows is proven once all are scored.
fn rerank(
    db: Side<'_>,
    db_max: Norms,
    queries: Side<'_>,
    q_norms: &[Norms],
    approx: &Neighbors,
    k: usize,
    outcome: Outcome,
) -> Vec<Slot> {
    let n = db.len();
    let d = db.v.dim();
    (0..queries.len())
        .into_par_iter()
        .map_init(
            || (vec![0f32; d], vec![0f32; RESCORE * d], Vec::new()),
            |(xbuf, scratch, scores): &mut (Vec<f32>, Vec<f32>, Vec<f32>), q| {
                let x = queries.row(q, xbuf);
                let (ids, keys) = (approx.ids(q), approx.scores(q));
                let b = bound(q_norms[q], db_max, d);
                let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
                let mut proven = false;
                for (c, group) in ids.chunks(RESCORE).enumerate() {
                    let mut rows: [&[f32]; RESCORE] = [&[]; RESCORE];
                    let bufs = scratch.chunks_exact_mut(d);
                    for ((r, &u), buf) in rows.iter_mut().zip(group).zip(bufs) {
                        *r = db.row(u, buf);
                    }
                    dot_many(x, &rows[..group.len()], scores);
                    for (&sc, &u) in scores.iter().zip(group) {
                        for id in std::iter::once(db.id(u)).chain(db.copies(u).iter().copied()) {
                            let pos = best.partition_point(|&e| ranks_before(e, (sc, id)));
                            if pos >= k {
                                break;
                            }
                            best.insert(pos, (sc, id));
                            best.truncate(k);
                        }
                    }
                    let done = (c * RESCORE + group.len()).min(ids.len());
                    if best.len() < k {
                        continue;
                    }
                    if done == ids.len() && ids.len() >= n {
                        proven = true;
                        break;
                    }
                    // Unscored candidates and all vectors left out score at most `next`.
                    let next = f64::from(keys[done.min(ids.len() - 1)]);
                    if next + b < f64::from(best[k - 1].0) {
                        proven = true;
                        break;
                    }
                }
                proven.then(|| {
                    let (i, s) = best.into_iter().map(|(s, id)| (id, s)).unzip();
                    (i, s, outcome)
                })
            },
        )
        .collect()
}

/// Fill the failed slots of `slots` (one per scanned row of `queries`): a scan with `8 k1`
/// candidates and its proof, then the `f32` search for what still fails. `s` searches the
/// database with its quantised copy `qdb`.
fn settle(
    s: &Search<'_>,
    qdb: &QuantDb,
    queries: Side<'_>,
    q_norms: &[Norms],
    k: usize,
    k1: usize,
    slots: &mut [Slot],
) -> Result<()> {
    let mut failed: Vec<usize> = (0..slots.len()).filter(|&q| slots[q].is_none()).collect();
    let k2 = k1
        .saturating_mul(8)
        .min(crate::exact::ExactParams::MAX_CANDIDATES)
        .min(qdb.rows());
    if !failed.is_empty() && k2 > k1 {
        let sub = queries.gather(&failed)?;
        let wide = Search {
            quant: Some(qdb),
            ..*s
        }
        .run(sub.view(), k2, &mut |_| {})?;
        let sub_norms: Vec<Norms> = failed.iter().map(|&q| q_norms[q]).collect();
        let db = Side::of(s.db, qdb);
        let again = rerank(
            db,
            qdb.max,
            Side::plain(sub.view().into()),
            &sub_norms,
            &wide,
            k,
            Outcome::Widened,
        );
        for (&q, slot) in failed.iter().zip(again) {
            slots[q] = slot;
        }
        failed.retain(|&q| slots[q].is_none());
    }
    if !failed.is_empty() {
        let sub = queries.gather(&failed)?;
        let exact = Search { quant: None, ..*s }.run(sub.view(), k, &mut |_| {})?;
        for (i, &q) in failed.iter().enumerate() {
            let (ids, scores) = (exact.ids(i).to_vec(), exact.scores(i).to_vec());
            slots[q] = Some((ids, scores, Outcome::FellBack));
        }
    }
    Ok(())
}

/// The lists of every row of `side` (a row's list is its scanned row's), with the counts.
fn assemble(
    k: usize,
    side: Side<'_>,
    slots: &[Slot],
    mut cert: Certification,
) -> Result<CertifiedNeighbors> {
    let unsolved = || Error::Invalid("a certified search left a query unsolved".into());
    let n = side.v.len();
    let (mut ids, mut scores) = (Vec::with_capacity(n * k), Vec::with_capacity(n * k));
    for r in 0..n {
        let u = side.distinct.map_or(r, |d| d.of_row[r] as usize);
        let (i, s, o) = slots.get(u).and_then(Option::as_ref).ok_or_else(unsolved)?;
        ids.extend_from_slice(i);
        scores.extend_from_slice(s);
        match o {
            Outcome::Certified => cert.certified += 1,
            Outcome::Widened => cert.widened += 1,
            Outcome::FellBack => cert.fallen_back += 1,
        }
    }
    Ok(CertifiedNeighbors {
        neighbors: Neighbors::new(k, ids, scores)?,
        certification: cert,
    })
}

/// Certified search of `queries` (checked) in `s.db` with its quantised copy `qdb`: the `f32`
/// search's neighbours. `candidates`: `k'` of the first scan (0: the precision's default).
pub(crate) fn search_one_way(
    s: &Search<'_>,
    qdb: &QuantDb,
    queries: EmbeddingsView<'_>,
    k: usize,
    candidates: usize,
    progress: &mut dyn FnMut(usize),
) -> Result<CertifiedNeighbors> {
    let precision = qdb.precision;
    let mut cert = first_scan(precision, k, candidates, qdb.rows());
    let k1 = cert.candidates;
    let (q_norms, q_max) = all_norms(precision, queries);
    if !fits(q_max, qdb.max) {
        let neighbors = Search { quant: None, ..*s }.run(queries, k, progress)?;
        cert.fallen_back = queries.len();
        return Ok(CertifiedNeighbors {
            neighbors,
            certification: cert,
        });
    }
    let approx = Search {
        quant: Some(qdb),
        ..*s
    }
    .run(queries, k1, progress)?;
    let (db, qs) = (Side::of(s.db, qdb), Side::plain(queries.into()));
    let mut slots = rerank(db, qdb.max, qs, &q_norms, &approx, k, Outcome::Certified);
    drop(approx);
    settle(s, qdb, qs, &q_norms, k, k1, &mut slots)?;
    assemble(k, qs, &slots, cert)
}

/// The counts of a search at `precision` before any query is settled, with `k'` of its first
/// scan: `candidates` (0: the default of `precision`), at least `k`, at most `n`.
fn first_scan(precision: Precision, k: usize, candidates: usize, n: usize) -> Certification {
    let c = if candidates == 0 {
        precision.default_candidates(k)
    } else {
        candidates
    };
    Certification {
        precision,
        candidates: c.max(k).min(n),
        ..Certification::default()
    }
}

/// Certified both-ways search: the `k` nearest database rows of every query and the `k_back`
/// nearest queries of every database row, from one reduced-precision pass, each list proven or
/// repaired as in [`search_one_way`] (the backward lists with the queries as the database).
pub(crate) fn search_both(
    s: &Search<'_>,
    qdb: &QuantDb,
    queries: EmbeddingsView<'_>,
    k: usize,
    k_back: usize,
    candidates: usize,
    progress: &mut dyn FnMut(usize),
) -> Result<(CertifiedNeighbors, CertifiedNeighbors)> {
    let precision = qdb.precision;
    let (n, nq) = (s.db.len(), queries.len());
    let mut fwd = first_scan(precision, k, candidates, qdb.rows());
    let mut bwd = first_scan(precision, k_back, candidates, nq);
    let (k1, kb1) = (fwd.candidates, bwd.candidates);
    let (q_norms, q_max) = all_norms(precision, queries);
    if !fits(q_max, qdb.max) {
        let (f, b) = Search { quant: None, ..*s }.run_both_ways(queries, k, k_back, progress)?;
        fwd.fallen_back = nq;
        bwd.fallen_back = n;
        return Ok((
            CertifiedNeighbors {
                neighbors: f,
                certification: fwd,
            },
            CertifiedNeighbors {
                neighbors: b,
                certification: bwd,
            },
        ));
    }
    let (af, ab) = Search {
        quant: Some(qdb),
        ..*s
    }
    .run_both_ways(queries, k1, kb1, progress)?;
    let (db, qs) = (Side::of(s.db, qdb), Side::plain(queries.into()));
    let mut fslots = rerank(db, qdb.max, qs, &q_norms, &af, k, Outcome::Certified);
    drop(af);
    settle(s, qdb, qs, &q_norms, k, k1, &mut fslots)?;
    drop(q_norms);
    // Backward: the scanned database rows search the queries.
    let mut bslots = rerank(qs, q_max, db, &qdb.norms, &ab, k_back, Outcome::Certified);
    drop(ab);
    if bslots.iter().any(Option::is_none) {
        // The failed rows search the queries: a quantised copy of those, built only now.
        let qq = QuantDb::build(precision, queries.into())?;
        let back = Search {
            db: queries.into(),
            db_norms: &[],
            quant: None,
            ..*s
        };
        settle(&back, &qq, db, &qdb.norms, k_back, kb1, &mut bslots)?;
    }
    Ok((
        assemble(k, qs, &fslots, fwd)?,
        assemble(k_back, db, &bslots, bwd)?,
    ))
}
