//! Distillation (`bitext_neural::distill`) through the siamese text training: a student with a
//! bag of words learns a teacher's sentence vectors, alone or beside the ranking loss; rows are
//! kept aligned with the pairs that survive tokenization; mismatches are errors that say what.
//! The autoencoder learns them too; the aligner: `distill_aligner.rs`.

mod common;
use common::{small_schedule, teacher_of, teacher_seeded};

use bitext_core::Embeddings;
use bitext_encode::Side;
use bitext_neural::autoencoder::{
    AutoencoderConfig, AutoencoderTextTraining, AutoencoderTrainConfig, Softmax,
};
use bitext_neural::distill::{Teacher, TeacherRows, TeacherVectors};
use bitext_neural::siamese::{
    Objective, Pooling, SiameseConfig, SiameseTextTraining, SiameseTrainConfig,
};
use bitext_neural::text::{TextNetwork, TextTraining};

use bitext_testkit::data::parallel_text;

const DIM: usize = 12;

/// The test teacher ([`common::teacher_of`]) at this file's width.
fn teacher_vectors(tgt: &[String]) -> Embeddings {
    teacher_of(tgt, DIM)
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
) -> Trained {
    train_lists(
        network,
        objective,
        (weight, alone),
        epochs,
        source_seed,
        |t, s| (t.into(), s.map(Into::into)),
    )
}

type Trained = (
    Metrics,
    Metrics,
    f64,
    (
        bitext_neural::siamese::Siamese,
        std::path::PathBuf,
        tempfile::TempDir,
    ),
);

/// [`train_with`], the teacher's training vectors of the target and source sentences laid out
/// by `lists`.
fn train_lists(
    network: SiameseConfig,
    objective: Objective,
    (weight, alone): (f64, bool),
    epochs: usize,
    source_seed: Option<u64>,
    lists: impl Fn(Embeddings, Option<Embeddings>) -> (TeacherVectors, Option<TeacherVectors>),
) -> Trained {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = parallel_text(80, 5);
    let (vs, vt) = parallel_text(20, 6);
    let mut train = SiameseTrainConfig::paper(3);
    train.negatives = 2;
    train.objective = objective;
    (train.batching, train.train) = small_schedule(epochs, 0.02, 1000);
    let (target, source) = lists(
        teacher_vectors(&tgt),
        source_seed.map(|seed| teacher_seeded(&src, DIM, seed)),
    );
    let job = SiameseTextTraining {
        corpus: common::every_word_corpus(&src, &tgt, Some((&vs, &vt)), true),
        network,
        train,
        teacher: Some(Teacher {
            train: target,
            valid: Some(teacher_vectors(&vt)),
            source: source_seed.map(|seed| TeacherRows {
                train: source.expect("source vectors"),
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

/// The teacher's vectors held once in shared tables train the student exactly as one row per
/// pair does: here the target list reads a table in reverse order with a row no sentence
/// uses, and the source list reads that table beside rows of its own.
#[test]
fn vectors_in_shared_tables_train_as_one_row_per_pair() {
    let run = |shared: bool| {
        let (_, best, loss, _) = train_lists(
            network(),
            Objective::Classifier,
            (1.0, false),
            3,
            Some(7),
            |t, s| {
                let s = s.unwrap();
                if !shared {
                    return (t.into(), Some(s.into()));
                }
                let n = t.len();
                let mut table: Vec<Vec<f32>> = (0..n).rev().map(|i| t.row(i).to_vec()).collect();
                table.push(vec![f32::NAN; t.dim()]);
                let table = std::sync::Arc::new(Embeddings::from_rows(table, t.dim()).unwrap());
                let target = TeacherVectors::new(table, (0..n).map(|i| n - 1 - i).collect());
                let target = target.unwrap();
                let index = (0..s.len()).map(|i| n + 1 + i).collect();
                let source = target.beside(s, index).unwrap();
                assert!(source.shares_table(&target));
                (target, Some(source))
            },
        );
        (best, loss)
    };
    assert_eq!(run(true), run(false));
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
        train: train.into(),
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
            train: teacher_of(&tgt, 24).into(),
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
