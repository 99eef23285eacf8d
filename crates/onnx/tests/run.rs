//! ONNX graphs run end to end through ONNX Runtime: a graph with an in-graph sentencepiece
//! tokenizer (cut off, ids from bitext's sentencepiece) and a transformer-style export (padded
//! ids and mask, mean and CLS pooling), each built in code, their expected outputs computed
//! here from the graphs' weights; and the errors of graphs that cannot be run.
//!
//! Needs the ONNX Runtime library (`BITEXT_ONNXRUNTIME`, which `.ci/run` sets from the
//! `onnxruntime` PyPI wheel); without it, the tests that run a graph say so and pass.

use std::path::PathBuf;

use bitext_encode::{Error, NoKnownWord, OnnxSpec, Pooling, SentenceEncoder, Side};
use bitext_onnx::OnnxEncoder;
use bitext_onnx::graph::build::{
    attr_int, model, node, piece_lookup, tensor, token_states, tokenizer_node,
};
use bitext_onnx::graph::dtype::{BOOL, FLOAT, INT32, INT64};
use bitext_testkit::needs::{self, group};
use bitext_tokenize::{Sentencepiece, SequenceConfig, Tokenizer, TokenizerSpec};

mod common;
use common::{spm_bytes, transformer_files, transformer_like, write};

/// The runtime, or `None` (the test recorded as skipped) when this machine has none.
fn runtime() -> Option<PathBuf> {
    needs::file(group::ONNX_RUNTIME, bitext_onnx::runtime_path(None).ok())
}

const SENTENCES: [&str; 4] = [
    "the cat",
    "der rote baum haus",
    "",
    "tree tree tree cat the haus",
];

/// USE-M's layout: strings → SentencepieceTokenizer → ids, splits → … → [N, 3]. Here each
/// row is `len_i · w + Σ ids · 0` (lengths from the row splits; the ids summed into a second
/// output so that the ids input is used). The tokenizer adds BOS and EOS with `specials`.
fn usem_like(spm: &[u8], splits_type: i64, specials: bool) -> Vec<u8> {
    let tok = tokenizer_node(spm, splits_type);
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let i64s = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let nodes = [
        tok,
        node("Slice", "", &["splits", "one", "big", "zero"], &["hi"], &[]),
        node(
            "Slice",
            "",
            &["splits", "zero", "minus_one", "zero"],
            &["lo"],
            &[],
        ),
        node("Sub", "", &["hi", "lo"], &["len"], &[]),
        node("Cast", "", &["len"], &["len_f"], &[attr_int("to", FLOAT)]),
        node("Unsqueeze", "", &["len_f", "one"], &["len_col"], &[]),
        node("Mul", "", &["len_col", "w"], &["outputs"], &[]),
        node("Cast", "", &["ids"], &["ids_f"], &[attr_int("to", FLOAT)]),
        node(
            "ReduceSum",
            "",
            &["ids_f"],
            &["total"],
            &[attr_int("keepdims", 0)],
        ),
    ];
    let inits = [
        tensor("nbest", &[], INT64, &i64s(&[0])),
        tensor("alpha", &[], FLOAT, &f32s(&[1.0])),
        tensor("bos", &[], BOOL, &[u8::from(specials)]),
        tensor("eos", &[], BOOL, &[u8::from(specials)]),
        tensor("rev", &[], BOOL, &[0]),
        tensor("zero", &[1], INT64, &i64s(&[0])),
        tensor("one", &[1], INT64, &i64s(&[1])),
        tensor("minus_one", &[1], INT64, &i64s(&[-1])),
        tensor("big", &[1], INT64, &i64s(&[i64::MAX])),
        tensor("w", &[1, 3], FLOAT, &f32s(&[1.0, -2.0, 0.5])),
    ];
    model(
        &nodes,
        &inits,
        &[("inputs", 8, &["N"])],
        &[("outputs", FLOAT, &["N", "3"]), ("total", FLOAT, &[])],
        &["ai.onnx.contrib"],
    )
}

#[test]
fn a_graph_with_its_own_tokenizer_is_cut_and_fed_bitexts_ids() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Row splits as the graph declares them: int32, or int64 (USE-M's).
    let sp = Sentencepiece::from_bytes(spm_bytes()).unwrap();
    for splits_type in [INT32, INT64] {
        let path = write(
            dir.path(),
            "usem.onnx",
            usem_like(spm_bytes(), splits_type, true),
        );
        let enc = OnnxEncoder::load(&OnnxSpec {
            normalize: false,
            batch: 3,
            runtime: Some(rt.clone()),
            ..OnnxSpec::new(&path)
        })
        .unwrap();
        assert_eq!(enc.dim(), 3);
        let got = enc.encode(Side::Target, &SENTENCES).unwrap();
        // Expected: the number of pieces, plus BOS and EOS, times w.
        for (i, s) in SENTENCES.iter().enumerate() {
            let n = sp.encode_ids(s).unwrap().len() as f32 + 2.0;
            assert_eq!(got.view().row(i), &[n, -2.0 * n, 0.5 * n], "{s:?}");
        }
        assert_eq!(enc.encode_batch(Side::Source, &[]).unwrap().len(), 0);
    }
    let spec = OnnxSpec {
        normalize: false,
        batch: 3,
        runtime: Some(rt),
        ..OnnxSpec::new(dir.path().join("usem.onnx"))
    };
    // Normalised (the default) and in input order: the same direction for every row.
    let spec = OnnxSpec {
        order: Some(bitext_encode::BatchOrder::Input),
        ..spec
    };
    let unit = OnnxEncoder::load(&OnnxSpec {
        normalize: true,
        ..spec
    })
    .unwrap()
    .encode(Side::Source, &SENTENCES)
    .unwrap();
    let norm = (1.0f32 + 4.0 + 0.25).sqrt();
    for i in 0..SENTENCES.len() {
        for (a, b) in unit.view().row(i).iter().zip([1.0, -2.0, 0.5]) {
            assert!((a - b / norm).abs() < 1e-6);
        }
    }
}

#[test]
fn a_transformer_export_is_fed_padded_ids_and_pooled() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (spm, path, sp, table) = transformer_files(dir.path());
    let sequence = SequenceConfig {
        add_bos: true,
        add_eos: true,
        max_len: None,
    };
    let sp = sp.with_sequence(sequence).unwrap();
    for pooling in [Pooling::Mean, Pooling::Cls] {
        let spec = OnnxSpec {
            tokenizer: Some(TokenizerSpec::Sentencepiece {
                model: spm.clone(),
                sequence,
            }),
            pooling,
            batch: 2,
            runtime: Some(rt.clone()),
            ..OnnxSpec::new(&path)
        };
        let enc = OnnxEncoder::load(&spec).unwrap();
        assert_eq!(enc.dim(), 4);
        let got = enc.encode(Side::Source, &SENTENCES).unwrap();
        for (i, s) in SENTENCES.iter().enumerate() {
            let ids = sp.encode_ids(s).unwrap();
            let rows: Vec<&[f32]> = ids.iter().map(|&t| &table[t as usize * 4..][..4]).collect();
            let mut want = match pooling {
                Pooling::Cls => rows[0].to_vec(),
                _ => (0..4)
                    .map(|k| rows.iter().map(|r| r[k]).sum::<f32>() / rows.len() as f32)
                    .collect(),
            };
            bitext_core::normalize_row(&mut want);
            for (a, b) in got.view().row(i).iter().zip(&want) {
                assert!((a - b).abs() < 1e-5, "{pooling:?} {s:?}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn graphs_that_cannot_be_run_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    // Missing or not an ONNX file: named, whatever the runtime.
    let e = OnnxEncoder::load(&OnnxSpec::new(dir.path().join("none.onnx"))).unwrap_err();
    assert!(e.to_string().contains("none.onnx"), "{e}");
    let junk = write(dir.path(), "junk.onnx", b"\x0a\x03abc");
    let e = OnnxEncoder::load(&OnnxSpec::new(&junk)).unwrap_err();
    assert!(
        e.to_string().contains("junk.onnx") && e.to_string().contains("not an ONNX model"),
        "{e}"
    );
    // A runtime that is not there.
    let usem = write(dir.path(), "usem.onnx", usem_like(spm_bytes(), INT64, true));
    let e = OnnxEncoder::load(&OnnxSpec {
        runtime: Some(dir.path().join("libonnxruntime.so")),
        ..OnnxSpec::new(&usem)
    })
    .unwrap_err();
    assert!(e.to_string().contains("libonnxruntime.so"), "{e}");
    let Some(rt) = runtime() else { return };
    // No tokenizer for a graph without one; a tokenizer for a graph with its own; an output
    // that does not exist.
    let spm = write(dir.path(), "spm.model", spm_bytes());
    let (m, _) = transformer_like(24);
    let tr = write(dir.path(), "tr.onnx", &m);
    let e = OnnxEncoder::load(&OnnxSpec {
        runtime: Some(rt.clone()),
        ..OnnxSpec::new(&tr)
    })
    .unwrap_err();
    assert!(e.to_string().contains("no tokenizer inside"), "{e}");
    let with_tok = OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm,
            sequence: SequenceConfig::default(),
        }),
        runtime: Some(rt),
        ..OnnxSpec::new(&usem)
    };
    let e = OnnxEncoder::load(&with_tok).unwrap_err();
    assert!(e.to_string().contains("has its own tokenizer"), "{e}");
    let e = OnnxEncoder::load(&OnnxSpec {
        tokenizer: None,
        output: Some("pooled".into()),
        ..with_tok.clone()
    })
    .unwrap_err();
    assert!(e.to_string().contains("no output \"pooled\""), "{e}");
    // A sentence over max_tokens is named.
    let enc = OnnxEncoder::load(&OnnxSpec {
        tokenizer: None,
        max_tokens: Some(4),
        ..with_tok
    })
    .unwrap();
    let e = enc.encode(Side::Source, &SENTENCES).unwrap_err();
    assert!(e.to_string().contains("max_tokens 4"), "{e}");
}

#[test]
fn a_transformer_export_is_fed_by_a_tokenizer_json() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A BERT-style WordLevel tokenizer.json: [CLS] words [SEP], the ids known by construction.
    let words = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "house", "tree",
    ];
    let json = bitext_testkit::tokenizer::word_level_json(&words);
    let tok = write(dir.path(), "tokenizer.json", json.as_bytes());
    let (m, table) = transformer_like(words.len());
    let path = write(dir.path(), "tr.onnx", &m);
    let enc = OnnxEncoder::load(&OnnxSpec {
        tokenizer: Some(TokenizerSpec::TokenizerJson { file: tok }),
        batch: 2,
        runtime: Some(rt),
        ..OnnxSpec::new(&path)
    })
    .unwrap();
    let text = ["The cat", "tree house tree", "cat zebra"];
    let ids: [&[usize]; 3] = [&[2, 4, 5, 3], &[2, 7, 6, 7, 3], &[2, 5, 1, 3]];
    let got = enc.encode(Side::Source, &text).unwrap();
    for (i, row_ids) in ids.iter().enumerate() {
        let mut want: Vec<f32> = (0..4)
            .map(|k| row_ids.iter().map(|&t| table[t * 4 + k]).sum::<f32>() / row_ids.len() as f32)
            .collect();
        bitext_core::normalize_row(&mut want);
        for (a, b) in got.view().row(i).iter().zip(&want) {
            assert!((a - b).abs() < 1e-5, "{:?}: {a} vs {b}", text[i]);
        }
    }
}

#[test]
fn piece_vectors_read_an_intermediate_tensor_of_a_graph_with_its_own_tokenizer() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    let sp = Sentencepiece::from_bytes(spm_bytes()).unwrap();
    let vocab = sp.pieces().len();
    let (m, table) = piece_lookup(spm_bytes(), vocab, 3, 21);
    let path = write(dir.path(), "usem-table.onnx", &m);
    let spec = OnnxSpec {
        output: Some("emb".into()),
        normalize: false,
        batch: 5,
        runtime: Some(rt.clone()),
        ..OnnxSpec::new(&path)
    };
    let enc = OnnxEncoder::load(&spec).unwrap();
    assert_eq!(enc.dim(), 3);
    let pieces: Vec<String> = sp.pieces().iter().map(|p| p.piece.clone()).collect();
    assert_eq!(enc.pieces(), Some(&pieces[..]));
    // Every id, in an order that is not the table's, in batches of 5 (the last one short).
    let ids: Vec<u32> = (0..vocab as u32).rev().collect();
    let mut seen = Vec::new();
    let got = enc.piece_vectors(&ids, &mut |n| seen.push(n)).unwrap();
    assert_eq!(got.len(), vocab);
    for (row, &id) in ids.iter().enumerate() {
        assert_eq!(
            got.view().row(row),
            &table[id as usize * 3..][..3],
            "piece {id}"
        );
    }
    assert_eq!(seen.last(), Some(&vocab));
    // Normalised as the spec says.
    let unit = OnnxEncoder::load(&OnnxSpec {
        normalize: true,
        ..spec.clone()
    })
    .unwrap()
    .piece_vectors(&[1], &mut |_| {})
    .unwrap();
    let norm: f32 = unit.view().row(0).iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-5, "{norm}");
    // An id outside the vocabulary, and a tensor no node makes.
    let e = enc
        .piece_vectors(&[vocab as u32], &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("outside the vocabulary"), "{e}");
    let e = OnnxEncoder::load(&OnnxSpec {
        output: Some("no_such_tensor".into()),
        ..spec
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("usem-table.onnx") && e.contains("no_such_tensor"),
        "{e}"
    );
}

#[test]
fn piece_vectors_of_a_padded_export_read_its_embedding_lookup() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    let spm = write(dir.path(), "spm.model", spm_bytes());
    let vocab = Sentencepiece::open(&spm).unwrap().pieces().len();
    let (m, table) = token_states(vocab, 4, 3, false);
    let path = write(dir.path(), "tr.onnx", &m);
    let enc = OnnxEncoder::load(&OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm,
            sequence: SequenceConfig::default(),
        }),
        // `emb`: `Gather(table, input_ids)`, before the mask.
        output: Some("emb".into()),
        normalize: false,
        batch: 4,
        runtime: Some(rt),
        ..OnnxSpec::new(&path)
    })
    .unwrap();
    // A graph fed by the spec's tokenizer has no pieces of its own to name the rows.
    assert_eq!(enc.pieces(), None);
    let ids = [3u32, 0, 7, 7, 1];
    let got = enc.piece_vectors(&ids, &mut |_| {}).unwrap();
    for (row, &id) in ids.iter().enumerate() {
        assert_eq!(got.view().row(row), &table[id as usize * 4..][..4]);
    }
}

/// A sentence the tokenizer gives no token (no special token either: an empty line, a
/// zero-width space) follows the spec's `no_known_word`: by default an error naming its
/// side, its position in the input (batches are sorted by length) and its text, never sent to
/// the graph; with `zero`, a zero row, the other rows as they are alone. With special tokens
/// every sentence has some, and an empty one is encoded by the graph.
#[test]
fn a_sentence_without_tokens_is_an_error_or_a_zero_row() {
    let Some(rt) = runtime() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (spm, tr, sp, _) = transformer_files(dir.path());
    let usem = write(
        dir.path(),
        "bare.onnx",
        usem_like(spm_bytes(), INT64, false),
    );
    let sentences = ["the cat", "der rote baum haus", "\u{200b}", "", "tree"];
    let none: Vec<usize> = (0..sentences.len())
        .filter(|&i| sp.encode_ids(sentences[i]).unwrap().is_empty())
        .collect();
    assert_eq!(none, [2, 3]);
    let tokenizer = |sequence| {
        let model = spm.clone();
        Some(TokenizerSpec::Sentencepiece { model, sequence })
    };
    let padded = |sequence: SequenceConfig, pooling| OnnxSpec {
        batch: 2,
        pooling,
        tokenizer: tokenizer(sequence),
        runtime: Some(rt.clone()),
        ..OnnxSpec::new(&tr)
    };
    let bare = SequenceConfig::default();
    let specs = [
        padded(bare, Pooling::Mean),
        padded(bare, Pooling::Cls),
        OnnxSpec {
            sessions: 2,
            ..padded(bare, Pooling::Mean)
        },
        OnnxSpec {
            batch: 2,
            runtime: Some(rt.clone()),
            ..OnnxSpec::new(&usem)
        },
    ];
    for spec in specs {
        let strict = OnnxEncoder::load(&spec).unwrap();
        let e = strict.encode(Side::Target, &sentences).unwrap_err();
        let Error::NoToken { side, index, .. } = &e else {
            panic!("{e}")
        };
        assert!(*side == Side::Target && none.contains(index), "{e}");
        let e = strict
            .encode_batch(Side::Source, &sentences[1..])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "source sentence 1 has no token: \"\\u{200b}\""
        );
        let zero = OnnxEncoder::load(&OnnxSpec {
            no_known_word: NoKnownWord::Zero,
            ..spec.clone()
        })
        .unwrap();
        let got = zero.encode(Side::Source, &sentences).unwrap();
        got.check_finite().unwrap();
        for (i, s) in sentences.iter().enumerate() {
            if none.contains(&i) {
                assert!(got.row(i).iter().all(|&x| x == 0.0), "{s:?}");
            } else {
                let alone = strict.encode(Side::Source, &[s]).unwrap();
                for (a, b) in got.row(i).iter().zip(alone.row(0)) {
                    assert!((a - b).abs() < 1e-6, "{s:?}: {a} vs {b}");
                }
            }
        }
    }
    // Special tokens: nothing is without a token, and the graph encodes the empty line.
    let framed = SequenceConfig {
        add_bos: true,
        add_eos: true,
        max_len: None,
    };
    for spec in [
        padded(framed, Pooling::Mean),
        OnnxSpec {
            runtime: Some(rt.clone()),
            ..OnnxSpec::new(write(
                dir.path(),
                "usem.onnx",
                usem_like(spm_bytes(), INT64, true),
            ))
        },
    ] {
        let got = OnnxEncoder::load(&spec)
            .unwrap()
            .encode(Side::Source, &sentences)
            .unwrap();
        for i in none.iter().copied() {
            let norm: f32 = got.row(i).iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-5, "{}: {norm}", sentences[i]);
        }
    }
}
