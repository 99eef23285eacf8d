//! [`Precision::Auto`] by measurement: which exact path is fastest is timed, not guessed from
//! the CPU's flags (on an Intel Xeon with AVX-512 BF16, `VDPBF16PS` was 1.7× slower than the
//! `f32` FMA kernel; on a Zen 4 it was the fastest).
//!
//! A [`Tuner`] times every exact path this CPU offers ([`candidates`]: `f32` and each reduced
//! precision with its kernel, certified re-rank included) on a sample of the search at hand
//! (256 of the queries, spread over them, searched in 2,048 to 16,384 rows of the database; for
//! a both-ways search also 256 rows searched in as many queries), twice each, interleaved,
//! keeping the faster time. From the sample it keeps two rates per candidate
//! ([`Timing`]: building the quantised copy, per row; the search, per (query, row)) and
//! estimates the whole search with each; [`choose`] takes the fastest, and `f32` whenever it is
//! within 5% of it (a near-tie goes to the path with no copy to hold). The rates are cached
//! ([`TuneCache`], `~/.cache/bitext/auto.json`) per version, CPU, flags, dimension, metric,
//! threads and direction ([`AutoKey`]), so later
//! runs on this machine pay nothing; a search too small to repay the measurement (it would
//! cost more than a twentieth of the search) and with nothing cached runs `f32`. Every path
//! returns the `f32` search's exact result: the measurement changes speed only.

mod cache;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use bitext_core::{Embeddings, EmbeddingsView};
use serde::{Deserialize, Serialize};

pub use bitext_core::tune::TuneCache;
pub use cache::{AutoKey, Entry};

use super::quant::QuantKernel;
use super::{ExactIndex, ExactParams, Kernel, Precision};
use crate::error::Result;
use crate::index::{KnnIndex, Metric};

/// One exact path: a scan precision and the kernel that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Candidate {
    /// Precision of the scan.
    pub precision: Precision,
    /// The kernel (a concrete one, never `Auto`).
    pub kernel: Kernel,
}

/// The measured time of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Seconds per database row to build the quantised copy (0 for `f32`).
    pub build_per_row: f64,
    /// Seconds per (query, database row) of the search.
    pub search_per_pair: f64,
}

impl Timing {
    /// Estimated seconds of a search of `queries` queries in `rows` rows.
    #[must_use]
    pub fn estimate(&self, rows: usize, queries: usize) -> f64 {
        self.build_per_row * rows as f64 + self.search_per_pair * rows as f64 * queries as f64
    }
}

/// How close to the fastest `f32` must be to be chosen anyway.
pub const NEAR_TIE: f64 = 0.05;

/// The candidate to run a search of `queries` queries in `rows` rows, given each one's
/// timing: the fastest by estimate, but `f32` when it is within [`NEAR_TIE`] of it (and when
/// nothing was timed); among others, the order given breaks exact ties.
#[must_use]
pub fn choose(timings: &[(Candidate, Timing)], rows: usize, queries: usize) -> Candidate {
    let est = |t: &Timing| t.estimate(rows, queries);
    let f32_here = Candidate {
        precision: Precision::F32,
        kernel: Kernel::detect(),
    };
    let Some((best, fastest)) = timings
        .iter()
        .map(|(c, t)| (c, est(t)))
        .filter(|(_, e)| e.is_finite())
        .fold(None, |acc: Option<(&Candidate, f64)>, (c, e)| match acc {
            Some((_, b)) if b <= e => acc,
            _ => Some((c, e)),
        })
    else {
        return f32_here;
    };
    let f32_time = timings
        .iter()
        .find(|(c, _)| c.precision == Precision::F32)
        .map(|(c, t)| (*c, est(t)));
    match f32_time {
        Some((c, f)) if f <= fastest * (1.0 + NEAR_TIE) => c,
        _ => *best,
    }
}

/// The exact paths this CPU offers, `f32` first: `f32` with the kernel `Auto` stands for,
/// each reduced precision whose scan that kernel family has in SIMD (a portable scan is never
/// faster than the `f32` SIMD kernel, so it is not timed), and each on AMX tiles where the CPU
/// and the OS offer them.
#[must_use]
pub fn candidates() -> Vec<Candidate> {
    let kernel = Kernel::detect();
    let mut out = vec![Candidate {
        precision: Precision::F32,
        kernel,
    }];
    let amx = Kernel::Amx.is_available();
    for precision in [Precision::Bf16, Precision::Int8] {
        if QuantKernel::for_kernel(kernel, precision) != QuantKernel::Portable {
            out.push(Candidate { precision, kernel });
        }
        if amx {
            out.push(Candidate {
                precision,
                kernel: Kernel::Amx,
            });
        }
    }
    out
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kernel {
            Kernel::Amx => write!(f, "{} AMX", self.precision),
            _ => write!(f, "{}", self.precision),
        }
    }
}

/// Where a search's `auto` choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Measured in this process (now or by an earlier search with the same key).
    Measured {
        /// Milliseconds the measurement took.
        cost_ms: u64,
    },
    /// Read from the cache file, measured by an earlier run.
    Cached,
    /// Nothing cached, and the search is too small to repay a measurement: `f32`.
    TooSmall,
    /// This CPU or search has no other exact path (no reduced-precision kernel, the L2 metric,
    /// a forced kernel): `f32`.
    OnlyF32,
}

/// The estimated time of one candidate for the search at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// The candidate.
    pub candidate: Candidate,
    /// Estimated milliseconds of the whole search.
    pub ms: u64,
}

/// What `auto` chose and why, as the run's summary says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoReport {
    /// Where the choice came from.
    pub source: Source,
    /// The path chosen.
    pub chosen: Candidate,
    /// Each timed candidate's estimate for this search, in [`candidates`]' order (the
    /// first ones are set).
    pub estimates: [Option<Estimate>; 6],
    /// Whether a new measurement could not be written to the cache file.
    pub unsaved: bool,
}

impl AutoReport {
    /// The report of a search where `f32` is the only exact path.
    #[must_use]
    pub fn only_f32() -> Self {
        Self {
            source: Source::OnlyF32,
            chosen: Candidate {
                precision: Precision::F32,
                kernel: Kernel::detect(),
            },
            estimates: [None; 6],
            unsaved: false,
        }
    }
}

impl std::fmt::Display for AutoReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let est = || {
            self.estimates
                .iter()
                .flatten()
                .map(|e| format!("{} {:.2} s", e.candidate, e.ms as f64 / 1000.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.source {
            Source::Measured { cost_ms } => write!(
                f,
                "auto chose {} by measuring here in {:.2} s (estimates: {}){}",
                self.chosen,
                cost_ms as f64 / 1000.0,
                est(),
                if self.unsaved {
                    "; not cached: the cache file cannot be written"
                } else {
                    ""
                }
            ),
            Source::Cached => write!(
                f,
                "auto chose {} from this CPU's cached measurement (estimates: {})",
                self.chosen,
                est()
            ),
            Source::TooSmall => write!(
                f,
                "auto chose f32: too small a search to repay a measurement, none cached"
            ),
            Source::OnlyF32 => write!(f, "auto: f32 is the only exact path here"),
        }
    }
}

/// A measured injection for tests: the timing of a candidate instead of running it.
pub type Clock = dyn Fn(Candidate) -> Timing + Send + Sync;

/// Chooses `auto`'s precision by measuring, with a cache (see the module docs).
pub struct Tuner {
    cache: TuneCache,
    sample_rows: usize,
    sample_queries: usize,
    reps: usize,
    /// A search is measured when it is at least this many times the measurement's work.
    min_ratio: f64,
    clock: Option<Arc<Clock>>,
    memo: Mutex<HashMap<AutoKey, (Entry, Source)>>,
}

impl std::fmt::Debug for Tuner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tuner")
            .field("cache", &self.cache)
            .field("sample_rows", &self.sample_rows)
            .field("sample_queries", &self.sample_queries)
            .field("reps", &self.reps)
            .field("min_ratio", &self.min_ratio)
            .field("injected_clock", &self.clock.is_some())
            .finish_non_exhaustive()
    }
}

/// Fewest rows a sampled query is searched in: fewer would fill the top-k lists far more often
/// than the search does.
const MIN_SAMPLE_ROWS: usize = 2048;

impl Tuner {
    /// A tuner with `cache`: 256 vectors (a query block) searched in 2,048 to 16,384 of the
    /// other side's, two runs each, and searches measured when at least 20 times the
    /// measurement's work.
    #[must_use]
    pub fn new(cache: TuneCache) -> Self {
        Self {
            cache,
            sample_rows: 16_384,
            sample_queries: 256,
            reps: 2,
            min_ratio: 20.0,
            clock: None,
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// The process's tuner, with the cache the environment says ([`TuneCache::from_env`]).
    pub fn global() -> &'static Tuner {
        static GLOBAL: OnceLock<Tuner> = OnceLock::new();
        GLOBAL.get_or_init(|| Tuner::new(TuneCache::from_env()))
    }

    /// Samples of up to `queries` vectors searched in up to `rows` of the other side's.
    #[must_use]
    pub fn with_sample(mut self, rows: usize, queries: usize) -> Self {
        self.sample_rows = rows.max(1);
        self.sample_queries = queries.max(1);
        self
    }

    /// Measure searches at least `ratio` times the measurement's work (0: every search).
    #[must_use]
    pub fn with_min_ratio(mut self, ratio: f64) -> Self {
        self.min_ratio = ratio;
        self
    }

    /// Take each candidate's timing from `clock` instead of running it (tests).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The cache.
    #[must_use]
    pub fn cache(&self) -> &TuneCache {
        &self.cache
    }

    /// What `auto` runs for a search of `queries` in `index` (`k_back`: a both-ways search),
    /// with the report of how it was chosen.
    ///
    /// # Errors
    /// As the sample searches (none expected: the inputs were checked).
    pub(crate) fn choose_for(
        &self,
        index: &ExactIndex<'_>,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: Option<usize>,
    ) -> Result<AutoReport> {
        let cands = candidates();
        let p = index.params();
        if cands.len() < 2 || index.metric() != Metric::InnerProduct || p.kernel != Kernel::Auto {
            return Ok(AutoReport::only_f32());
        }
        // The sample: `sq` queries (a whole query block, so that the database is read as
        // often per query as in the search) searched one way in `sr` rows, and for a both-ways
        // search `sq` rows in `sb` queries; the measurement's work at most 1 / min_ratio of the
        // search's.
        let (rows, nq) = (index.len(), queries.len());
        let sides = if k_back.is_some() { 2 } else { 1 };
        let sq = self
            .sample_queries
            .min(nq)
            .min(if sides == 2 { rows } else { nq });
        let budget = rows as f64 * nq as f64 / self.min_ratio.max(f64::MIN_POSITIVE);
        let per_side = budget / (self.reps * cands.len() * sides * sq.max(1)) as f64;
        let per_side = per_side.min(self.sample_rows as f64) as usize;
        let (sr, sb) = (rows.min(per_side), nq.min(per_side));
        let enough = |n: usize, all: usize| n >= MIN_SAMPLE_ROWS.min(all);
        if sq == 0 || !enough(sr, rows) || (sides == 2 && !enough(sb, nq)) {
            return Ok(AutoReport {
                source: Source::TooSmall,
                ..AutoReport::only_f32()
            });
        }
        let threads = if p.threads == 0 {
            rayon::current_num_threads()
        } else {
            p.threads
        };
        let key = AutoKey::here(index.dim(), index.metric(), threads, k_back.is_some());
        let finish = |entry: &Entry, source, unsaved| {
            let mut estimates = [None; 6];
            for (slot, (c, t)) in estimates.iter_mut().zip(&entry.timings) {
                let ms = (t.estimate(rows, nq) * 1000.0).round() as u64;
                *slot = Some(Estimate { candidate: *c, ms });
            }
            AutoReport {
                source,
                chosen: choose(&entry.timings, rows, nq),
                estimates,
                unsaved,
            }
        };
        let memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((e, source)) = memo.get(&key) {
            return Ok(finish(e, *source, false));
        }
        drop(memo);
        if let Some(e) = key.cached(&self.cache) {
            let r = finish(&e, Source::Cached, false);
            self.remember(key, e, Source::Cached);
            return Ok(r);
        }
        let started = Instant::now();
        let timings = self.measure(index, queries, &cands, (sr, sb, sq), k, k_back)?;
        let entry = Entry {
            timings,
            sample: (sr, sq),
            cost_s: started.elapsed().as_secs_f64(),
        };
        let unsaved = self.cache.put(&key, &entry).is_err();
        let source = Source::Measured {
            cost_ms: (entry.cost_s * 1000.0).round() as u64,
        };
        let r = finish(&entry, source, unsaved);
        self.remember(key, entry, source);
        Ok(r)
    }

    fn remember(&self, key: AutoKey, entry: Entry, source: Source) {
        self.memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, (entry, source));
    }

    /// Time every candidate: `sq` queries spread over the search's, searched one way in `sr`
    /// rows spread over the database (the index's own rows when all of them); for a both-ways
    /// search also `sq` rows searched one way in `sb` of the queries, the backward lists'
    /// work. Not both samples at once: a row's list over 256 queries would take in a quarter
    /// of them and overstate the reduced precisions, whose lists are longer, where over
    /// thousands it takes in a few percent as in the search. The faster of `reps` runs each,
    /// the candidates interleaved so that a slow moment of a shared machine does not fall on
    /// one of them only; a candidate more than 1.5 times the fastest's first time is not run
    /// again.
    fn measure(
        &self,
        index: &ExactIndex<'_>,
        queries: EmbeddingsView<'_>,
        cands: &[Candidate],
        (sr, sb, sq): (usize, usize, usize),
        k: usize,
        k_back: Option<usize>,
    ) -> Result<Vec<(Candidate, Timing)>> {
        if let Some(clock) = &self.clock {
            return Ok(cands.iter().map(|&c| (c, clock(c))).collect());
        }
        let rows = index.rows();
        let spread = |n: usize, m: usize| (0..m).map(move |i| i * n / m);
        let from_queries = |m: usize| -> Result<Embeddings> {
            let d = queries.dim();
            let mut v = Vec::with_capacity(m * d);
            for i in spread(queries.len(), m) {
                v.extend_from_slice(queries.row(i));
            }
            Ok(Embeddings::new(v, d)?)
        };
        // The database side: the index's own rows when all are searched and held as f32.
        let owned_db = match index.vectors() {
            Some(_) if sr == rows.len() => None,
            _ => Some(rows.gather(spread(rows.len(), sr))?),
        };
        let db = owned_db
            .as_ref()
            .map_or_else(|| index.vectors().expect("f32 rows"), Embeddings::view);
        let qs = from_queries(sq)?;
        let back = match k_back {
            Some(kb) => {
                let owned = (sb < queries.len()).then(|| from_queries(sb)).transpose()?;
                Some((owned, rows.gather(spread(rows.len(), sq))?, kb.min(sb)))
            }
            None => None,
        };
        let mut best = vec![(f64::INFINITY, f64::INFINITY); cands.len()];
        for rep in 0..self.reps {
            let fastest = best.iter().map(|b| b.1).fold(f64::INFINITY, f64::min);
            for (c, b) in cands.iter().zip(&mut best) {
                if rep > 0 && b.1 > 1.5 * fastest {
                    continue;
                }
                let (build, fwd) = time_one(index, db, qs.view(), *c, k.min(sr))?;
                let mut per_pair = fwd / (sr * sq) as f64;
                if let Some((owned, back_q, kb)) = &back {
                    let back_db = owned.as_ref().map_or(queries, Embeddings::view);
                    let (_, t) = time_one(index, back_db, back_q.view(), *c, *kb)?;
                    per_pair = (per_pair + t / (sb * sq) as f64) / 2.0;
                }
                b.0 = b.0.min(build / sr as f64);
                b.1 = b.1.min(per_pair);
            }
        }
        Ok(cands
            .iter()
            .zip(best)
            .map(|(&c, (build_per_row, search_per_pair))| {
                let timing = Timing {
                    build_per_row,
                    search_per_pair,
                };
                (c, timing)
            })
            .collect())
    }
}

/// Seconds to build `c`'s copy of `db` and to search it one way with `qs` for `k` neighbours.
fn time_one(
    index: &ExactIndex<'_>,
    db: EmbeddingsView<'_>,
    qs: EmbeddingsView<'_>,
    c: Candidate,
    k: usize,
) -> Result<(f64, f64)> {
    let params = ExactParams {
        precision: c.precision,
        kernel: c.kernel,
        ..index.params()
    };
    let sample = ExactIndex::over(db, index.metric())?.with_params(params)?;
    let t0 = Instant::now();
    sample.quantize()?;
    let t1 = Instant::now();
    drop(sample.search_certified(qs, k, &mut |_| {})?);
    Ok((
        (t1 - t0).as_secs_f64(),
        Instant::now().duration_since(t1).as_secs_f64(),
    ))
}

#[cfg(test)]
mod tests;
