//! How many pieces a training batch is encoded in when the config says `pieces: 0`: measured
//! on this machine rather than taken from the thread count. The first batch's forward and
//! backward pass is timed whole and in 2, 4 and 8 pieces (those the threads and the batch
//! allow), twice each, interleaved, with a dropout generator of its own and no update, so
//! training itself is untouched; the fastest runs, or fewer pieces within 5% of it. The choice
//! is kept in the workspace's cache of measured choices ([`TuneCache`]) per CPU, threads,
//! network and batch size, so that a later run on this machine uses the same pieces and, with
//! the same seed, gives the same bytes. On a GPU the batch is encoded whole.

use std::time::Instant;

use bitext_core::Rng;
use bitext_core::tune::{Cpu, TuneCache};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::siamese::Siamese;
use crate::siamese::model::MIN_CHUNK;
use crate::train::{TrainLoss, backward};

/// What a measured choice is valid for.
#[derive(Debug, Serialize)]
struct PiecesKey<'a> {
    kind: &'static str,
    version: &'static str,
    cpu: &'a Cpu,
    threads: usize,
    /// The network's configuration, as its description writes it.
    network: serde_json::Value,
    /// The batching's most items and tokens.
    batch: (usize, usize),
}

/// A measured choice as the cache keeps it.
#[derive(Debug, Serialize, Deserialize)]
struct Measured {
    pieces: usize,
    /// Each candidate's faster time, in seconds.
    seconds: Vec<(usize, f64)>,
}

/// The pieces worth timing for a batch of `sentences` on `threads` threads: 1, and 2, 4, 8
/// while there are threads for them and each piece holds at least [`MIN_CHUNK`] sentences.
#[must_use]
pub(crate) fn candidates(threads: usize, sentences: usize) -> Vec<usize> {
    [1, 2, 4, 8]
        .into_iter()
        .filter(|&p| p == 1 || (p <= threads && p * MIN_CHUNK <= sentences))
        .collect()
}

/// The pieces to keep from their times: the fastest, or fewer pieces within 5% of it.
#[must_use]
pub(crate) fn choose(seconds: &[(usize, f64)]) -> usize {
    let best = seconds
        .iter()
        .map(|s| s.1)
        .filter(|s| s.is_finite())
        .fold(f64::INFINITY, f64::min);
    let mut by_pieces: Vec<&(usize, f64)> = seconds.iter().collect();
    by_pieces.sort_by_key(|s| s.0);
    by_pieces
        .into_iter()
        .find(|s| s.1 <= best * 1.05)
        .map_or(1, |s| s.0)
}

/// `model` with its pieces measured on a batch of `sentences` whose loss `loss` computes
/// (see the module docs); `network` and `batch` key the cache.
///
/// # Errors
/// As `loss` and the backward pass.
pub(crate) fn measured(
    model: Siamese,
    cache: &TuneCache,
    (network, batch): (serde_json::Value, (usize, usize)),
    sentences: usize,
    loss: &dyn Fn(&Siamese, &mut Rng) -> Result<TrainLoss>,
) -> Result<Siamese> {
    if model.on_gpu() {
        return Ok(model.with_chunks(1));
    }
    let threads = rayon::current_num_threads();
    let cands = candidates(threads, sentences);
    if cands.len() < 2 {
        return Ok(model.with_chunks(1));
    }
    let key = PiecesKey {
        kind: "siamese-pieces",
        version: env!("CARGO_PKG_VERSION"),
        cpu: bitext_core::tune::cpu(),
        threads,
        network,
        batch,
    };
    if let Some(m) = cache.get::<_, Measured>(&key) {
        return Ok(model.with_chunks(m.pieces));
    }
    let mut best = vec![f64::INFINITY; cands.len()];
    for _ in 0..2 {
        for (&pieces, b) in cands.iter().zip(&mut best) {
            let m = model.clone().with_chunks(pieces);
            let t = Instant::now();
            let l = loss(&m, &mut Rng::seed(0x7069_6563))?;
            drop(backward(&m, l)?);
            *b = b.min(t.elapsed().as_secs_f64());
        }
    }
    let seconds: Vec<(usize, f64)> = cands.into_iter().zip(best).collect();
    let pieces = choose(&seconds);
    // A cache that cannot be written only means measuring again next time.
    let _ = cache.put(&key, &Measured { pieces, seconds });
    Ok(model.with_chunks(pieces))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_threads_and_the_batch() {
        assert_eq!(candidates(1, 256), vec![1]);
        assert_eq!(candidates(2, 256), vec![1, 2]);
        assert_eq!(candidates(16, 256), vec![1, 2, 4, 8]);
        assert_eq!(candidates(16, 40), vec![1, 2]);
    }

    #[test]
    fn the_fastest_wins_and_near_ties_go_to_fewer_pieces() {
        assert_eq!(choose(&[(1, 1.0), (2, 0.6)]), 2);
        assert_eq!(choose(&[(1, 1.0), (2, 0.97), (4, 0.9)]), 4);
        assert_eq!(choose(&[(1, 1.0), (2, 0.97)]), 1);
        assert_eq!(choose(&[(2, f64::NAN), (1, 1.0)]), 1);
        assert_eq!(choose(&[]), 1);
    }
}
