//! Sessions side by side: the same bytes as one session whatever the split, the first error
//! stopping them all, and a split measured on this CPU (`"sessions": 0`), kept in the cache
//! and read back by a later load.
//!
//! Needs the ONNX Runtime library (`BITEXT_ONNXRUNTIME`); without it the tests say so and
//! pass.

use std::path::PathBuf;

use bitext_core::tune::TuneCache;
use bitext_encode::{OnnxSpec, SentenceEncoder, Side};
use bitext_onnx::OnnxEncoder;
use bitext_onnx::split::{Split, SplitSource, candidates};
use bitext_testkit::data::word_lines;
use bitext_testkit::needs::{self, group};
use bitext_tokenize::{SequenceConfig, Tokenizer, TokenizerSpec};

mod common;
use common::transformer_files;

/// The runtime, or `None` (the test recorded as skipped) when this machine has none.
fn runtime() -> Option<PathBuf> {
    needs::file(group::ONNX_RUNTIME, bitext_onnx::runtime_path(None).ok())
}

#[test]
fn sessions_side_by_side_give_the_same_bytes_and_errors() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (spm, path, sp, _) = transformer_files(dir.path());
    let words = [
        "haus", "katze", "baum", "house", "cat", "tree", "der", "the",
    ];
    let text = word_lines(&words, 41, 1, 9, 11);
    let refs: Vec<&str> = text.iter().map(String::as_str).collect();
    let spec = |sessions: usize, max_tokens: Option<usize>| OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm.clone(),
            sequence: SequenceConfig::default(),
        }),
        batch: 4,
        sessions,
        max_tokens,
        runtime: Some(rt.clone()),
        ..OnnxSpec::new(&path)
    };
    let one = OnnxEncoder::load(&spec(1, None)).unwrap();
    let want = one.encode(Side::Source, &refs).unwrap();
    for sessions in [2, 3] {
        let enc = OnnxEncoder::load(&spec(sessions, None)).unwrap();
        let mut seen = Vec::new();
        let got = enc
            .encode_with_progress(Side::Source, &refs, &mut |n| seen.push(n))
            .unwrap();
        assert_eq!(got.as_slice(), want.as_slice(), "{sessions} sessions");
        assert_eq!(seen.last(), Some(&refs.len()));
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        // One batch on its own, from a session that is free.
        let b = enc.encode_batch(Side::Source, &refs[..3]).unwrap();
        assert_eq!(b.as_slice(), &want.as_slice()[..3 * enc.dim()]);
    }
    // A sentence over the limit in a late batch stops every session with the reason.
    let limit = refs
        .iter()
        .map(|s| sp.encode_ids(s).unwrap().len())
        .max()
        .unwrap();
    let many = vec!["the cat"; limit].join(" ");
    let mut long = refs.clone();
    long[37] = &many;
    let e = OnnxEncoder::load(&spec(2, Some(limit)))
        .unwrap()
        .encode(Side::Source, &long)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains(&format!("max_tokens {limit}: \"the cat the cat")),
        "{e}"
    );
    let e = OnnxEncoder::load(&spec(257, None)).unwrap_err();
    assert!(
        e.to_string()
            .contains("sessions must be 0 (measured) or 1 to 256"),
        "{e}"
    );
}

#[test]
fn a_measured_split_encodes_the_same_bytes_and_is_cached() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (spm, path, _, _) = transformer_files(dir.path());
    let words = [
        "haus", "katze", "baum", "house", "cat", "tree", "der", "the",
    ];
    let text = word_lines(&words, 2100, 1, 9, 12);
    let refs: Vec<&str> = text.iter().map(String::as_str).collect();
    let spec = |sessions: usize, threads: usize| OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm.clone(),
            sequence: SequenceConfig::default(),
        }),
        batch: 64,
        sessions,
        threads,
        runtime: Some(rt.clone()),
        ..OnnxSpec::new(&path)
    };
    let want = OnnxEncoder::load(&spec(1, 1))
        .unwrap()
        .encode(Side::Source, &refs)
        .unwrap();
    let cache = TuneCache::at(dir.path().join("auto.json"));
    // Two cores to split: one session of two threads, or two of one.
    let enc = OnnxEncoder::load_tuned(&spec(0, 2), cache.clone()).unwrap();
    assert_eq!(enc.split().1, SplitSource::Unmeasured);
    assert!(enc.tuning().unwrap().contains("not measured"));
    // Too few batches to sample (4 of 64 sentences per candidate, at most a quarter of the
    // batches): not measured.
    let few = enc.encode(Side::Source, &refs[..1000]).unwrap();
    assert_eq!(few.as_slice(), &want.as_slice()[..1000 * enc.dim()]);
    assert_eq!(enc.split().1, SplitSource::Unmeasured);
    let mut seen = Vec::new();
    let got = enc
        .encode_with_progress(Side::Source, &refs, &mut |n| seen.push(n))
        .unwrap();
    assert_eq!(got.as_slice(), want.as_slice());
    assert_eq!(seen.last(), Some(&refs.len()));
    let (split, source) = enc.split();
    let SplitSource::Measured { rates, saved } = source else {
        panic!("not measured: {source:?}");
    };
    assert!(saved);
    let said = enc.tuning().unwrap();
    assert!(
        said.contains("measured here") && said.contains("kB/s"),
        "{said}"
    );
    assert_eq!(rates.iter().map(|r| r.0).collect::<Vec<_>>(), candidates(2));
    assert!(
        rates.iter().all(|r| r.1 > 0.0 && r.1.is_finite()),
        "{rates:?}"
    );
    assert!(candidates(2).contains(&split));
    // Measured once: the next call runs the chosen split, the same bytes.
    assert_eq!(
        enc.encode(Side::Source, &refs).unwrap().as_slice(),
        want.as_slice()
    );
    // A later load reads the cache and builds only the chosen split.
    let again = OnnxEncoder::load_tuned(&spec(0, 2), cache.clone()).unwrap();
    let (split2, source2) = again.split();
    assert_eq!(split2, split);
    assert!(
        matches!(source2, SplitSource::Cached(ref r) if *r == rates),
        "{source2:?}"
    );
    assert!(again.tuning().unwrap().contains("cached measurement"));
    assert_eq!(
        again.encode(Side::Source, &refs).unwrap().as_slice(),
        want.as_slice()
    );
    // Another batch size is another key; one core has nothing to measure.
    let other = OnnxEncoder::load_tuned(
        &OnnxSpec {
            batch: 5,
            ..spec(0, 2)
        },
        cache.clone(),
    );
    assert_eq!(other.unwrap().split().1, SplitSource::Unmeasured);
    let one = OnnxEncoder::load_tuned(&spec(0, 1), cache).unwrap();
    assert_eq!(
        one.split(),
        (
            Split {
                sessions: 1,
                threads: 1
            },
            SplitSource::Spec
        )
    );
    assert_eq!(one.tuning(), None);
}
