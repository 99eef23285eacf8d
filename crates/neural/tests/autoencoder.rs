//! The shared-decoder autoencoder (Kim et al. 2019): max pooling ignores padding, the decoder
//! sees an input only through its vector `s0`, every batch is 1:1, both losses fall on a tiny
//! task, gradients reach every parameter, the model directory round-trips, tables initialised
//! from `.vec` files hold each known token's vector, and the `SentenceEncoder` conformance
//! suite.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::autoencoder::{
    AutoRef, Autoencoder, AutoencoderConfig, AutoencoderEncoder, AutoencoderTask,
    AutoencoderTextTraining, AutoencoderTrainConfig, Softmax, candidates, deal_autoencoding,
};
use bitext_neural::backend::BackendSpec;
use bitext_neural::batch::Bucketing;
use bitext_neural::pretrained::VectorsInit;
use bitext_neural::rnn::CellKind;
use bitext_neural::spec::NeuralModel;
use bitext_neural::text::TextCorpus;
use bitext_neural::text::TextTraining;
use bitext_neural::train::{Task, backward, checkpoint};
use bitext_testkit::data::{lexicon, parallel_text};
use bitext_testkit::sentence_encoder_suite;
use burn::tensor::Tensor;
use common::{ae_toy_pairs, cpu, host2, max_diff, params, refs, small_schedule};

fn tiny(cell: CellKind) -> AutoencoderConfig {
    common::tiny_autoencoder(6, cell)
}

/// A sentence's vector is the element-wise maximum of its own encoder states: the same alone
/// and beside longer sentences (whose extra steps are padding for it), at least its final
/// forward state everywhere, and equal to the maximum of the per-position states.
#[test]
fn max_pooling_ignores_padding() {
    for cell in [CellKind::Gru, CellKind::Lstm] {
        let model = Autoencoder::new(&tiny(cell), 5, &cpu()).unwrap();
        let short: &[u32] = &[3, 1, 4];
        let long: &[u32] = &[2, 7, 1, 8, 2, 8, 1, 8];
        for side in [Side::Source, Side::Target] {
            let alone = host2(model.encode(&[short], side).unwrap());
            let batched = host2(model.encode(&[long, short, &[5]], side).unwrap());
            assert!(
                max_diff(&alone, &batched[12..24]) < 1e-6,
                "{cell:?} {side:?}"
            );
            // Per-position states of the short sentence, by running its encoder alone.
            let (emb, rnn) = match side {
                Side::Source => (&model.src_embedding, &model.src_encoder),
                Side::Target => (&model.tgt_embedding, &model.tgt_encoder),
            };
            let batch = bitext_neural::batch::PackedBatch::new(&[short]).unwrap();
            let out = rnn.forward(emb.lookup(&batch).unwrap(), batch.batch_sizes(), true);
            let steps: Vec<Vec<f32>> = out.steps.into_iter().map(host2).collect();
            let want: Vec<f32> = (0..12)
                .map(|c| steps.iter().map(|s| s[c]).fold(f32::NEG_INFINITY, f32::max))
                .collect();
            assert!(max_diff(&alone, &want) < 1e-6);
            let last = host2(out.last);
            assert!(alone[..6].iter().zip(&last[..6]).all(|(m, l)| m >= l));
        }
    }
}

/// Both encoders start from the same weights: given the same embedding table (one bilingual
/// space), a fresh model gives a sentence the same vector on either side; training then
/// moves them apart (they are separate parameters).
#[test]
fn encoders_start_alike_and_are_separate_parameters() {
    let config = tiny(CellKind::Gru).with_encoder(|e| e.tgt_vocab = 12);
    let table: Vec<f32> = (0..12 * 8)
        .map(|i| ((i * 7) % 13) as f32 / 13.0 - 0.5)
        .collect();
    let dec: Vec<f32> = (0..13 * 8)
        .map(|i| ((i * 5) % 11) as f32 / 11.0 - 0.5)
        .collect();
    let model = Autoencoder::new(&config, 4, &cpu())
        .unwrap()
        .with_embedding_tables(table.clone(), table.clone(), dec.clone())
        .unwrap();
    let s: &[u32] = &[3, 1, 4, 1, 5];
    let a = host2(model.encode(&[s], Side::Source).unwrap());
    let b = host2(model.encode(&[s], Side::Target).unwrap());
    assert_eq!(a, b);
    assert!(
        Autoencoder::new(&config, 4, &cpu())
            .unwrap()
            .with_embedding_tables(table.clone(), table, vec![0.0; 3])
            .is_err()
    );
    let p = params(&model);
    let (src, tgt) = (
        p.iter()
            .find(|(id, _)| *id == model.src_encoder.fwd.w_hh.id)
            .unwrap(),
        p.iter()
            .find(|(id, _)| *id == model.tgt_encoder.fwd.w_hh.id)
            .unwrap(),
    );
    assert_ne!(src.0, tgt.0);
    assert_eq!(src.1, tgt.1);
}

/// The translation loss of a batch is the decoder's loss from the input's vector alone, and the
/// autoencoding loss the same from the decoded sentence's own vector: nothing else of the
/// input reaches the decoder. Two inputs with different tokens but the same vector would get
/// the same loss.
#[test]
fn the_decoder_sees_the_input_only_through_s0() {
    for decoded in [Side::Target, Side::Source] {
        let config = AutoencoderConfig {
            decoded,
            ..tiny(CellKind::Gru)
        };
        let model = Autoencoder::new(&config, 9, &cpu()).unwrap();
        let data = ae_toy_pairs(5, 2);
        let (ins, outs) = match decoded {
            Side::Target => (refs(&data.src), refs(&data.tgt)),
            Side::Source => (refs(&data.tgt), refs(&data.src)),
        };
        let other = match decoded {
            Side::Target => Side::Source,
            Side::Source => Side::Target,
        };
        let auto = &outs[1..4];
        let l = model.loss(&ins, &outs, auto, None).unwrap();
        let tr = model
            .decode_nll(model.encode(&ins, other).unwrap(), &outs)
            .unwrap();
        let ae = model
            .decode_nll(model.encode(auto, decoded).unwrap(), auto)
            .unwrap();
        let v = |t: Tensor<1>| t.into_data().try_into_vec::<f32>().unwrap()[0];
        let (lt, la, tr, ae) = (v(l.translation), v(l.autoencoding), v(tr), v(ae));
        assert!((lt - tr).abs() < 1e-5, "{lt} vs {tr}");
        assert!((la - ae).abs() < 1e-5, "{la} vs {ae}");
        assert!(lt.is_finite() && lt > 0.0);
        // A changed input changes the loss only as much as its vector: a vector of zeros gives
        // the decoder nothing to go on and the same loss for every input.
        let zeros = Tensor::<2>::zeros([5, model.dim()], &cpu());
        let z1 = v(model.decode_nll(zeros.clone(), &outs).unwrap());
        let z2 = v(model.decode_nll(zeros, &outs).unwrap());
        assert_eq!(z1, z2);
        // Bad shapes are errors, not panics.
        assert!(
            model
                .decode_nll(Tensor::<2>::zeros([4, model.dim()], &cpu()), &outs)
                .is_err()
        );
    }
}

#[test]
fn gradient_reaches_every_parameter() {
    for cell in [CellKind::Gru, CellKind::Lstm] {
        let config = AutoencoderConfig {
            dropout: 0.1,
            softmax: Softmax::Sampled { candidates: 5 },
            ..tiny(cell)
        };
        let model = Autoencoder::new(&config, 3, &cpu().autodiff()).unwrap();
        let data = ae_toy_pairs(6, 1);
        let (src, tgt) = (refs(&data.src), refs(&data.tgt));
        let l = model
            .loss(&src, &tgt, &tgt[2..], Some(&mut Rng::seed(4)))
            .unwrap();
        assert_eq!(l.loss.deferred.len(), 3);
        let grads = backward(&model, l.loss).unwrap();
        common::assert_every_param_learns(&model, &grads, &format!("{cell:?}: "));
    }
}

#[test]
fn sampled_candidates_hold_every_target() {
    let mut rng = Rng::seed(1);
    let c = candidates(&[7, 3, 7, 99], 10, 100, &mut rng);
    assert_eq!(c.len(), 10);
    assert!(c.windows(2).all(|w| w[0] < w[1]));
    assert!([3, 7, 99].iter().all(|t| c.contains(t)));
    // More than half of a small vocabulary, and more than there is.
    assert_eq!(candidates(&[1], 8, 10, &mut rng).len(), 8);
    assert_eq!(
        candidates(&[1], 50, 10, &mut rng),
        (0..10).collect::<Vec<_>>()
    );
    // The targets alone when they are already enough.
    assert_eq!(candidates(&[4, 2, 9], 2, 10, &mut rng), vec![2, 4, 9]);
}

/// Every batch holds as many autoencoding as translation examples, and over an epoch every
/// pair's decoded side and every monolingual sentence is autoencoded.
#[test]
fn batches_are_one_to_one() {
    let batches = vec![vec![0, 1, 2], vec![3], vec![4, 5, 6, 7], vec![8, 9]];
    let dealt = deal_autoencoding(batches.clone(), 10, 3, &mut Rng::seed(2));
    assert_eq!(dealt.len(), 4);
    let mut seen = Vec::new();
    for (b, d) in batches.iter().zip(&dealt) {
        assert_eq!(&d.pairs, b);
        assert_eq!(d.auto.len(), d.pairs.len());
        seen.extend(d.auto.iter().copied());
    }
    // 10 slots for 13 sentences: 10 distinct ones.
    seen.sort_by_key(|r| match r {
        AutoRef::Pair(k) => (0, *k),
        AutoRef::Mono(k) => (1, *k),
    });
    seen.dedup();
    assert_eq!(seen.len(), 10);
    // Nothing to deal: no autoencoding examples (and no panic).
    let none = deal_autoencoding(vec![vec![0, 1]], 0, 0, &mut Rng::seed(3));
    assert!(none[0].auto.is_empty());
    // More slots than sentences: the pool cycles.
    let small = deal_autoencoding(vec![vec![0, 1, 2, 3, 4]], 2, 1, &mut Rng::seed(3));
    assert_eq!(small[0].auto.len(), 5);
    // The task's own batches.
    let data = ae_toy_pairs(40, 5);
    let mut task = AutoencoderTask::new(
        tiny(CellKind::Gru),
        data,
        vec![vec![1, 2], vec![3]],
        None,
        Bucketing {
            max_items: 7,
            max_tokens: 200,
        },
    )
    .unwrap();
    let batches = task.epoch_batches(1, &mut Rng::seed(1)).unwrap();
    assert_eq!(batches.iter().map(|b| b.pairs.len()).sum::<usize>(), 40);
    for b in &batches {
        assert_eq!(b.auto.len(), b.pairs.len());
        assert_eq!(task.batch_items(b), 2 * b.pairs.len());
    }
    assert!(
        AutoencoderTask::new(
            tiny(CellKind::Gru),
            ae_toy_pairs(3, 1),
            vec![vec![]],
            None,
            Bucketing {
                max_items: 7,
                max_tokens: 200,
            },
        )
        .is_err()
    );
}

/// On a tiny learnable task the held-out translation and autoencoding losses both fall.
#[test]
fn both_losses_decrease_on_a_tiny_task() {
    let config = AutoencoderConfig {
        softmax: Softmax::Sampled { candidates: 8 },
        ..tiny(CellKind::Gru)
    }
    .with_encoder(|e| {
        e.emb_dim = 16;
        e.hidden = 16;
    });
    let mut task = AutoencoderTask::new(
        config,
        ae_toy_pairs(120, 1),
        Vec::new(),
        Some(ae_toy_pairs(30, 2)),
        Bucketing {
            max_items: 16,
            max_tokens: 400,
        },
    )
    .unwrap();
    let model = Autoencoder::new(&config, 1, &cpu().autodiff()).unwrap();
    let fitted = common::fit_clipped(&mut task, model, 8, 7);
    let h = &fitted.state.history;
    let metric = |e: usize, k: &str| h[e].valid.as_ref().unwrap().metrics[k];
    let last = h.len() - 1;
    for k in ["translation_nll", "autoencoding_nll"] {
        assert!(
            metric(last, k) < 0.7 * metric(0, k),
            "{k}: {} → {}",
            metric(0, k),
            metric(last, k)
        );
    }
    assert!(h[last].train_loss < h[0].train_loss);
}

/// A small autoencoder trained from text once for the tests below (word vocabulary, tables
/// initialised from the testkit's bilingual lexicon).
fn trained() -> &'static tempfile::TempDir {
    static MODEL: OnceLock<tempfile::TempDir> = OnceLock::new();
    MODEL.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (src, tgt) = parallel_text(150, 1);
        let (vs, vt) = parallel_text(20, 2);
        let (de, en) = lexicon(20, 12, 3);
        write_vec(&dir.path().join("de.vec"), &de);
        write_vec(&dir.path().join("en.vec"), &en);
        let out = dir.path().join("model");
        let job = job(&src, &tgt, (&vs, &vt), dir.path(), 12);
        let trained = job.run(&out, false).unwrap();
        assert_eq!(trained.dropped_pairs, 0);
        assert_eq!(trained.truncated, 0);
        assert_eq!(trained.unknown_tokens.0, 0);
        dir
    })
}

fn write_vec(path: &Path, v: &bitext_core::io::vec::WordVectors) {
    let mut s = format!("{} {}\n", v.len(), v.dim());
    for (w, row) in v.words().iter().zip(v.vectors().rows()) {
        s.push_str(w);
        for x in row {
            s.push_str(&format!(" {x}"));
        }
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

fn job<'a>(
    src: &'a [String],
    tgt: &'a [String],
    valid: (&'a [String], &'a [String]),
    vectors: &Path,
    emb: usize,
) -> AutoencoderTextTraining<'a> {
    let mut train = AutoencoderTrainConfig::paper(3);
    (train.batching, train.train) = small_schedule(12, 0.02, 400);
    AutoencoderTextTraining {
        corpus: TextCorpus {
            init: Some(VectorsInit {
                source: vectors.join("de.vec"),
                target: Some(vectors.join("en.vec")),
                max_words: None,
            }),
            max_len: Some(60),
            ..common::every_word_corpus(src, tgt, Some(valid), false)
        },
        mono: &[],
        network: AutoencoderConfig {
            softmax: Softmax::Sampled { candidates: 10 },
            ..AutoencoderConfig::paper(1, 1)
        }
        .with_encoder(|e| {
            e.emb_dim = emb;
            e.hidden = 12;
        }),
        train,
        teacher: None,
    }
}

fn encoder() -> AutoencoderEncoder {
    AutoencoderEncoder::load(&trained().path().join("model"), BackendSpec::Flex)
        .unwrap()
        .with_batching(Bucketing {
            max_items: 3,
            max_tokens: 30,
        })
}

/// The saved directory loads back into the model training produced (same vectors), as an
/// encoder, through the model spec, and as a cosine scorer.
#[test]
fn the_model_directory_round_trips() {
    let dir = trained().path().join("model");
    let enc = encoder();
    let fitted = Autoencoder::new(&enc.description().network, 0, &cpu()).unwrap();
    let fitted = checkpoint::load_weights(fitted, &dir.join(checkpoint::WEIGHTS_FILE)).unwrap();
    assert_eq!(params(&fitted), params(enc.model()));
    let (src, tgt) = parallel_text(10, 7);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt.iter().map(String::as_str).collect();
    let ids = enc.text().encode(Side::Source, &s).unwrap();
    let direct = host2(fitted.encode(&refs(&ids), Side::Source).unwrap());
    let via = enc.vectors(Side::Source, &s).unwrap();
    assert!(max_diff(&direct, via.as_slice()) < 1e-5);
    let model = NeuralModel::load(&bitext_encode::ModelSpec::new(&dir)).unwrap();
    assert!(matches!(model, NeuralModel::Autoencoder(_)));
    let scorer = model.scorer(&s, &t).unwrap();
    let scores = scorer.score(&[(0, 0), (3, 4)]).unwrap();
    assert!(scores.iter().all(|x| (-1.0..=1.0).contains(x)));
    // Resuming a finished run trains nothing more and keeps the weights.
    let before = std::fs::read(dir.join(checkpoint::WEIGHTS_FILE)).unwrap();
    let d = trained().path();
    let (src, tgt) = parallel_text(150, 1);
    let (vs, vt) = parallel_text(20, 2);
    let copy = tempfile::tempdir().unwrap();
    common::copy_dir(&dir, copy.path());
    let job = job(&src, &tgt, (&vs, &vt), d, 12);
    let again = job.run(copy.path(), true).unwrap();
    assert!(again.init.is_none());
    assert_eq!(
        std::fs::read(copy.path().join(checkpoint::WEIGHTS_FILE)).unwrap(),
        before
    );
}

/// With frozen tables initialised from `.vec` files, each known word's row is its vector and
/// training leaves it there; the decoder's table starts from the decoded language's.
#[test]
fn tables_initialised_from_vectors_hold_each_known_word() {
    let d = trained().path();
    let (src, tgt) = parallel_text(40, 1);
    let (vs, vt) = parallel_text(10, 2);
    let mut j = job(&src, &tgt, (&vs, &vt), d, 12);
    j.network.frozen_embeddings = true;
    j.train.train.epochs = 1;
    let out = tempfile::tempdir().unwrap();
    let trained = j.run(out.path(), false).unwrap();
    let [rs, rt] = trained.init.unwrap();
    assert_eq!((rs.from_file, rt.from_file), (20, 20));
    let enc = AutoencoderEncoder::load(out.path(), BackendSpec::Flex).unwrap();
    let de = bitext_core::io::vec::read_vec(d.join("de.vec"), None).unwrap();
    let en = bitext_core::io::vec::read_vec(d.join("en.vec"), None).unwrap();
    let m = enc.model();
    let (tsrc, tdec, ttgt) = (
        host2(m.src_embedding.weight.val()),
        host2(m.dec_embedding.weight.val()),
        host2(m.tgt_embedding.weight.val()),
    );
    for (side, vectors, table) in [(Side::Source, &de, &tsrc), (Side::Target, &en, &ttgt)] {
        let tok = enc.text().tokenizer(side);
        for (w, row) in vectors.words().iter().zip(vectors.vectors().rows()) {
            let id = tok.token_to_id(w).unwrap() as usize;
            assert_eq!(&table[id * 12..(id + 1) * 12], row, "{side:?} {w}");
            if side == Side::Target {
                assert_eq!(&tdec[id * 12..(id + 1) * 12], row, "decoder {w}");
            }
        }
    }
    // The decoder table has the start row on top of the target vocabulary.
    assert_eq!(tdec.len(), ttgt.len() + 12);
    // A smaller embedding size projects the vectors (and a larger one is refused).
    let mut wide = job(&src, &tgt, (&vs, &vt), d, 13);
    wide.train.train.epochs = 1;
    assert!(
        wide.run(tempfile::tempdir().unwrap().path(), false)
            .is_err()
    );
}

/// Bad input: sides of different lengths, no usable pair, over-long sentences cut and counted.
#[test]
fn bad_input_is_named_and_long_sentences_are_cut() {
    let d = trained().path();
    let (src, tgt) = parallel_text(12, 4);
    let (vs, vt) = parallel_text(4, 5);
    let mut j = job(&src, &tgt[..11], (&vs, &vt), d, 12);
    j.corpus.init = None;
    let out = tempfile::tempdir().unwrap();
    let e = j.run(out.path(), false).unwrap_err();
    assert!(e.to_string().contains("12 source but 11 target"), "{e}");
    let empty = vec![String::new(); 3];
    let mut j = job(&empty, &empty, (&vs, &vt), d, 12);
    j.corpus.init = None;
    j.corpus.vocab.min_count = 1;
    assert!(j.run(tempfile::tempdir().unwrap().path(), false).is_err());
    let mut j = job(&src, &tgt, (&vs, &vt), d, 12);
    j.corpus.init = None;
    j.corpus.max_len = Some(3);
    j.train.train.epochs = 1;
    let t = j.run(tempfile::tempdir().unwrap().path(), false).unwrap();
    let long = src
        .iter()
        .chain(&tgt)
        .chain(&vs)
        .chain(&vt)
        .filter(|s| s.split(' ').count() > 3)
        .count();
    assert!(long > 0);
    assert_eq!(t.truncated, long);
}

sentence_encoder_suite!(
    autoencoder_encoder,
    encoder(),
    bitext_testkit::encoder::Expect::within(1e-5)
);

/// The model directory as a [`ModelEncoder`](bitext_neural::spec::ModelEncoder), the type the
/// MLP and `bitext embed --model` load encoders as.
fn model_encoder() -> bitext_neural::spec::ModelEncoder {
    bitext_neural::spec::ModelEncoder::load(&trained().path().join("model"), BackendSpec::Flex)
        .unwrap()
}

/// The cosine of the autoencoder's vectors over 12 sources and 10 targets (the translations
/// of the first 8 sources, then 2 unrelated sentences).
fn cosine_scorer() -> Box<dyn bitext_similarity::PairScorer> {
    let (src, tgt) = parallel_text(12, 31);
    let (_, other) = parallel_text(2, 32);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt[..8].iter().chain(&other).map(String::as_str).collect();
    NeuralModel::load(&bitext_encode::ModelSpec::new(
        trained().path().join("model"),
    ))
    .unwrap()
    .scorer(&s, &t)
    .unwrap()
}

sentence_encoder_suite!(
    model_encoder_of_an_autoencoder,
    model_encoder(),
    bitext_testkit::encoder::Expect::within(1e-5)
);
bitext_testkit::pair_scorer_suite!(
    autoencoder_cosine,
    cosine_scorer(),
    bitext_testkit::scorer::Expect::within(1e-6)
);

/// The bags' IDF weights count every sentence an encoder reads in training: on the decoded
/// side the monolingual sentences it autoencodes too, not only the pairs'.
#[test]
fn the_bag_weights_count_the_monolingual_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = parallel_text(30, 1);
    let (vs, vt) = parallel_text(10, 2);
    // Another distribution of words than the pairs': the first 40 English sides of 200.
    let mono = parallel_text(200, 4).1[..40].to_vec();
    let mut job = job(&src, &tgt, (&vs, &vt), dir.path(), 24);
    job.corpus.init = None;
    job.mono = &mono;
    job.network.bag = true;
    (job.train.batching, job.train.train) = small_schedule(1, 0.02, 400);
    let out = dir.path().join("model");
    job.run(&out, false).unwrap();
    let m = AutoencoderEncoder::load(&out, BackendSpec::Flex).unwrap();
    // The decoded (target) side: the pairs' English and the monolingual sentences.
    let (ws, wt) = (
        common::bag_weights_of(&m.model().src_bag),
        common::bag_weights_of(&m.model().tgt_bag),
    );
    let cases = [
        (Side::Source, &ws, vec![&src[..]]),
        (Side::Target, &wt, vec![&tgt[..], &mono[..]]),
    ];
    for (side, got, sets) in cases {
        let want = common::idf_over(m.text(), side, &sets, got.len());
        for (r, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() < 1e-5, "{side:?} row {r}: {g} vs {w}");
        }
    }
    let pairs_only = common::idf_over(m.text(), Side::Target, &[&tgt[..]], wt.len());
    let differ = wt
        .iter()
        .zip(&pairs_only)
        .filter(|(a, b)| (*a - *b).abs() > 0.1);
    assert!(
        differ.count() >= 3,
        "the monolingual sentences change no weight"
    );
}
