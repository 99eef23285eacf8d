//! How an [`crate::OnnxEncoder`] spreads its cores: `sessions` ONNX Runtime sessions running
//! batches side by side, each with `threads` operator threads ([`Split`]), and the runner that
//! feeds them.
//!
//! With `"sessions": 0` the split is measured rather than guessed: each way of dividing the
//! spec's `threads` cores (0: all) into sessions of equal threads ([`candidates`]) encodes a
//! sample of the call's own batches (two per session and at least 256 sentences each, spread
//! over the call, the candidates interleaved so that each sees the same mix of lengths; a call
//! with fewer than four times the sample's batches is not measured), its rate in bytes of text per second is timed, and the
//! fastest runs the rest; a split with fewer sessions within 5% of it wins (one copy of the
//! graph's tensors less). The sample batches are part of the result, so the measurement wastes
//! no encoding: it costs building the extra sessions. The choice is kept in the workspace's
//! cache of measured choices ([`TuneCache`]) under the graph's bytes, the batch size, the
//! cores and this CPU, and a later load builds only the chosen split. The vectors are the same
//! whatever runs: every batch is the same batch, run by one session.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, RwLock, mpsc};
use std::time::Instant;

use bitext_core::Embeddings;
use bitext_core::tune::{Cpu, TuneCache};
use bitext_encode::{Error, Result};
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::{GraphOptimizationLevel, PrepackedWeights};
use serde::{Deserialize, Serialize};

/// Sessions running batches side by side, and the operator threads of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Split {
    /// Sessions.
    pub sessions: usize,
    /// Operator threads per session (0: ONNX Runtime's default, all cores).
    pub threads: usize,
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} × {} threads", self.sessions, self.threads)
    }
}

/// Where an encoder's split came from.
#[derive(Debug, Clone, PartialEq)]
pub enum SplitSource {
    /// The spec named it.
    Spec,
    /// Not measured yet: no call has had enough batches to sample (`"sessions": 0`).
    Unmeasured,
    /// Measured in this process: each candidate's rate in bytes of text per second, and
    /// whether the cache file was written.
    Measured {
        /// Each candidate's rate.
        rates: Vec<(Split, f64)>,
        /// Whether the choice was written to the cache.
        saved: bool,
    },
    /// Read from the cache of an earlier run's measurement (with its rates).
    Cached(Vec<(Split, f64)>),
}

/// The splits of `cores` cores (at least 1) into sessions of equal threads: one session of
/// all of them, then 2, 4, … sessions while they divide the cores, and one session per core.
#[must_use]
pub fn candidates(cores: usize) -> Vec<Split> {
    let cores = cores.max(1);
    let mut out = Vec::new();
    let mut s = 1;
    while s < cores {
        if cores.is_multiple_of(s) {
            out.push(Split {
                sessions: s,
                threads: cores / s,
            });
        }
        s *= 2;
    }
    out.push(Split {
        sessions: cores,
        threads: 1,
    });
    out
}

/// The candidate to keep from measured rates (bytes per second, larger is faster): the
/// fastest, or a split with fewer sessions within 5% of it.
#[must_use]
pub fn choose(rates: &[(Split, f64)]) -> Option<Split> {
    let best = rates
        .iter()
        .map(|r| r.1)
        .filter(|r| r.is_finite())
        .fold(f64::NAN, f64::max);
    let mut by_sessions: Vec<&(Split, f64)> = rates.iter().filter(|r| r.1.is_finite()).collect();
    by_sessions.sort_by_key(|r| r.0.sessions);
    by_sessions
        .into_iter()
        .find(|r| r.1 >= best * 0.95)
        .map(|r| r.0)
}

/// What a measured split is valid for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SplitKey {
    kind: String,
    version: String,
    cpu: Cpu,
    /// Length and a hash of the graph's bytes (as run: with an exposed output).
    graph: (usize, u64),
    batch: usize,
    cores: usize,
}

impl SplitKey {
    pub(crate) fn new(bytes: &[u8], batch: usize, cores: usize) -> Self {
        Self {
            kind: "onnx-split".into(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cpu: bitext_core::tune::cpu().clone(),
            graph: (bytes.len(), hash(bytes)),
            batch,
            cores,
        }
    }
}

/// A 64-bit hash of `bytes` (eight at a time, multiply and rotate: fast enough for graphs of
/// hundreds of megabytes).
fn hash(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mix = |h: u64, w: u64| (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    let mut h = chunks.by_ref().fold(0xcbf2_9ce4_8422_2325, |h, c| {
        mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")))
    });
    for &b in chunks.remainder() {
        h = mix(h, u64::from(b));
    }
    h
}

/// A measured choice as the cache keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Measured {
    pub(crate) split: Split,
    pub(crate) rates: Vec<(Split, f64)>,
}

/// A measurement still to make: the graph to build the other candidates from, and where to
/// keep the result.
pub(crate) struct Pending {
    pub(crate) bytes: Vec<u8>,
    pub(crate) key: SplitKey,
    pub(crate) cache: TuneCache,
    pub(crate) candidates: Vec<Split>,
}

impl Pending {
    /// Batches each candidate encodes: two per session, and at least 256 sentences' worth.
    fn per_candidate(&self, split: Split) -> usize {
        (2 * split.sessions).max(256usize.div_ceil(self.key.batch.max(1)))
    }

    /// The sample of a call of `batches` batches: for each candidate, the batches it encodes
    /// (spread over all of them, the candidates interleaved); `None` when the call has too few
    /// batches for the sample to be at most a quarter of them.
    pub(crate) fn sample(&self, batches: usize) -> Option<Vec<Vec<usize>>> {
        let counts: Vec<usize> = self
            .candidates
            .iter()
            .map(|&c| self.per_candidate(c))
            .collect();
        let total: usize = counts.iter().sum();
        if batches < 4 * total {
            return None;
        }
        let mut left = counts.clone();
        let mut out = vec![Vec::new(); counts.len()];
        let mut c = 0;
        for i in 0..total {
            while left[c] == 0 {
                c = (c + 1) % counts.len();
            }
            out[c].push(i * batches / total);
            left[c] -= 1;
            c = (c + 1) % counts.len();
        }
        Some(out)
    }
}

/// A batch's encoder: the rows of batch `b` on a session.
pub(crate) type Encode<'a> = dyn Fn(&mut Session, usize) -> Result<Embeddings> + Sync + 'a;

/// Where a batch's rows go.
pub(crate) type Place<'a> = dyn FnMut(usize, &Embeddings) + 'a;

/// An encoder's sessions: the split in use, where it came from, and the measurement still
/// to make.
pub(crate) struct Sessions {
    env: &'static Environment,
    current: RwLock<(Split, Vec<Mutex<Session>>)>,
    source: Mutex<SplitSource>,
    pending: Mutex<Option<Pending>>,
}

impl Sessions {
    pub(crate) fn new(
        env: &'static Environment,
        split: Split,
        sessions: Vec<Mutex<Session>>,
        source: SplitSource,
        pending: Option<Pending>,
    ) -> Self {
        Self {
            env,
            current: RwLock::new((split, sessions)),
            source: Mutex::new(source),
            pending: Mutex::new(pending),
        }
    }

    /// The split in use and where it came from.
    pub(crate) fn split(&self) -> (Split, SplitSource) {
        let split = self
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .0;
        let source = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        (split, source.clone())
    }

    /// What a measured split (`"sessions": 0`) chose and from what, for a run's summary.
    pub(crate) fn summary(&self) -> Option<String> {
        let (split, source) = self.split();
        let rates = |r: &[(Split, f64)]| {
            r.iter()
                .map(|(s, v)| format!("{s} {:.0} kB/s", v / 1000.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match source {
            SplitSource::Spec => None,
            SplitSource::Unmeasured => Some(format!(
                "ONNX sessions: {split}, not measured (no call had enough batches to sample)"
            )),
            SplitSource::Measured { rates: r, saved } => Some(format!(
                "ONNX sessions: {split}, measured here ({}){}",
                rates(&r),
                if saved {
                    ""
                } else {
                    "; not cached: the cache file cannot be written"
                }
            )),
            SplitSource::Cached(r) => Some(format!(
                "ONNX sessions: {split}, from this CPU's cached measurement ({})",
                rates(&r)
            )),
        }
    }

    /// Run `f` on a session no other thread is using, else on the first.
    pub(crate) fn with_free<T>(&self, f: &mut dyn FnMut(&mut Session) -> Result<T>) -> Result<T> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        let mut session = match current.1.iter().find_map(|s| s.try_lock().ok()) {
            Some(s) => s,
            None => lock(&current.1, 0)?,
        };
        f(&mut session)
    }

    /// Encode the batches `todo` on the sessions in use ([`run_side_by_side`]).
    pub(crate) fn run(
        &self,
        todo: &[usize],
        encode: &Encode<'_>,
        place: &mut Place<'_>,
    ) -> Result<()> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        run_side_by_side(&current.1, todo, encode, place)
    }

    /// With a split still to measure and enough of the call's `batches`: encode each
    /// candidate's sample of them on its sessions (building those it lacks from the graph),
    /// time them by `weight` (bytes of text of a batch), keep the fastest split ([`choose`])
    /// and write it to the cache; returns which batches were encoded. `model` names the graph
    /// in errors.
    pub(crate) fn measure(
        &self,
        batches: usize,
        (weight, model): (&dyn Fn(usize) -> usize, &std::path::Path),
        encode: &Encode<'_>,
        place: &mut Place<'_>,
    ) -> Result<Option<Vec<bool>>> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(sample) = pending.as_ref().and_then(|p| p.sample(batches)) else {
            return Ok(None);
        };
        let p = pending.take().expect("checked above");
        drop(pending);
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let mut built: Vec<(Split, Vec<Mutex<Session>>)> = Vec::new();
        let mut rates = Vec::new();
        let mut encoded = vec![false; batches];
        for (&split, todo) in p.candidates.iter().zip(&sample) {
            if split != current.0 {
                built.push((split, build(self.env, &p.bytes, split, model)?));
            }
            let sessions = match built.last() {
                Some((s, list)) if *s == split => list,
                _ => &current.1,
            };
            let bytes: usize = todo.iter().map(|&b| weight(b)).sum();
            let t = Instant::now();
            run_side_by_side(sessions, todo, encode, place)?;
            rates.push((split, bytes as f64 / t.elapsed().as_secs_f64()));
            todo.iter().for_each(|&b| encoded[b] = true);
        }
        let chosen = choose(&rates).unwrap_or(current.0);
        if let Some(i) = built.iter().position(|b| b.0 == chosen) {
            *current = built.swap_remove(i);
        }
        let measured = Measured {
            split: chosen,
            rates,
        };
        let saved = p.cache.put(&p.key, &measured).is_ok();
        *self.source.lock().unwrap_or_else(PoisonError::into_inner) = SplitSource::Measured {
            rates: measured.rates,
            saved,
        };
        Ok(Some(encoded))
    }
}

/// Build the sessions of `split` over the graph `bytes` (errors name `model`).
pub(crate) fn build(
    env: &'static Environment,
    bytes: &[u8],
    split: Split,
    model: &std::path::Path,
) -> Result<Vec<Mutex<Session>>> {
    let named = |e: &dyn std::fmt::Display| Error::Invalid(format!("{}: {e}", model.display()));
    // One container of prepacked weights for all sessions, so that a second session does
    // not pack the graph's matrices again.
    let packed = (split.sessions > 1).then(PrepackedWeights::new);
    let mut sessions = Vec::with_capacity(split.sessions);
    for _ in 0..split.sessions {
        let mut builder = Session::builder(env).map_err(|e| named(&e))?;
        if split.threads > 0 {
            builder = builder
                .with_intra_threads(split.threads)
                .map_err(|e| named(&e))?;
        }
        builder = builder
            .with_inter_threads(1)
            .map_err(|e| named(&e))?
            // What onnxruntime's Python API does by default (ORT_ENABLE_ALL).
            .with_optimization_level(GraphOptimizationLevel::All)
            .map_err(|e| named(&e))?;
        if let Some(p) = &packed {
            builder = builder.with_prepacked_weights(p).map_err(|e| named(&e))?;
        }
        let session = builder.commit_from_memory(bytes).map_err(|e| named(&e))?;
        sessions.push(Mutex::new(session));
    }
    Ok(sessions)
}

/// Session `which` of `sessions`, locked.
pub(crate) fn lock(
    sessions: &[Mutex<Session>],
    which: usize,
) -> Result<std::sync::MutexGuard<'_, Session>> {
    sessions[which]
        .lock()
        .map_err(|_| Error::Backend("an earlier batch panicked inside ONNX Runtime".into()))
}

/// Encode the batches `todo` (indices into the call's batches) on `sessions` side by side:
/// each session's thread takes the next batch; `place` gets each batch's index and rows as
/// they come, in any order. The first error stops the others and is returned.
pub(crate) fn run_side_by_side(
    sessions: &[Mutex<Session>],
    todo: &[usize],
    encode: &Encode<'_>,
    place: &mut Place<'_>,
) -> Result<()> {
    if sessions.len() == 1 || todo.len() < 2 {
        let mut session = lock(sessions, 0)?;
        for &b in todo {
            let e = encode(&mut session, b)?;
            place(b, &e);
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<(usize, Embeddings)>>();
    let failed = std::thread::scope(|scope| {
        for which in 0..sessions.len() {
            let (tx, next, stop) = (tx.clone(), &next, &stop);
            scope.spawn(move || {
                let mut session = match lock(sessions, which) {
                    Ok(s) => s,
                    Err(e) => return drop(tx.send(Err(e))),
                };
                while !stop.load(Ordering::Relaxed) {
                    let Some(&b) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let r = encode(&mut session, b);
                    let bad = r.is_err();
                    if tx.send(r.map(|e| (b, e))).is_err() || bad {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut failed = None;
        for r in rx {
            match r {
                Ok((b, e)) => place(b, &e),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    failed.get_or_insert(e);
                }
            }
        }
        failed
    });
    failed.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_divide_the_cores() {
        let s = |sessions, threads| Split { sessions, threads };
        assert_eq!(candidates(1), vec![s(1, 1)]);
        assert_eq!(candidates(2), vec![s(1, 2), s(2, 1)]);
        assert_eq!(candidates(6), vec![s(1, 6), s(2, 3), s(6, 1)]);
        assert_eq!(
            candidates(16),
            vec![s(1, 16), s(2, 8), s(4, 4), s(8, 2), s(16, 1)]
        );
    }

    #[test]
    fn the_fastest_wins_and_near_ties_go_to_fewer_sessions() {
        let s = |sessions, threads| Split { sessions, threads };
        assert_eq!(choose(&[(s(1, 2), 100.0), (s(2, 1), 120.0)]), Some(s(2, 1)));
        assert_eq!(choose(&[(s(2, 1), 104.0), (s(1, 2), 100.0)]), Some(s(1, 2)));
        assert_eq!(
            choose(&[(s(1, 2), 100.0), (s(2, 1), f64::NAN)]),
            Some(s(1, 2))
        );
        assert_eq!(choose(&[]), None);
    }

    #[test]
    fn samples_are_spread_interleaved_and_disjoint() {
        let pending = Pending {
            bytes: Vec::new(),
            key: SplitKey::new(b"graph", 8, 2),
            cache: TuneCache::off(),
            candidates: candidates(2),
        };
        // Batches of 8: 32 each (256 sentences), so at least 4 × 64 batches.
        assert_eq!(pending.sample(255), None);
        let got = pending.sample(300).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].len(), 32);
        assert_eq!(got[1].len(), 32);
        let mut all: Vec<usize> = got.concat();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 64);
        assert!(all.iter().all(|&b| b < 300));
        assert_eq!(got[0][0], 0);
        assert!(*all.last().unwrap() > 280, "{all:?}");
        // Another graph, batch or core count is another key.
        assert_ne!(
            SplitKey::new(b"graph", 8, 2),
            SplitKey::new(b"graph!", 8, 2)
        );
        assert_ne!(
            SplitKey::new(b"graph", 8, 2),
            SplitKey::new(b"graph", 16, 2)
        );
        assert_ne!(SplitKey::new(b"graph", 8, 2), SplitKey::new(b"graph", 8, 4));
    }
}
