//! Distillation (`bitext_neural::distill`) into the word-alignment BiLSTM: its sentence
//! vectors learn the teacher's beside its word loss, from its paired examples and from
//! distillation pairs, whose sentences its bag weights count.

mod common;
use common::{small_schedule, teacher_of};

use bitext_encode::Side;
use bitext_neural::distill::{Teacher, TeacherRows};
use bitext_neural::siamese::Pooling;
use bitext_neural::text::TextTraining;
use bitext_testkit::data::parallel_text;

const DIM: usize = 12;

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
        train: teacher_of(tgt, DIM).into(),
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
        train: teacher_of(&tgt, dim).into(),
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
            train: teacher_of(&src, DIM).into(),
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
    let (src_rows, tgt_rows) = (teacher_of(&ds, DIM).into(), teacher_of(&dt, DIM).into());
    let short = teacher_of(&dt[..dt.len() - 1], DIM).into();
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
    let rows = (teacher_of(&ds, DIM).into(), teacher_of(&dt, DIM).into());
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
