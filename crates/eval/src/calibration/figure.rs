//! The figure of a calibration: histograms of the scores of parallel and non-parallel pairs
//! (as Kim et al. 2019, Fig. 3 and Grégoire & Langlais 2018, Fig. 2), and the calibration
//! curve beside the precision and recall of keeping `{score >= t}`.

use super::{Calibration, LabelledScores};
use crate::plot::{Chart, render};

/// Histogram bins of the score figure.
const BINS: usize = 40;

impl Calibration {
    /// Precision and recall of keeping whole blocks from the top, at each block's threshold
    /// (half-way to the block below): `(threshold, precision, recall)`, highest threshold first.
    #[must_use]
    pub fn block_cuts(&self) -> Vec<(f64, f64, f64)> {
        let (mut kept, mut tp) = (0usize, 0usize);
        let relevant = self.samples.relevant.max(1) as f64;
        let mut out = Vec::with_capacity(self.blocks.len());
        for k in (0..self.blocks.len()).rev() {
            kept += self.blocks[k].count;
            tp += self.blocks[k].positives;
            let t = match k.checked_sub(1) {
                Some(j) => (self.blocks[j].hi + self.blocks[k].lo) / 2.0,
                None => self.blocks[k].lo,
            };
            out.push((t, tp as f64 / kept as f64, tp as f64 / relevant));
        }
        out
    }

    /// The calibration curve's points: each block's two ends at its probability.
    #[must_use]
    pub fn curve(&self) -> Vec<(f64, f64)> {
        self.blocks
            .iter()
            .flat_map(|b| [(b.lo, b.probability), (b.hi, b.probability)])
            .collect()
    }

    /// An SVG figure of this calibration and the sample it was fitted on: the score histograms
    /// of parallel and non-parallel pairs (share of each class per bin), and the calibrated
    /// probability with the precision and recall of `{score >= t}` against the score.
    #[must_use]
    pub fn figure(&self, sample: &LabelledScores, title: &str) -> String {
        let (lo, hi) = sample
            .scored
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(x.0), b.max(x.0))
            });
        let (lo, hi) = if lo < hi {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        };
        let class = |y: bool| -> Vec<f64> {
            sample
                .scored
                .iter()
                .filter(|x| x.1 == y)
                .map(|x| x.0)
                .collect()
        };
        let s = self.samples;
        let hist = Chart::new(&format!("{title}: scores"), "score", "share of the class")
            .x_range(lo, hi)
            .histogram(
                &format!("parallel ({})", s.positives),
                &class(true),
                lo,
                hi,
                BINS,
            )
            .histogram(
                &format!("non-parallel ({})", s.pairs - s.positives),
                &class(false),
                lo,
                hi,
                BINS,
            );
        let cuts = self.block_cuts();
        let curve = Chart::new(&format!("{title}: calibration"), "score", "probability")
            .x_range(lo, hi)
            .y_range(0.0, 1.0)
            .line("P(parallel | score)", self.curve())
            .line(
                "precision of score ≥ t",
                cuts.iter().map(|c| (c.0, c.1)).collect(),
            )
            .line(
                "recall of score ≥ t",
                cuts.iter().map(|c| (c.0, c.2)).collect(),
            );
        render(&[hist, curve])
    }
}
