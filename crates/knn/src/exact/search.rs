//! The blocked, multi-threaded exact search: queries are cut into blocks, each block is packed
//! once and scanned against the database rows in place (a memory map is read block by block,
//! never copied); the database is also split across threads when there are too few query
//! blocks to keep every thread busy, and the parts' lists merged. Results do not depend on the
//! thread count: scores are computed identically everywhere and the top-k order is strict (see
//! `topk`).
//!
//! A both-ways search also keeps, for every database row, its best queries: each score of a
//! tile goes to the query's list and to the row's list, so both directions cost one pass. The
//! rows' lists live in accumulators (one per task running at a time, reused by the next task)
//! that are merged at the end.

use std::sync::{Mutex, PoisonError, mpsc};
use std::time::Duration;

use bitext_core::EmbeddingsView;

use crate::error::{Error, Result};
use crate::exact::kernel::{self, Back, Kernel, L2Norms, Panels};
use crate::exact::quant::{self, QuantDb, QuantKernel, QuantPanels};
use crate::exact::rows::{Rows, WIDEN_ROWS};
use crate::exact::topk::TopK;
use crate::index::{Metric, Neighbors};

/// Fewest database rows worth giving a thread of its own.
const MIN_SPLIT_ROWS: usize = 2048;

/// An exact search of `queries` in `db` (with squared row norms `db_norms` for L2).
pub(crate) struct Search<'a> {
    /// The database: `f32` rows read in place, or binary16 rows widened a block at a time.
    pub(crate) db: Rows<'a>,
    pub(crate) db_norms: &'a [f32],
    pub(crate) metric: Metric,
    pub(crate) kernel: Kernel,
    pub(crate) query_block: usize,
    /// Threads (0: the current pool).
    pub(crate) threads: usize,
    /// A quantised copy of `db` to scan instead (inner product only): the lists then hold the
    /// approximate scores of the scan, for the certified re-rank to check.
    pub(crate) quant: Option<&'a QuantDb>,
}

impl Search<'_> {
    /// Rows the scan visits: the database's, or the distinct rows of its quantised copy.
    pub(crate) fn rows(&self) -> usize {
        self.quant.map_or(self.db.len(), QuantDb::rows)
    }

    /// Run it (inputs already checked), calling `progress` with the number of queries done
    /// each time a query block is finished.
    ///
    /// Every (query block, database part) pair is a rayon task; the calling thread collects
    /// the results as they come (running tasks itself when it is a pool thread), so no thread
    /// waits at a barrier and progress is reported from the calling thread.
    pub(crate) fn run(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors> {
        Ok(self.run_both(queries, k, None, progress)?.0)
    }

    /// As [`Search::run`]; with `k_back`, also the `k_back` best queries of every database row
    /// (from the same scores, in the same pass).
    pub(crate) fn run_both(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: Option<usize>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(Neighbors, Option<Neighbors>)> {
        if self.threads == 0 {
            return self.run_in(None, queries, k, k_back, progress);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| Error::Invalid(format!("cannot start {} threads: {e}", self.threads)))?;
        self.run_in(Some(&pool), queries, k, k_back, progress)
    }

    /// [`Search::run_both`] with backward lists: the `k` best database rows of every query and
    /// the `k_back` best queries of every database row.
    pub(crate) fn run_both_ways(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(Neighbors, Neighbors)> {
        let (forward, backward) = self.run_both(queries, k, Some(k_back), progress)?;
        let backward =
            backward.ok_or_else(|| Error::Invalid("the backward lists went missing".into()))?;
        Ok((forward, backward))
    }

    /// [`Search::run_both`] in `pool` (`None`: the current pool). The tasks run in the pool;
    /// the calling thread collects their results and reports progress.
    fn run_in(
        &self,
        pool: Option<&rayon::ThreadPool>,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: Option<usize>,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(Neighbors, Option<Neighbors>)> {
        let kernel = self.kernel.resolve()?;
        let width = match self.quant {
            Some(db) => QuantKernel::for_kernel(kernel, db.precision).panel_width(),
            None => kernel.panel_width(),
        };
        let qb = self.query_block.div_ceil(width).max(1) * width;
        let nq = queries.len();
        let blocks = nq.div_ceil(qb);
        let threads = pool
            .map_or_else(
                rayon::current_num_threads,
                rayon::ThreadPool::current_num_threads,
            )
            .max(1);
        let splits = if blocks >= threads {
            1
        } else {
            threads
                .div_ceil(blocks)
                .min(self.rows().div_ceil(MIN_SPLIT_ROWS))
                .max(1)
        };
        let block_rows = |b: usize| b * qb..((b + 1) * qb).min(nq);
        let mut parts: Vec<Vec<TopK>> = (0..blocks).map(|_| Vec::with_capacity(splits)).collect();
        let n_db = self.rows();
        // Idle accumulators of the database rows' lists: a task takes one (or makes one when
        // all are busy) and gives it back, so there are at most as many as tasks at a time.
        let backs: Mutex<Vec<TopK>> = Mutex::new(Vec::new());
        let backs = &backs;
        in_scope(pool, |scope| {
            let (tx, rx) = mpsc::channel();
            for b in 0..blocks {
                for part in 0..splits {
                    let tx = tx.clone();
                    let q = queries.slice_rows(block_rows(b));
                    let q_off = block_rows(b).start;
                    scope.spawn(move |_| {
                        let mut back = k_back.map(|kb| {
                            let idle = backs.lock().unwrap_or_else(PoisonError::into_inner).pop();
                            idle.unwrap_or_else(|| TopK::new(kb, n_db, n_db))
                        });
                        let queries = q.len();
                        let sink = back.as_mut().map(|top| Back {
                            top,
                            q_off,
                            queries,
                        });
                        let top = self.scan_part(kernel, q, k, part, splits, sink);
                        if let Some(acc) = back {
                            backs
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .push(acc);
                        }
                        // The receiver outlives the scope: sending cannot fail.
                        let _ = tx.send((b, top));
                    });
                }
            }
            drop(tx);
            let mut done = 0;
            let mut finished = 0;
            while finished < blocks * splits {
                let msg = match rx.try_recv() {
                    Ok(msg) => msg,
                    Err(mpsc::TryRecvError::Disconnected) => break,
                    Err(mpsc::TryRecvError::Empty) => {
                        // A pool thread runs pending tasks meanwhile (with one thread, nothing
                        // else would); other threads wait.
                        if rayon::yield_now() == Some(rayon::Yield::Executed) {
                            continue;
                        }
                        match rx.recv_timeout(Duration::from_millis(20)) {
                            Ok(msg) => msg,
                            Err(_) => continue,
                        }
                    }
                };
                let (b, top) = msg;
                finished += 1;
                parts[b].push(top);
                if parts[b].len() == splits {
                    done += block_rows(b).len();
                    progress(done);
                }
            }
        });
        let unfinished =
            || Error::Invalid("a search task did not finish (a thread panicked?)".into());
        let mut ids = Vec::with_capacity(nq * k);
        let mut scores = Vec::with_capacity(nq * k);
        for block in parts {
            let top = merged(block).ok_or_else(unfinished)?;
            self.drain(top, &mut ids, &mut scores)?;
        }
        let forward = Neighbors::new(k, ids, scores)?;
        let backward = match k_back {
            None => None,
            Some(kb) => {
                let mut accs = backs.lock().unwrap_or_else(PoisonError::into_inner);
                let top = merged(std::mem::take(&mut *accs)).ok_or_else(unfinished)?;
                let (mut ids, mut scores) = (Vec::with_capacity(n_db * kb), Vec::new());
                scores.reserve(n_db * kb);
                self.drain(top, &mut ids, &mut scores)?;
                Some(Neighbors::new(kb, ids, scores)?)
            }
        };
        Ok((forward, backward))
    }

    /// Append the ids and scores of `top`'s lists.
    fn drain(&self, top: TopK, ids: &mut Vec<usize>, scores: &mut Vec<f32>) -> Result<()> {
        let to_score = |key: f32| match self.metric {
            Metric::InnerProduct => key,
            Metric::L2 => -key,
        };
        if top.drain_into(ids, scores, to_score) {
            Ok(())
        } else {
            Err(Error::Invalid(
                "scores came out NaN: vector norms too large for f32".into(),
            ))
        }
    }

    /// The top-k lists of query block `q` over database part `part` of `splits`.
    fn scan_part(
        &self,
        kernel: Kernel,
        q: EmbeddingsView<'_>,
        k: usize,
        part: usize,
        splits: usize,
        back: Option<Back<'_>>,
    ) -> TopK {
        let n = self.rows();
        let len = n.div_ceil(splits);
        let (r0, r1) = ((part * len).min(n), ((part + 1) * len).min(n));
        if let Some(db) = self.quant {
            let qk = QuantKernel::for_kernel(kernel, db.precision);
            let panels = QuantPanels::pack(db.precision, q.as_slice(), q.dim(), qk);
            let mut top = TopK::new(k, panels.queries, panels.padded());
            let mut back = back;
            quant::scan(qk, &panels, db, r0, r1, &mut top, back.as_mut());
            return top;
        }
        let l2 = self.metric == Metric::L2;
        let panels = Panels::pack(q.as_slice(), q.dim(), kernel.panel_width(), l2);
        let mut top = TopK::new(k, panels.queries, panels.padded());
        // f32 rows are scanned in place; binary16 rows a widened block at a time.
        let step = if self.db.as_f32().is_some() {
            r1 - r0
        } else {
            WIDEN_ROWS
        };
        let (mut back, mut buf, mut a) = (back, Vec::new(), r0);
        while a < r1 {
            let b = (a + step).min(r1);
            let norms = l2.then(|| L2Norms {
                rows: &self.db_norms[a..b],
            });
            let rows = self.db.block(a, b, &mut buf);
            kernel::scan(kernel, &panels, rows, a, norms, &mut top, back.as_mut());
            a = b;
        }
        top
    }
}

/// A scope in `pool` (`None`: the current pool) whose closure runs on the calling thread.
fn in_scope<'s, R>(pool: Option<&rayon::ThreadPool>, op: impl FnOnce(&rayon::Scope<'s>) -> R) -> R {
    match pool {
        Some(pool) => pool.in_place_scope(op),
        None => rayon::in_place_scope(op),
    }
}

/// The lists of `tops` (the same queries, disjoint candidates) merged into one.
fn merged(tops: Vec<TopK>) -> Option<TopK> {
    let mut tops = tops.into_iter();
    let mut top = tops.next()?;
    for other in tops {
        top.merge(&other);
    }
    Some(top)
}
