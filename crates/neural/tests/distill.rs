//! Distillation (`bitext_neural::distill`) through the siamese text training: a student with a
//! bag of words learns a teacher's sentence vectors, alone or beside the ranking loss; rows are
//! kept aligned with the pairs that survive tokenization; mismatches are errors that say what.
//! The autoencoder and the aligner learn them too.

mod common;
use common::small_schedule;

use bitext_core::{Embeddings, Rng, normalize_row};
use bitext_encode::Side;
use bitext_neural::autoencoder::{
    AutoencoderConfig, AutoencoderTextTraining, AutoencoderTrainConfig, Softmax,
};
use bitext_neural::distill::{Teacher, TeacherRows};
use bitext_neural::siamese::{
    Objective, Pooling, SiameseConfig, SiameseTextTraining, SiameseTrainConfig,
};
use bitext_neural::text::{TextNetwork, TextTraining};

use bitext_testkit::data::parallel_text;

const DIM: usize = 12;

/// A teacher that knows only the target language: the unit sum of its own random vectors of
/// the target sentence's words (`b0 … b19`), word order ignored. A source sentence `a3 a7` has
/// to reach the vector of its translation `b7 b3`.
fn teacher_vectors(tgt: &[String]) -> Embeddings {
    teacher_of(tgt, DIM)
}

fn teacher_of(tgt: &[String], dim: usize) -> Embeddings {
    teacher_seeded(tgt, dim, 99)
}

/// [`teacher_of`] with word vectors drawn from `seed`.
fn teacher_seeded(tgt: &[String], dim: usize, seed: u64) -> Embeddings {
    let mut rng = Rng::seed(seed);
    let words: Vec<Vec<f32>> = (0..20)
        .map(|_| (0..dim).map(|_| rng.normal() as f32).collect())
        .collect();
    let rows = tgt.iter().map(|s| {
        let mut v = vec![0f32; dim];
        for w in s.split_whitespace() {
            let i: usize = w[1..].parse().unwrap();
            for (x, y) in v.iter_mut().zip(&words[i]) {
                *x += y;
            }
        }
        normalize_row(&mut v);
        v
    });
    Embeddings::from_rows(rows, dim).unwrap()
}

fn network() -> SiameseConfig {
    SiameseConfig {
        pooling: Pooling::Max,
        ..common::small_siamese(8, DIM, 8)
    }
    .with_encoder(|e| e.bag = true)
}

type Metrics = std::collections::BTreeMap<String, f64>;

/// Train on 80 pairs (validation: 20 others) with `teacher` made from the pairs; the
/// validation metrics of the first and of the best epoch.
fn train_network(
    network: SiameseConfig,
    objective: Objective,
    (weight, alone): (f64, bool),
    epochs: usize,
) -> (Metrics, Metrics, f64) {
    let (first, best, loss, _) = train_with(network, objective, (weight, alone), epochs, None);
    (first, best, loss)
}

/// [`train_network`] with the teacher's vectors of the source sentences drawn from the word
/// vectors of `source_seed` when given (each sentence towards the teacher's vector of
/// itself); also the fitted network and the directory it was saved to.
fn train_with(
    network: SiameseConfig,
    objective: Objective,
    (weight, alone): (f64, bool),
    epochs: usize,
    source_seed: Option<u64>,
) -> (
    Metrics,
    Metrics,
    f64,
    (
        bitext_neural::siamese::Siamese,
        std::path::PathBuf,
        tempfile::TempDir,
    ),
) {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = parallel_text(80, 5);
    let (vs, vt) = parallel_text(20, 6);
    let mut train = SiameseTrainConfig::paper(3);
    train.negatives = 2;
    train.objective = objective;
    (train.batching, train.train) = small_schedule(epochs, 0.02, 1000);
    let job = SiameseTextTraining {
        corpus: common::every_word_corpus(&src, &tgt, Some((&vs, &vt)), true),
        network,
        train,
        teacher: Some(Teacher {
            train: teacher_vectors(&tgt),
            valid: Some(teacher_vectors(&vt)),
            source: source_seed.map(|seed| TeacherRows {
                train: teacher_seeded(&src, DIM, seed),
                valid: Some(teacher_seeded(&vs, DIM, seed)),
            }),
            weight,
            alone,
        }),
    };
    let out = job.run(dir.path(), false).unwrap();
    let h = &out.fitted.state.history;
    let best = &h[out.fitted.state.best_epoch - 1];
    let loss = best.valid.as_ref().unwrap().loss;
    (
        h[0].valid.as_ref().unwrap().metrics.clone(),
        best.valid.as_ref().unwrap().metrics.clone(),
        loss,
        (out.fitted.model, out.fitted.dir, dir),
    )
}

#[test]
fn a_student_learns_the_teachers_vectors_in_both_languages() {
    let (first, best, loss) = train_network(network(), Objective::Classifier, (1.0, true), 25);
    let (src, tgt) = (best["teacher cos src"], best["teacher cos tgt"]);
    // Alone, the validation loss is the mean cosine distance itself.
    assert!((loss - (1.0 - (src + tgt) / 2.0)).abs() < 1e-9, "{loss}");
    assert!(tgt > 0.9, "target side: {first:?} → {best:?}");
    assert!(src > 0.9, "source side: {first:?} → {best:?}");
    assert!(src > first["teacher cos src"] + 0.1, "{first:?} → {best:?}");
}

#[test]
fn beside_the_ranking_loss_validation_reports_both() {
    // The ranking loss's gradients are `scale` (20) times larger: a weight of that order.
    let (_, best, _) = train_network(network(), Objective::ranking(), (20.0, false), 12);
    assert!(best["teacher cos src"] > 0.7, "{best:?}");
    assert!(best.contains_key("p@1 src→tgt"), "{best:?}");
}

/// Over fixed input vectors the bag cannot move; its trained map (`bag_map`) brings the student
/// nearer the teacher than the recurrent states alone do.
#[test]
fn a_map_of_a_fixed_bag_brings_the_student_nearer() {
    let frozen = network().with_encoder(|e| e.frozen_embeddings = true);
    let (_, plain, _) = train_network(frozen, Objective::Classifier, (1.0, true), 10);
    let mapped = frozen.with_encoder(|e| e.bag_map = true);
    let (_, map, _) = train_network(mapped, Objective::Classifier, (1.0, true), 10);
    for side in ["teacher cos src", "teacher cos tgt"] {
        assert!(
            map[side] > plain[side] + 0.05,
            "{side}: {plain:?} vs {map:?}"
        );
    }
}

/// With the teacher's vectors of the source sentences (`--teacher-side both`), each side
/// learns the teacher's vector of itself: here a source teacher whose word vectors are not the
/// target teacher's, so that pulling the source sentences towards the target's rows could not
/// reach them.
#[test]
fn each_side_learns_the_teachers_vector_of_itself() {
    let (first, best, _, _) =
        train_with(network(), Objective::Classifier, (1.0, true), 25, Some(7));
    for side in ["teacher cos src", "teacher cos tgt"] {
        assert!(best[side] > 0.9, "{side}: {first:?} → {best:?}");
    }
    assert!(
        best["teacher cos src"] > first["teacher cos src"] + 0.1,
        "{first:?} → {best:?}"
    );
    // The two teachers disagree: the target teacher's rows are not what the source side learnt.
    let (s, t) = (
        teacher_seeded(&["a1 a2".to_string()], DIM, 7),
        teacher_of(&["b2 b1".to_string()], DIM),
    );
    assert!(bitext_neural::distill::mean_cosine(&s, &t) < 0.9);
}

/// `net` distilled alone for 10 epochs (classifier, teacher weight 1): each side's teacher
/// cosine rises by more than 0.15 (from about 0.35 to about 0.65 over fixed random input
/// vectors); the fitted network and the directory it was saved to.
fn learns_the_teacher(
    net: SiameseConfig,
) -> (
    bitext_neural::siamese::Siamese,
    std::path::PathBuf,
    tempfile::TempDir,
) {
    let (first, best, _, fitted) = train_with(net, Objective::Classifier, (1.0, true), 10, None);
    for side in ["teacher cos src", "teacher cos tgt"] {
        assert!(
            best[side] > first[side] + 0.15,
            "{side}: {first:?} → {best:?}"
        );
    }
    fitted
}

/// A hidden layer of a fixed bag (`bag_hidden`) starts at nothing, trains, and is saved with
/// the network: the reloaded student gives the fitted one's vectors.
#[test]
fn a_hidden_layer_of_the_bag_trains_and_is_saved() {
    let net = SiameseConfig {
        bag_hidden: 16,
        ..network()
    }
    .with_encoder(|e| {
        e.frozen_embeddings = true;
        e.bag_map = true;
    });
    let (model, saved, _dir) = learns_the_teacher(net);
    let down = |m: &bitext_neural::siamese::Siamese| {
        let h = m.bag.as_ref().unwrap().hidden.as_ref().unwrap();
        h.down.weight.val().into_data().try_to_vec::<f32>().unwrap()
    };
    let v = down(&model);
    assert!(v.iter().any(|x| x.abs() > 1e-4), "V did not move from zero");
    let loaded = bitext_neural::siamese::SiameseEncoder::load(
        &saved,
        bitext_neural::backend::BackendSpec::default(),
    )
    .unwrap();
    assert_eq!(down(loaded.model()), v);
}

/// N-gram convolutions beside the recurrence (`ngrams`) enter through the bag's projection,
/// which starts at zero: their rows of it move, the student learns the teacher, and the
/// reloaded network holds the same filters.
#[test]
fn ngram_convolutions_train_and_are_saved() {
    let net = network().with_encoder(|e| {
        e.frozen_embeddings = true;
        e.bag_map = true;
        e.ngrams = bitext_neural::ngrams::NgramOrders::new(&[1, 2]).unwrap();
        e.ngram_channels = 8;
    });
    let (model, saved, _dir) = learns_the_teacher(net);
    // The rows of P below the recurrent states' are the convolutions'.
    let proj = model.bag.as_ref().unwrap().proj.val();
    let [rows, cols] = proj.dims();
    assert_eq!(rows, 2 * net.hidden + 16);
    let p = proj.into_data().try_to_vec::<f32>().unwrap();
    assert!(
        p[2 * net.hidden * cols..].iter().any(|x| x.abs() > 1e-4),
        "the convolutions' rows of P did not move from zero"
    );
    let filters = |m: &bitext_neural::siamese::Siamese| {
        let ng = m.ngrams.as_ref().unwrap();
        assert_eq!(ng.convs.len(), 2);
        ng.convs[1]
            .weight
            .val()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap()
    };
    let loaded = bitext_neural::siamese::SiameseEncoder::load(
        &saved,
        bitext_neural::backend::BackendSpec::default(),
    )
    .unwrap();
    assert_eq!(filters(loaded.model()), filters(&model));
    // Encoding in many small batches runs the convolutions on the host, each id's products
    // kept from batch to batch; one batch of tensor operations gives the same vectors.
    let m = loaded.model();
    let seqs: Vec<Vec<u32>> = (0..40u32)
        .map(|i| (0..1 + i % 9).map(|t| 4 + (i * 7 + t * 3) % 11).collect())
        .collect();
    let refs: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
    let small = bitext_neural::batch::Bucketing {
        max_items: 6,
        max_tokens: 60,
    };
    let many = m.encode_all(&refs, Side::Source, &small).unwrap();
    let one = m.encode(&refs, Side::Source, None).unwrap();
    let one = one.into_data().try_to_vec::<f32>().unwrap();
    for (i, (a, b)) in many.as_slice().iter().zip(&one).enumerate() {
        assert!(
            (a - b).abs() < 1e-4,
            "value {i}: {a} in batches, {b} in one"
        );
    }
}

#[test]
fn mismatched_teachers_are_errors_naming_the_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = parallel_text(10, 5);
    let job = |teacher: Teacher| SiameseTextTraining {
        corpus: common::every_word_corpus(&src, &tgt, None, true),
        network: network(),
        train: SiameseTrainConfig::paper(3),
        teacher: Some(teacher),
    };
    let rows = |n: usize, dim: usize| Embeddings::new(vec![0.5; n * dim], dim).unwrap();
    let teacher = |train: Embeddings| Teacher {
        train,
        valid: None,
        source: None,
        weight: 1.0,
        alone: false,
    };
    let e = job(teacher(rows(9, DIM)))
        .run(dir.path(), false)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("9 teacher vectors for 10 training pairs"),
        "{e}"
    );
    let e = job(teacher(rows(10, DIM + 1)))
        .run(dir.path(), false)
        .unwrap_err();
    assert!(
        e.to_string().contains("13 dimensions but the student's 12"),
        "{e}"
    );
}

/// The autoencoder's two encoders learn the teacher's vectors too, each its own language.
#[test]
fn an_autoencoder_student_learns_the_teachers_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = parallel_text(80, 5);
    let (vs, vt) = parallel_text(20, 6);
    let mut train = AutoencoderTrainConfig::paper(3);
    (train.batching, train.train) = small_schedule(25, 0.02, 400);
    let job = AutoencoderTextTraining {
        corpus: common::every_word_corpus(&src, &tgt, Some((&vs, &vt)), false),
        mono: &[],
        network: AutoencoderConfig {
            softmax: Softmax::Sampled { candidates: 10 },
            ..AutoencoderConfig::paper(1, 1)
        }
        .with_encoder(|e| {
            e.emb_dim = 12;
            e.hidden = 12;
        }),
        train,
        teacher: Some(Teacher {
            train: teacher_of(&tgt, 24),
            valid: Some(teacher_of(&vt, 24)),
            source: None,
            weight: 1.0,
            alone: true,
        }),
    };
    let out = job.run(dir.path(), false).unwrap();
    let h = &out.fitted.state.history;
    let first = h[0].valid.as_ref().unwrap().metrics.clone();
    let best = &h[out.fitted.state.best_epoch - 1]
        .valid
        .as_ref()
        .unwrap()
        .metrics;
    for side in ["teacher cos src", "teacher cos tgt"] {
        // Max-pooled states (no bag here) fit a sum of word vectors more slowly than the
        // siamese network's bag: from about 0.4 to about 0.7 in these epochs.
        assert!(best[side] > 0.6, "{side}: {first:?} → {best:?}");
        assert!(
            best[side] > first[side] + 0.2,
            "{side}: {first:?} → {best:?}"
        );
    }
}

/// A small aligner with a mapped bag in its sentence vector, as wide as the teacher.
fn aligner_student() -> bitext_neural::aligner::AlignerConfig {
    bitext_neural::aligner::AlignerConfig {
        ff: 6,
        objective: bitext_neural::aligner::Objective::Words,
        pooling: Pooling::Max,
        ..bitext_neural::aligner::AlignerConfig::paper(1, 1)
    }
    .with_encoder(|e| {
        e.emb_dim = DIM;
        e.hidden = 8;
        e.bag = true;
        e.bag_map = true;
    })
}

/// The teacher of an aligner student: the rows of the English training and validation
/// sentences, weight 5, beside the word loss.
fn aligner_teacher(tgt: &[String], vt: &[String]) -> Teacher {
    Teacher {
        train: teacher_of(tgt, DIM),
        valid: Some(teacher_of(vt, DIM)),
        source: None,
        weight: 5.0,
        alone: false,
    }
}

/// The aligner learns the teacher's vectors of its paired examples beside its word loss; a
/// teacher alone, or one of another width, is an error that says so.
#[test]
fn an_aligner_student_learns_the_teachers_vectors_beside_its_word_loss() {
    let (src, tgt) = parallel_text(80, 5);
    let (vs, vt) = parallel_text(20, 6);
    let network = aligner_student();
    let teacher = |dim: usize, alone: bool| Teacher {
        train: teacher_of(&tgt, dim),
        valid: Some(teacher_of(&vt, dim)),
        source: None,
        weight: 5.0,
        alone,
    };
    // A run takes its job: each run gets a fresh one.
    let job = |teacher: Teacher| {
        let mut job = common::aligner_text_job(&src, &tgt, (&vs, &vt), network);
        (job.train.batching, job.train.train) = small_schedule(20, 0.02, 400);
        job.teacher = Some(teacher);
        job
    };
    let with_source = Teacher {
        source: Some(TeacherRows {
            train: teacher_of(&src, DIM),
            valid: Some(teacher_of(&vs, DIM)),
        }),
        ..teacher(DIM, false)
    };
    for (bad, want) in [
        (teacher(DIM, true), "alone"),
        (teacher(DIM + 1, false), "13"),
        (with_source, "source sentences"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let e = job(bad).run(dir.path(), false).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = job(teacher(DIM, false)).run(dir.path(), false).unwrap();
    let h = &out.fitted.state.history;
    let first = h[0].valid.as_ref().unwrap().metrics.clone();
    let last = h.last().unwrap().valid.as_ref().unwrap().metrics.clone();
    for side in ["teacher cos src", "teacher cos tgt"] {
        assert!(last[side] > 0.8, "{side}: {first:?} → {last:?}");
        assert!(
            last[side] > first[side] + 0.1,
            "{side}: {first:?} → {last:?}"
        );
    }
    assert!(last.contains_key("word_accuracy_U"), "{last:?}");
}

/// Distillation pairs train the aligner's sentence vectors beyond its few word pairs: with the
/// same seed and epochs, a student that also reads 240 pairs only towards the teacher ends
/// nearer the teacher on held-out pairs than one that reads its 30 training pairs alone. The
/// pairs need a teacher, and rows for each of them.
#[test]
fn distillation_pairs_bring_the_aligners_sentence_vectors_nearer_the_teacher() {
    use bitext_neural::aligner::DistillText;
    let (src, tgt) = parallel_text(30, 5);
    let (vs, vt) = parallel_text(20, 6);
    let (ds, dt) = parallel_text(240, 7);
    let network = aligner_student();
    let (src_rows, tgt_rows) = (teacher_of(&ds, DIM), teacher_of(&dt, DIM));
    let short = teacher_of(&dt[..dt.len() - 1], DIM);
    let stream = |tgt_rows| DistillText {
        src: &ds,
        tgt: &dt,
        src_rows: &src_rows,
        tgt_rows,
        per_epoch: 120,
        ranking: None,
        ranking_spares_words: false,
        parallel: ds.len(),
    };
    // A run takes its job: each run gets a fresh one.
    let job = |teacher: bool, distill| {
        let mut job = common::aligner_text_job(&src, &tgt, (&vs, &vt), network);
        (job.train.batching, job.train.train) = small_schedule(8, 0.02, 400);
        job.per_kind = 30;
        job.teacher = teacher.then(|| aligner_teacher(&tgt, &vt));
        job.distill = distill;
        job
    };
    let dir = tempfile::tempdir().unwrap();
    let e = job(false, Some(stream(&tgt_rows)))
        .run(dir.path(), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("teacher"), "{e}");
    let e = job(true, Some(stream(&short)))
        .run(dir.path(), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("239 teacher vectors"), "{e}");
    let mut last = Vec::new();
    for distill in [None, Some(stream(&tgt_rows))] {
        let with = distill.is_some();
        let dir = tempfile::tempdir().unwrap();
        let out = job(true, distill).run(dir.path(), false).unwrap();
        let h = &out.fitted.state.history;
        let m = h.last().unwrap().valid.as_ref().unwrap().metrics.clone();
        // An epoch counts its distillation pairs among its items.
        assert_eq!(h[0].items, 4 * 30 + if with { 120 } else { 0 }, "{with}");
        last.push(m["teacher cos src"] + m["teacher cos tgt"]);
    }
    assert!(last[1] > last[0] + 0.1, "{last:?}");
}

/// The aligner's bag weights are the IDF of each side's rows over every sentence that side
/// reads in training: the word examples' and the distillation pairs' (whose other register
/// or language would otherwise get the weights of pieces never seen).
#[test]
fn the_aligners_bag_weights_count_the_distillation_pairs() {
    use bitext_neural::aligner::{AlignerModel, DistillText};
    use bitext_neural::backend::BackendSpec;
    let (src, tgt) = parallel_text(30, 5);
    let (vs, vt) = parallel_text(20, 6);
    // Another distribution of words than the training pairs': the first 60 of 240 pairs.
    let (ds, dt) = parallel_text(240, 8);
    let (ds, dt) = (ds[..60].to_vec(), dt[..60].to_vec());
    let mut job = common::aligner_text_job(&src, &tgt, (&vs, &vt), aligner_student());
    (job.train.batching, job.train.train) = small_schedule(1, 0.02, 400);
    job.per_kind = 10;
    job.teacher = Some(aligner_teacher(&tgt, &vt));
    let rows = (teacher_of(&ds, DIM), teacher_of(&dt, DIM));
    job.distill = Some(DistillText {
        src: &ds,
        tgt: &dt,
        src_rows: &rows.0,
        tgt_rows: &rows.1,
        per_epoch: 20,
        ranking: None,
        ranking_spares_words: false,
        parallel: ds.len(),
    });
    let dir = tempfile::tempdir().unwrap();
    job.run(dir.path(), false).unwrap();
    let m = AlignerModel::load(dir.path(), BackendSpec::Flex).unwrap();
    let bags = [&m.model().src_bag, &m.model().tgt_bag];
    for ((side, bag), texts) in [Side::Source, Side::Target]
        .into_iter()
        .zip(bags)
        .zip([[&src[..], &ds[..]], [&tgt[..], &dt[..]]])
    {
        let w = common::bag_weights_of(bag);
        let idf = |sets: &[&[String]]| common::idf_over(m.text(), side, sets, w.len());
        let (both, alone) = (idf(&texts), idf(&texts[..1]));
        for (r, (&got, &want)) in w.iter().zip(&both).enumerate() {
            assert!(
                (got - want).abs() < 1e-5,
                "{side:?} row {r}: {got} vs {want}"
            );
        }
        let differ = both
            .iter()
            .zip(&alone)
            .filter(|(a, b)| (*a - *b).abs() > 0.1);
        assert!(differ.count() >= 3, "{side:?}: the pairs change no weight");
    }
}
