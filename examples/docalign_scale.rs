//! How document alignment (`bitext::mine::docalign`) scales with the documents' length:
//! synthetic documents of N sentences (seeded random unit vectors per sentence, the target
//! with one merge, split or deletion every 10 sentences, the vectors of a run of sentences the
//! normalised sum of theirs), aligned with vecalign's defaults; prints the seconds and the
//! share of beads recovered. Run under `/usr/bin/time -v` for the peak memory.
//!
//! ```text
//! cargo run --release --example docalign_scale -- 1000 10000 40000
//! ```

use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::{Embeddings, Rng, normalize_row};
use bitext::mine::docalign::{DocAlignConfig, Overlaps, align_documents};

const DIM: usize = 256;

/// Overlap layers (1–3 sentences) of a document whose sentence `s` is the sum of `units[s]`.
fn overlaps(doc: &[Vec<usize>], u: &[f32]) -> Result<Overlaps> {
    let layers = (0..3)
        .map(|k| {
            let mut data = vec![0f32; doc.len().saturating_sub(k) * DIM];
            for (i, row) in data.chunks_mut(DIM).enumerate() {
                for s in &doc[i..=i + k] {
                    for &unit in s {
                        for (a, b) in row.iter_mut().zip(&u[unit * DIM..(unit + 1) * DIM]) {
                            *a += b;
                        }
                    }
                }
            }
            Ok(Embeddings::new(data, DIM)?)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Overlaps::new(layers)?)
}

fn main() -> Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().context("sizes are sentence counts"))
        .collect::<Result<_>>()?;
    for n in if sizes.is_empty() {
        vec![1000, 10_000]
    } else {
        sizes
    } {
        let mut rng = Rng::seed(n as u64);
        let mut u = vec![0f32; 3 * n * DIM];
        for r in u.chunks_mut(DIM) {
            for x in r.iter_mut() {
                *x = rng.normal() as f32;
            }
            normalize_row(r);
        }
        // Source: one unit per sentence. Target: the same, with an edit every 10 sentences.
        let src: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        let mut tgt: Vec<Vec<usize>> = Vec::new();
        let mut i = 0;
        while i < n {
            match (i % 10 == 9, rng.below(3)) {
                (true, 0) if i + 1 < n => {
                    tgt.push(vec![i, i + 1]); // a merge: 2-1
                    i += 2;
                }
                (true, 1) => {
                    tgt.push(vec![i]);
                    tgt.push(vec![2 * n + i]); // an extra target sentence (0-1)
                    i += 1;
                }
                _ => {
                    tgt.push(vec![i]);
                    i += 1;
                }
            }
        }
        let (os, ot) = (overlaps(&src, &u)?, overlaps(&tgt, &u)?);
        let start = Instant::now();
        let beads = align_documents(&os, &ot, &DocAlignConfig::default())?;
        let secs = start.elapsed().as_secs_f64();
        let aligned = beads
            .iter()
            .filter(|b| !b.src.is_empty() && !b.tgt.is_empty())
            .count();
        println!(
            "{n} × {} sentences: {secs:.2} s, {} beads ({aligned} aligned)",
            tgt.len(),
            beads.len()
        );
    }
    Ok(())
}
