//! The blocked, multi-threaded exact search: queries are cut into blocks, each block is packed
//! once and scanned against the database rows in place (a memory map is read block by block,
//! never copied); the database is also split across threads when there are too few query
//! blocks to keep every thread busy, and the parts' lists merged. Results do not depend on the thread count: scores are
//! computed identically everywhere and the top-k order is strict (see `topk`).

use std::sync::mpsc;
use std::time::Duration;

use bitext_core::EmbeddingsView;

use crate::error::{Error, Result};
use crate::exact::kernel::{self, Kernel, L2Norms, Panels};
use crate::exact::topk::TopK;
use crate::index::{Metric, Neighbors};

/// Fewest database rows worth giving a thread of its own.
const MIN_SPLIT_ROWS: usize = 2048;

/// An exact search of `queries` in `db` (with squared row norms `db_norms` for L2).
pub(crate) struct Search<'a> {
    pub(crate) db: EmbeddingsView<'a>,
    pub(crate) db_norms: &'a [f32],
    pub(crate) metric: Metric,
    pub(crate) kernel: Kernel,
    pub(crate) query_block: usize,
}

impl Search<'_> {
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
        let kernel = self.kernel.resolve()?;
        let width = kernel.panel_width();
        let qb = self.query_block.div_ceil(width).max(1) * width;
        let nq = queries.len();
        let blocks = nq.div_ceil(qb);
        let threads = rayon::current_num_threads().max(1);
        let splits = if blocks >= threads {
            1
        } else {
            threads
                .div_ceil(blocks)
                .min(self.db.len().div_ceil(MIN_SPLIT_ROWS))
                .max(1)
        };
        let block_rows = |b: usize| b * qb..((b + 1) * qb).min(nq);
        let mut parts: Vec<Vec<TopK>> = (0..blocks).map(|_| Vec::with_capacity(splits)).collect();
        rayon::in_place_scope(|scope| {
            let (tx, rx) = mpsc::channel();
            for b in 0..blocks {
                for part in 0..splits {
                    let tx = tx.clone();
                    let q = queries.slice_rows(block_rows(b));
                    scope.spawn(move |_| {
                        let top = self.scan_part(kernel, q, k, part, splits);
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
        let mut ids = Vec::with_capacity(nq * k);
        let mut scores = Vec::with_capacity(nq * k);
        let to_score = |key: f32| match self.metric {
            Metric::InnerProduct => key,
            Metric::L2 => -key,
        };
        for block in parts {
            let mut block = block.into_iter();
            let mut top = block.next().ok_or_else(|| {
                Error::Invalid("a search task did not finish (a thread panicked?)".into())
            })?;
            for other in block {
                top.merge(&other);
            }
            if !top.drain_into(&mut ids, &mut scores, to_score) {
                return Err(Error::Invalid(
                    "scores came out NaN: vector norms too large for f32".into(),
                ));
            }
        }
        Neighbors::new(k, ids, scores)
    }

    /// The top-k lists of query block `q` over database part `part` of `splits`.
    fn scan_part(
        &self,
        kernel: Kernel,
        q: EmbeddingsView<'_>,
        k: usize,
        part: usize,
        splits: usize,
    ) -> TopK {
        let l2 = self.metric == Metric::L2;
        let panels = Panels::pack(q.as_slice(), q.dim(), kernel.panel_width(), l2);
        let n = self.db.len();
        let len = n.div_ceil(splits);
        let (r0, r1) = ((part * len).min(n), ((part + 1) * len).min(n));
        let mut top = TopK::new(k, panels.queries, panels.padded());
        if r0 < r1 {
            let norms = l2.then(|| L2Norms {
                rows: &self.db_norms[r0..r1],
            });
            let rows = self.db.slice_rows(r0..r1).as_slice();
            kernel::scan(kernel, &panels, rows, r0, norms, &mut top);
        }
        top
    }
}
