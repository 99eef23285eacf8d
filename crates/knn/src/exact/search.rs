//! The blocked, multi-threaded exact search: queries are cut into blocks, each block is packed
//! once and scanned against the database rows in place (a memory map is read block by block,
//! never copied); the database is also split across threads when there are too few query
//! blocks to keep every thread busy. Results do not depend on the thread count: scores are
//! computed identically everywhere and the top-k order is strict (see `topk`).

use bitext_core::EmbeddingsView;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::exact::kernel::{self, Kernel, L2Norms, Panels};
use crate::exact::topk::TopK;
use crate::index::{Metric, Neighbors};

/// Fewest database rows worth giving a thread of its own.
const MIN_SPLIT_ROWS: usize = 2048;

/// Blocks per progress report and per thread: enough that a thread slowed down by other
/// processes does not hold the others back at the step's end.
const BLOCKS_PER_THREAD_AND_STEP: usize = 4;

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
    /// after every step of blocks.
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
        let step = threads * BLOCKS_PER_THREAD_AND_STEP;
        let mut ids = Vec::with_capacity(nq * k);
        let mut scores = Vec::with_capacity(nq * k);
        let to_score = |key: f32| match self.metric {
            Metric::InnerProduct => key,
            Metric::L2 => -key,
        };
        let mut b0 = 0;
        while b0 < blocks {
            let b1 = (b0 + step).min(blocks);
            let tops: Vec<TopK> = (b0..b1)
                .into_par_iter()
                .map(|b| {
                    let q = queries.slice_rows(b * qb..((b + 1) * qb).min(nq));
                    self.block(kernel, q, k, splits)
                })
                .collect();
            for top in tops {
                if !top.drain_into(&mut ids, &mut scores, to_score) {
                    return Err(Error::Invalid(
                        "scores came out NaN: vector norms too large for f32".into(),
                    ));
                }
            }
            progress((b1 * qb).min(nq));
            b0 = b1;
        }
        Neighbors::new(k, ids, scores)
    }

    /// The top-k lists of one query block, the database scanned in `splits` parallel parts.
    fn block(&self, kernel: Kernel, q: EmbeddingsView<'_>, k: usize, splits: usize) -> TopK {
        let l2 = self.metric == Metric::L2;
        let panels = Panels::pack(q.as_slice(), q.dim(), kernel.panel_width(), l2);
        let n = self.db.len();
        let part = n.div_ceil(splits);
        let scan_part = |s: usize| {
            let (r0, r1) = (s * part, ((s + 1) * part).min(n));
            let mut top = TopK::new(k, panels.queries, panels.padded());
            if r0 < r1 {
                let norms = l2.then(|| L2Norms {
                    rows: &self.db_norms[r0..r1],
                });
                let rows = self.db.slice_rows(r0..r1).as_slice();
                kernel::scan(kernel, &panels, rows, r0, norms, &mut top);
            }
            top
        };
        if splits == 1 {
            return scan_part(0);
        }
        let parts: Vec<TopK> = (0..splits).into_par_iter().map(scan_part).collect();
        let mut parts = parts.into_iter();
        let mut top = parts.next().expect("at least one part");
        for p in parts {
            top.merge(&p);
        }
        top
    }
}
